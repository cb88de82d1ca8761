"""Reference for Loss/kl_div.py: KL divergence of log-probability inputs against (log-)probability targets."""

import torch
import torch.nn.functional as F


def kl_div(input, target, reduction='batchmean', log_target=False):
    # F.kl_div: xlogy(t, t) - t * x pointwise (or exp(t) * (t - x) for log targets), then reduced.
    return F.kl_div(input, target, reduction=reduction, log_target=log_target)


def log_probs(gen, device, shape, log=True, outlier_p=0.0, outlier_scale=1.0, on_device=False):
    """log_softmax (or softmax with log=False) over the last dim of randn logits.

    With outlier_p, that fraction of the logits is scaled by outlier_scale first.
    """
    shape = [int(s) for s in shape]
    if on_device:  # perf inputs: drawn on `device` from a generator seeded by the case generator
        seed = int(torch.randint(0, 2 ** 62, (1,), generator=gen).item())
        gen = torch.Generator(device=device)
        gen.manual_seed(seed)
    logits = torch.randn(shape, generator=gen, dtype=torch.float32, device=gen.device)
    if outlier_p > 0:
        hit = torch.rand(shape, generator=gen, dtype=torch.float64, device=gen.device) < outlier_p
        logits = torch.where(hit, logits * outlier_scale, logits)
    out = torch.log_softmax(logits, dim=-1) if log else torch.softmax(logits, dim=-1)
    return out.to(device)


def sparse_probs(gen, device, shape):
    """Rows of probabilities with about half the entries exactly 0 (each row keeps at least one)."""
    shape = [int(s) for s in shape]
    w = torch.rand(shape, generator=gen, dtype=torch.float32)
    keep = torch.rand(shape, generator=gen, dtype=torch.float64) < 0.5
    keep[..., 0] = True
    w = torch.where(keep, w + 0.1, torch.zeros_like(w))
    return (w / w.sum(dim=-1, keepdim=True)).to(device)

"""Reference for Loss/nll_loss.py: negative log-likelihood of class-index targets."""

import torch
import torch.nn.functional as F


def nll_loss(input, target, weight=None, ignore_index=-100, reduction='mean'):
    # F.nll_loss gathers -input[target], weights it and reduces, skipping ignore_index.
    return F.nll_loss(input, target, weight=weight, ignore_index=ignore_index, reduction=reduction)


def log_probs(gen, device, shape, outlier_p=0.0, outlier_scale=1.0, on_device=False):
    """log_softmax over dim 1 of randn logits; with outlier_p, that fraction of logits is scaled first."""
    shape = [int(s) for s in shape]
    if on_device:  # perf inputs: drawn on `device` from a generator seeded by the case generator
        seed = int(torch.randint(0, 2 ** 62, (1,), generator=gen).item())
        gen = torch.Generator(device=device)
        gen.manual_seed(seed)
    logits = torch.randn(shape, generator=gen, dtype=torch.float32, device=gen.device)
    if outlier_p > 0:
        hit = torch.rand(shape, generator=gen, dtype=torch.float64, device=gen.device) < outlier_p
        logits = torch.where(hit, logits * outlier_scale, logits)
    return torch.log_softmax(logits, dim=1).to(device)


def class_targets(gen, device, shape, classes, ignore_index=-100, ignore_p=0.0):
    """Uniform class indices in [0, classes); a fraction ignore_p of them set to ignore_index.

    The first element is never ignored, so a 'mean' reduction always has a non-zero normaliser.
    """
    shape = [int(s) for s in shape]
    y = torch.randint(0, int(classes), shape, generator=gen, dtype=torch.int64)
    hit = torch.rand(shape, generator=gen, dtype=torch.float64) < ignore_p
    hit.view(-1)[0] = False
    y = torch.where(hit, torch.full_like(y, int(ignore_index)), y)
    if 0 <= ignore_index < classes:
        y = torch.where(~hit & (y == ignore_index), (y + 1) % int(classes), y)
    return y.to(device)

"""Reference for Fusion/fused_dropout_sigmoid_linear.py: dropout(sigmoid(linear(input, weight, bias)))."""

import math

import torch
import torch.nn.functional as F


def fused_dropout_sigmoid_linear(input, weight, bias=None, p=0.5, training=True, inplace=False):
    s = torch.sigmoid(F.linear(input, weight, bias))
    return F.dropout(s, p=p, training=training, inplace=inplace)


def canonical_dropout_sigmoid_linear(out, args, kwargs):
    a = dict(zip(("input", "weight", "bias", "p", "training", "inplace"), args))
    a.update(kwargs)
    p, training = a.get("p", 0.5), a.get("training", True)
    if not training or p == 0:
        return out, torch.tensor(True, device=out.device)
    s = torch.sigmoid(F.linear(a["input"], a["weight"], a.get("bias")))
    return _judge_dropout(out, out == 0, s * (1.0 / (1.0 - p)), p)


# ---- judging dropout results (canonical form) ----
# A dropout mask cannot be reproduced outside torch's own generator, so the canonical form keeps what a
# correct result must satisfy: every element is either dropped or equal to the undropped value scaled by
# 1 / (1 - p), the number of dropped elements is a plausible Binomial(n, p) draw, and the mask does not
# repeat across slices or blocks as no independent draw would (_independent).

_ELIGIBLE = 1e-3     # elements whose undropped value is at least this large count towards the drop statistic
_TAIL = 1e-9         # a drop count is rejected when its exact binomial tail probability is below this


def _binomial_tail_ok(k, n, p):
    """False when k drops out of n is implausible: P(K >= k) or P(K <= k) below _TAIL for K ~ Binomial(n, p)."""
    if n == 0 or p <= 0.0 or p >= 1.0:
        return True
    i = torch.arange(n + 1, dtype=torch.float64)
    logpmf = (torch.lgamma(torch.tensor(n + 1.0, dtype=torch.float64)) - torch.lgamma(i + 1) - torch.lgamma(n - i + 1)
              + i * math.log(p) + (n - i) * math.log1p(-p))
    upper = torch.logsumexp(logpmf[k:], 0).item()
    lower = torch.logsumexp(logpmf[:k + 1], 0).item()
    return min(upper, lower) >= math.log(_TAIL)


_PERIODS = (16, 32, 64, 128, 256, 512, 1024, 2048, 4096)  # block sizes a kernel's random keys may repeat with
_GAPS = (1, 2, 3)     # slice distances tested along every dimension (_independent)


def _independent(dropped, eligible, p):
    """False when the drop mask repeats where independent draws would not: slices 1, 2 or 3 apart
    along any dimension (a mask drawn per batch or per row and reused, or cycled through a few), or
    blocks a power of two apart along the last dimension or the flat index (random keys taken within
    a block, not globally). Each test
    pairs disjoint elements, eligible both, which agree (both dropped or both kept) with probability
    p^2 + (1-p)^2 when independent: each count is rejected where the Chernoff bound on its tail,
    exp(-n KL(k/n || q)), is below _TAIL (the true tail is smaller: never a false failure more often)."""
    q = p * p + (1.0 - p) * (1.0 - p)
    d, e = dropped.bool(), eligible.bool()
    pairs = []
    for dim in range(d.dim()):
        for gap in _GAPS:
            m = d.shape[dim] // (2 * gap)
            if m:  # slice i against slice i + gap, in disjoint runs of 2 * gap slices
                first = torch.arange(2 * m * gap, device=d.device).reshape(m, 2, gap)[:, 0].reshape(-1)
                pairs.append((d.index_select(dim, first), d.index_select(dim, first + gap),
                              e.index_select(dim, first), e.index_select(dim, first + gap)))
    for flat in ((d.reshape(-1, d.shape[-1]), e.reshape(-1, e.shape[-1])) if d.dim() else (),
                 (d.reshape(1, -1), e.reshape(1, -1))):
        if not flat:
            continue
        fd, fe = flat
        for period in _PERIODS:
            blocks = fd.shape[1] // (2 * period)
            if blocks == 0:
                break
            bd = fd[:, :blocks * 2 * period].reshape(-1, blocks, 2, period)
            be = fe[:, :blocks * 2 * period].reshape(-1, blocks, 2, period)
            pairs.append((bd[:, :, 0], bd[:, :, 1], be[:, :, 0], be[:, :, 1]))
    for a, b, ea, eb in pairs:
        both = ea & eb
        n = int(both.sum().item())
        k = int(((a == b) & both).sum().item())
        f = k / n if n else q
        kl = sum(x * math.log(x / y) for x, y in ((f, q), (1.0 - f, 1.0 - q)) if x > 0)
        if n * kl > -math.log(_TAIL):
            return False
    return True


def _judge_dropout(out, dropped, expected, p):
    """(out with dropped elements replaced by the expected value, bool: drop count plausible)."""
    if not isinstance(out, torch.Tensor) or out.shape != expected.shape or out.dtype != expected.dtype:
        raise ValueError("the result must be a tensor shaped and typed like the reference's")
    filled = torch.where(dropped, expected, out)
    eligible = expected.abs() >= _ELIGIBLE
    n = int(eligible.sum().item())
    k = int((dropped & eligible).sum().item())
    ok = _binomial_tail_ok(k, n, float(p)) and _independent(dropped, eligible, float(p))
    return filled, torch.tensor(ok, device=out.device)

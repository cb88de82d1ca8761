"""Reference for Fusion/fused_hardshrink_dropout.py: dropout, then hard shrinkage."""

import inspect
import math

import torch
import torch.nn.functional as F


def fused_hardshrink_dropout(input, p=0.5, training=True, inplace=False, lambd=0.5):
    # torch's dropout kernel (zeroes each element with probability p, scales survivors by
    # 1/(1-p)), then its hardshrink kernel (keeps x where |x| > lambd, else 0).
    x = F.dropout(input, p=p, training=training, inplace=inplace)
    return F.hardshrink(x, lambd)


def canonical_dropout(out, args, kwargs):
    """Deterministic when training=False or p == 0; otherwise each element must be 0 (dropped
    or shrunk away) or the hard-shrunk scaled input (kept), the number of dropped elements among
    those whose kept value is non-zero must be a plausible Binomial(n, p) draw (|z| <= 5.5), and the
    drops must not repeat across slices or blocks (_independent).

    The form is the result with its zeros filled in by the kept value, so the comparison's
    relative tolerance applies to every kept element (a scaling by x / (1 - p) in place of
    x * (1 / (1 - p)), or Triton's approximate division, is off by an ulp or two: 1.1e-5 at 40,
    which an absolute difference against 0 failed on an H100). Elements whose scaled magnitude
    lies within BOUNDARY_ULPS of lambd may come out either way (0 or kept): their form is the kept
    value whatever the kernel wrote."""
    b = inspect.signature(fused_hardshrink_dropout).bind(*args, **kwargs)
    b.apply_defaults()
    a = b.arguments
    x, p, training, lambd = a["input"], float(a["p"]), a["training"], a["lambd"]
    if not training or p == 0.0:
        return (out, torch.tensor(True))
    if p >= 1.0:
        return (out, torch.tensor(True))
    scaled = x * (1.0 / (1.0 - p))
    kept = F.hardshrink(scaled, lambd)
    if not isinstance(out, torch.Tensor) or out.shape != kept.shape or out.dtype != kept.dtype:
        # Filled in by broadcasting, a result of another shape would read as the kept values
        # (kbx's structure check stops it first; as the other dropout judges, this one checks too).
        raise ValueError("the result must be a tensor shaped and typed like the input")
    eps = torch.finfo(scaled.dtype).eps if scaled.is_floating_point() else 0.0
    boundary = (scaled.abs() - abs(float(lambd))).abs() <= BOUNDARY_ULPS * eps * abs(float(lambd))
    filled = torch.where((out == 0) | boundary, kept, out)
    informative = (kept != 0) & ~boundary
    n = int(informative.sum())
    dropped = int((informative & (out == 0)).sum())
    if n == 0:
        ok = True
    else:
        sd = math.sqrt(n * p * (1.0 - p))
        ok = abs(dropped - n * p) <= 5.5 * sd + 0.5
    ok = ok and _independent(informative & (out == 0), informative, p)
    return (filled, torch.tensor(ok))


BOUNDARY_ULPS = 16  # the band around lambd where rounding may decide between 0 and kept


_TAIL = 1e-9  # each independence test rejects below this bound on its tail probability
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

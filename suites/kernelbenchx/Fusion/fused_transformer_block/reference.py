"""Reference for Fusion/fused_transformer_block.py: layer_norm(dropout(softmax(x @ W1)) @ W2 + residual)."""

import math

import torch
import torch.nn.functional as F


def fused_transformer_block(input, weight1, weight2, residual, dropout_p=0.1, eps=1e-05, *, out=None):
    s = torch.softmax(torch.matmul(input, weight1), dim=-1)
    d = F.dropout(s, p=dropout_p, training=True)          # always in training mode
    y = torch.matmul(d, weight2) + residual
    result = F.layer_norm(y, (y.shape[-1],), eps=eps)      # no affine parameters
    if out is not None:
        return out.copy_(result)
    return result


# ---- judging dropout results (canonical form) ----
# The dropout sits between the softmax and the second matrix product, so dropped elements cannot be read
# off the output. For the small hidden widths (d_k <= 12) the cases use, every keep/drop pattern of a row
# can be enumerated: the canonical form finds, for each output row, the pattern whose (float64) result is
# nearest to it, and moves the row by the difference between the no-drop result and that pattern's result.
# A correct output then maps onto the no-drop result up to its own rounding; an output that matches no
# pattern does not. The number of dropped elements (over elements whose softmax value is large enough for
# their drop to be visible) must also be a plausible Binomial(n, p) draw.

_MAX_DK = 14         # widest hidden dimension whose 2^d_k patterns are enumerated
_ELIGIBLE = 1e-3     # softmax values at least this large count towards the drop statistic
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


def canonical_transformer_block(out, args, kwargs):
    a = dict(zip(("input", "weight1", "weight2", "residual", "dropout_p", "eps"), args))
    a.update(kwargs)
    p, eps = float(a.get("dropout_p", 0.1)), float(a.get("eps", 1e-05))
    if p == 0.0:
        return out, torch.tensor(True, device=out.device)
    x, w1, w2, res = (a[k].double() for k in ("input", "weight1", "weight2", "residual"))
    if not isinstance(out, torch.Tensor) or out.shape != res.shape or out.dtype != a["residual"].dtype:
        raise ValueError("the result must be a tensor shaped and typed like the reference's")
    dk, d = w1.shape[1], w2.shape[1]
    if dk > _MAX_DK:
        raise ValueError("dropout patterns are enumerated only for d_k <= %d" % _MAX_DK)
    s = torch.softmax(x @ w1, dim=-1).reshape(-1, dk)                           # (rows, d_k)
    r = res.reshape(-1, d)
    bits = torch.arange(2 ** dk, device=s.device)
    keep = ((bits[:, None] >> torch.arange(dk, device=s.device)) & 1).bool()   # (patterns, d_k); last = keep all
    scaled = s[:, None, :] * keep.double() / (1.0 - p)                          # (rows, patterns, d_k)
    cand = F.layer_norm(scaled @ w2 + r[:, None, :], (d,), eps=eps)            # (rows, patterns, d)
    o = out.double().reshape(-1, 1, d)
    if not torch.isfinite(o).all():
        raise ValueError("non-finite output")
    best = (o - cand).abs().amax(-1).argmin(-1)                                 # (rows,)
    rows = torch.arange(s.shape[0], device=s.device)
    moved = o[:, 0, :] + (cand[:, -1, :] - cand[rows, best, :])
    eligible = s >= _ELIGIBLE
    dropped = ~keep[best]
    ok = (_binomial_tail_ok(int((dropped & eligible).sum().item()), int(eligible.sum().item()), p)
          and _independent(dropped, eligible, p))
    return moved.reshape(out.shape), torch.tensor(ok, device=out.device)

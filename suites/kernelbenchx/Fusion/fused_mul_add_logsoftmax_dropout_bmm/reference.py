"""Reference for Fusion/fused_mul_add_logsoftmax_dropout_bmm.py:
bmm(dropout(log_softmax(input1 * input2 + other, dim)), mat2)."""

import math

import torch
import torch.nn.functional as F


def fused_mul_add_logsoftmax_dropout_bmm(input1, input2, other, mat2, p=0.5, training=True, inplace=False, dim=-1, *,
                                         out=None):
    s = torch.addcmul(other, input1, input2)
    l = torch.log_softmax(s, dim=dim)
    d = F.dropout(l, p=p, training=training, inplace=inplace)
    return torch.bmm(d, mat2, out=out)


# ---- judging results (canonical form) ----
# Deterministic calls (training=False or p=0): the output's error against the product computed in float64,
# divided by bmm(|l|, |mat2|) + 1. log_softmax values share a large negative offset (about -log N), so the
# product cancels heavily and a plain elementwise tolerance on it would fail correct float32 kernels; the
# scaled error is what any summation order keeps small (at most N * 2^-24 in the worst case).
# The dropout mask cannot be reproduced outside torch's generator, and the dropped tensor D only reaches the
# output through out = bmm(D, mat2). Every element of D is 0 or c = log_softmax(...) / (1 - p).
#  * N <= P (mat2 has at least as many columns as rows, full row rank): D is recovered from the output by least
#    squares, each element is snapped to 0 or c, and the canonical form is (the output's residual against
#    bmm(snapped D, mat2), relative to bmm(|c|, |mat2|) + 1; the drop count is plausible). A correct kernel
#    leaves a rounding-size residual; any wrong kept value, scale or product leaves a large one.
#  * N > P: D cannot be recovered. The output is judged by two statistics of r = out - bmm(c * (1 - p), mat2),
#    which is a sum of independent zero-mean terms (b_ij - (1 - p)) c_ij mat2_j over the Bernoulli keep bits b:
#    its projection on the undropped product E (Hoeffding bound, false failure < 1e-9), catching a missing or
#    wrong 1 / (1 - p) scale, softmax in place of log_softmax, and no dropout at all; and its total
#    Mahalanobis size against the exact per-row covariance, which must lie within [0.6, 1.8] of its mean
#    (a correct kernel: 1 +- 0.05), catching zeros, noise, p off by 2x and the wrong dim.

_ELIGIBLE = 1e-3
_TAIL = 1e-9


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



def _args(args, kwargs):
    a = dict(zip(("input1", "input2", "other", "mat2", "p", "training", "inplace", "dim"), args))
    a.update(kwargs)
    return a


def canonical_dropout_bmm(out, args, kwargs):
    a = _args(args, kwargs)
    p, training, dim = a.get("p", 0.5), a.get("training", True), a.get("dim", -1)
    mat2 = a["mat2"]
    if not isinstance(out, torch.Tensor) or out.dim() != 3 or out.shape[:2] != a["input1"].shape[:2] \
            or out.shape[2] != mat2.shape[2] or out.dtype != mat2.dtype:
        raise ValueError("the result must be a tensor shaped and typed like the reference's")
    o = out.double()
    m2 = mat2.double()
    s = a["other"].double() + a["input1"].double() * a["input2"].double()
    c = torch.log_softmax(s, dim=dim) / (1.0 - p)                      # value of a kept element
    N, P = m2.shape[1], m2.shape[2]
    dev = out.device
    if not training or p == 0:
        # deterministic: the error against the exact product, relative to bmm(|l|, |mat2|) + 1
        c = c * (1.0 - p)
        resid = ((o - torch.bmm(c, m2)) / (torch.bmm(c.abs(), m2.abs()) + 1.0)).to(out.dtype)
        return resid, torch.tensor(True, device=dev)
    if N <= P:
        d_hat = torch.linalg.lstsq(m2.mT, o.mT).solution.mT            # (B, M, N): d_hat @ mat2 ~ out
        keep = (d_hat - c).abs() < d_hat.abs()
        snapped = torch.where(keep, c, torch.zeros_like(c))
        scale = torch.bmm(c.abs(), m2.abs()) + 1.0
        resid = ((o - torch.bmm(snapped, m2)) / scale).to(out.dtype)
        eligible = c.abs() >= _ELIGIBLE
        n = int(eligible.sum().item())
        k = int((~keep & eligible).sum().item())
        ok = _binomial_tail_ok(k, n, float(p)) and _independent(~keep, eligible, float(p))
        return resid, torch.tensor(ok, device=dev)
    q = 1.0 - p
    e = torch.bmm(c * q, m2)                                             # expected output (undropped product)
    r = o - e
    # projection on e: sum_ij (b_ij - q) * c_ij * (mat2_j . e_i); Hoeffding with ranges |c_ij * (mat2_j . e_i)|
    a_ij = c * torch.bmm(e, m2.mT)                                       # (B, M, N)
    stat = (r * e).sum().item()
    bound = math.sqrt(0.5 * (a_ij ** 2).sum().item() * math.log(2.0 / _TAIL))
    proj_ok = abs(stat) <= bound
    # Mahalanobis size: Cov(r_i) = p * q * sum_j c_ij^2 mat2_j mat2_j^T (full rank P when N > P)
    w = (p * q) * c ** 2                                                 # (B, M, N)
    cov = torch.einsum("bmn,bnp,bnq->bmpq", w, m2, m2)
    cov = cov + 1e-12 * torch.eye(P, dtype=cov.dtype, device=cov.device) * cov.diagonal(dim1=-2, dim2=-1).mean()
    sol = torch.linalg.solve(cov, r.unsqueeze(-1)).squeeze(-1)
    ratio = (r * sol).sum().item() / r.numel()
    size_ok = 0.6 <= ratio <= 1.8
    return torch.tensor(proj_ok, device=dev), torch.tensor(size_ok, device=dev)

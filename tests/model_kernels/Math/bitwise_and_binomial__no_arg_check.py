"""Math/bitwise_and_binomial.py, variant without the argument check: as bitwise_and_binomial.py,
but p = probs if given else logits, with no explicit check that one of them is given, so a call
with neither fails with a TypeError/AttributeError instead of the documented ValueError. Every
upstream call passes; kbx's added case neither_probs_nor_logits expects ValueError.
"""
# expect: incorrect
# expect-kernelbenchx: ok  (only kbx's own cases, kbx_only, or its contract catch it)
import torch
import triton
import triton.language as tl


@triton.jit
def _and_binomial_kernel(a_ptr, b_ptr, p_ptr, y_ptr, n, seed, MAX_TRIALS: tl.constexpr,
                         FROM_LOGITS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    c = tl.load(a_ptr + offs, mask=m, other=0) & tl.load(b_ptr + offs, mask=m, other=0)
    p = tl.load(p_ptr + offs, mask=m, other=0.0).to(tl.float32)
    if FROM_LOGITS:
        p = 1.0 / (1.0 + tl.exp(-p))
    count = tl.zeros([BLOCK], dtype=tl.float32)
    for t in range(MAX_TRIALS):
        u = tl.rand(seed, offs * MAX_TRIALS + t)
        count += tl.where((t < c) & (u < p), 1.0, 0.0)
    tl.store(y_ptr + offs, count, mask=m)


def bitwise_and_binomial(input, other, total_count, probs=None, logits=None):
    a = input.contiguous()
    b = other.contiguous()
    p = (probs if probs is not None else logits).contiguous()
    n = a.numel()
    max_c = int((a & b).max().item()) if n else 0
    y = torch.empty(a.shape, dtype=torch.float32, device=a.device)
    seed = int(torch.randint(0, 2**31 - 1, (1,)).item())
    if n:
        _and_binomial_kernel[(triton.cdiv(n, 1024),)](a, b, p, y, n, seed, MAX_TRIALS=max(1, max_c),
                                                      FROM_LOGITS=probs is None, BLOCK=1024)
    return y

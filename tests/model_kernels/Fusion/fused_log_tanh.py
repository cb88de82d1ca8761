"""Fusion/fused_log_tanh.py: a first Triton kernel checks the domain -- each block counts its
elements that are not > 0 (zero, negative or NaN) and stores the count; the host sums the counts
and raises ValueError if any -- then a second Triton kernel computes tanh(log(x)) as
(x^2 - 1) / (x^2 + 1) = 1 - 2 / (x^2 + 1) for x > 0 (x^2 overflowing to inf gives 1, tiny x gives
-1), float32, over the flattened (contiguous copy of the) input. With `out` the kernel writes into
a contiguous `out` directly, else the result is copied into it; `out` is returned.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _domain_kernel(x_ptr, bad_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    bad = tl.where(m & ~(x > 0.0), 1, 0)
    tl.store(bad_ptr + pid, tl.sum(bad, axis=0))


@triton.jit
def _log_tanh_kernel(x_ptr, o_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    x2 = x * x
    tl.store(o_ptr + offs, 1.0 - 2.0 / (x2 + 1.0), mask=m)


def fused_log_tanh(input, out=None):
    x = input.contiguous()
    n = x.numel()
    BLOCK_SIZE = 1024
    nb = triton.cdiv(n, BLOCK_SIZE)
    if n > 0:
        bad = torch.empty(nb, dtype=torch.int32, device=x.device)
        _domain_kernel[(nb,)](x, bad, n, BLOCK_SIZE=BLOCK_SIZE)
        if int(bad.sum().item()) > 0:
            raise ValueError("fused_log_tanh needs every input element to be positive")
    direct = out is not None and out.is_contiguous() and out.dtype == torch.float32 and out.shape == input.shape
    res = out if direct else torch.empty(input.shape, dtype=torch.float32, device=input.device)
    if n > 0:
        _log_tanh_kernel[(nb,)](x, res, n, BLOCK_SIZE=BLOCK_SIZE)
    if out is not None and not direct:
        out.copy_(res)
        return out
    return res

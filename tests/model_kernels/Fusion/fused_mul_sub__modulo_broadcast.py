"""Fusion/fused_mul_sub.py variant that broadcasts by flat-index modulo: each tensor operand is made
contiguous as it is and read at offs % numel (no expand). That is right for equal shapes and for a
broadcast of trailing dimensions (a [129] row against [7, 129]) but wrong for any other pattern: a
[33, 1] column against [1, 65] is read as if it were a row, so out[i, j] uses a[(65 i + j) % 33]
instead of a[i]. The description requires torch broadcasting, so a careful judge fails it. The
public cases pass only same-shape tensors and numbers; only kbx's own [33, 1] x [1, 65] case
catches it.

Otherwise as the correct kernel: with three Python numbers it returns the Python float
input * other_mul - alpha * other_sub. Otherwise one Triton kernel over the flattened broadcast
shape: every tensor operand is broadcast to that shape and made contiguous on the host (expand +
contiguous, so any layout and any broadcast pattern), Python numbers are passed as scalars, and the
kernel computes p = a * b, then p - alpha * c in float32. With `out` the result is copied into it
and returned.
"""
# expect: incorrect
# expect-kernelbenchx: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _mul_sub_kernel(a_ptr, b_ptr, c_ptr, o_ptr, n, na, nb, nc, sa, sb, sc, alpha,
                    A_T: tl.constexpr, B_T: tl.constexpr, C_T: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n
    zero = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    if A_T:
        a = tl.load(a_ptr + offs % na, mask=m, other=0.0).to(tl.float32)
    else:
        a = zero + sa
    if B_T:
        b = tl.load(b_ptr + offs % nb, mask=m, other=0.0).to(tl.float32)
    else:
        b = zero + sb
    if C_T:
        c = tl.load(c_ptr + offs % nc, mask=m, other=0.0).to(tl.float32)
    else:
        c = zero + sc
    p = a * b
    tl.store(o_ptr + offs, p - alpha * c, mask=m)


def fused_mul_sub(input, other_mul, other_sub, alpha=1, out=None):
    ops = (input, other_mul, other_sub)
    if not any(isinstance(v, torch.Tensor) for v in ops):
        return input * other_mul - alpha * other_sub
    tens = [v for v in ops if isinstance(v, torch.Tensor)]
    shape = torch.broadcast_shapes(*[t.shape for t in tens])
    dev = tens[0].device
    res = torch.empty(shape, dtype=torch.float32, device=dev)
    ptrs, scal, flags = [], [], []
    for v in ops:
        if isinstance(v, torch.Tensor):
            ptrs.append(v.to(torch.float32).contiguous())
            scal.append(0.0)
            flags.append(True)
        else:
            ptrs.append(res)
            scal.append(float(v))
            flags.append(False)
    n = res.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _mul_sub_kernel[(triton.cdiv(n, BLOCK_SIZE),)](
            ptrs[0], ptrs[1], ptrs[2], res, n, ptrs[0].numel(), ptrs[1].numel(), ptrs[2].numel(), scal[0], scal[1], scal[2], float(alpha),
            A_T=flags[0], B_T=flags[1], C_T=flags[2], BLOCK_SIZE=BLOCK_SIZE)
    if out is not None:
        out.copy_(res)
        return out
    return res

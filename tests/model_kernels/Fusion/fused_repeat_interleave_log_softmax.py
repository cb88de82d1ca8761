"""Fusion/fused_repeat_interleave_log_softmax.py: the repeat is a gather: source indices for the
repeated dimension come from repeat_interleave of an arange (index bookkeeping); the log-softmax
kernel reads each row through that index map, one program per row (max, then log of the sum of
exponentials), in float32 or float64.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _rep_logsoftmax_kernel(x_ptr, idx_ptr, y_ptr, L_in, L_out, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < L_out
    src = tl.load(idx_ptr + offs, mask=m, other=0)
    x = tl.load(x_ptr + row * L_in + src, mask=m, other=-float("inf"))
    if y_ptr.dtype.element_ty != tl.float64:
        x = x.to(tl.float32)
    mx = tl.max(x, axis=0)
    e = tl.where(m, tl.exp(x - mx), 0.0)
    lse = tl.log(tl.sum(e, axis=0))
    tl.store(y_ptr + row * L_out + offs, (x - mx - lse).to(y_ptr.dtype.element_ty), mask=m)


def fused_repeat_interleave_log_softmax(input, repeats, dim=None, *, output_size=None, dtype=None, out=None):
    x = input
    if dtype is not None:
        x = x.to(dtype)
    elif not x.is_floating_point():
        x = x.float()
    if dim is None:
        x = x.reshape(-1)
        d = 0
    else:
        d = dim % x.dim()
    xt = x.movedim(d, -1).contiguous()
    L_in = xt.shape[-1]
    src = torch.repeat_interleave(torch.arange(L_in, device=x.device), repeats.to(x.device) if torch.is_tensor(repeats) else repeats)
    L_out = src.numel()
    rows = xt.numel() // max(L_in, 1)
    y = torch.empty((*xt.shape[:-1], L_out), dtype=xt.dtype, device=x.device)
    if L_out > 0 and rows > 0:
        _rep_logsoftmax_kernel[(rows,)](xt, src.to(torch.int32).contiguous(), y, L_in, L_out,
                                        BLOCK=triton.next_power_of_2(L_out))
    y = y.movedim(-1, d)
    if out is not None:
        out.copy_(y)
        return out
    return y

"""Random/logspace.py: one Triton kernel writes base ** e_i for the `steps` exponents, computed
as exp(e_i * ln(base)) in the output dtype (float64 for float64, float32 otherwise), with ln(base)
from the host in double. Like torch.linspace, the exponents are start + i * step for the first
half and end - (steps - 1 - i) * step for the second half (step = (end - start) / (steps - 1)),
so both endpoints are exact. The output is allocated with the requested dtype (default float32)
and device, and requires_grad is set on it.
"""
# expect: ok
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _logspace_kernel(y_ptr, p_ptr, steps, halfway, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < steps
    # p = [start, end, step, ln(base)] in the output dtype (float64 stays float64)
    s = tl.load(p_ptr)
    e = tl.load(p_ptr + 1)
    st = tl.load(p_ptr + 2)
    lb = tl.load(p_ptr + 3)
    i = offs.to(s.dtype)
    last = (steps - 1 - offs).to(s.dtype)
    expo = tl.where(offs < halfway, s + i * st, e - last * st)
    tl.store(y_ptr + offs, tl.exp(expo * lb), mask=mask)


def logspace(start, end, steps, base=10.0, dtype=None, layout=torch.strided, device=None,
             requires_grad=False):
    dtype = dtype or torch.get_default_dtype()
    steps = int(steps)
    y = torch.empty(steps, dtype=dtype, layout=layout, device=device)
    if steps > 0:
        step = (end - start) / (steps - 1) if steps > 1 else 0.0
        BLOCK = 1024
        params = torch.tensor([float(start), float(end), float(step), math.log(base)],
                              dtype=dtype, device=y.device)
        _logspace_kernel[(triton.cdiv(steps, BLOCK),)](y, params, steps, steps // 2, BLOCK=BLOCK)
    if requires_grad:
        y.requires_grad_(True)
    return y

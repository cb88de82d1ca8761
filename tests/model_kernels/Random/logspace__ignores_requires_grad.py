"""Random/logspace.py variant: ignores `requires_grad`: the tensor is returned with
requires_grad=False even when requires_grad=True is asked for (the kernel never looks at the
flag). The values, dtype and device are right. The description says the tensor is created with
the given requires_grad, like torch.logspace; a careful judge checks the flag (the public
requires_grad_1_to_3_steps3 case asks for it) and fails it: kbx does (task.json
"compare_requires_grad": requires_grad_mismatch); the public harness compares values only.

Otherwise the kernel is Random/logspace.py: one Triton kernel writes base ** e_i for the `steps` exponents, computed
as exp(e_i * ln(base)) in the output dtype (float64 for float64, float32 otherwise), with ln(base)
from the host in double. Like torch.linspace, the exponents are start + i * step for the first
half and end - (steps - 1 - i) * step for the second half (step = (end - start) / (steps - 1)),
so both endpoints are exact. The output is allocated with the requested dtype (default float32)
and device, and requires_grad is set on it.
"""
# expect: incorrect
# expect-kernelbenchx: ok
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
    return y

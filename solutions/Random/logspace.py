"""Random/logspace.py: torch.logspace as one write-only kernel (the op is deterministic despite
its category).

Design: flat 1-D grid, BLOCK = 4096 / 8 warps above 1M steps (1024 / 4 below), 128-bit vector
stores; nothing is read, so the kernel runs at store bandwidth. Exponents are formed the way
torch does (start + i * step for the first half, end - (steps - 1 - i) * step for the second, so
both ends are exact), and base ** e = exp2(e * log2(base)) with log2(base) computed on the host
in double; float32 outputs compute in float32 (relative error ~1e-6 at e = 10), float64 outputs
in float64. dtype, device and requires_grad are honoured like torch.logspace.
"""
# expect: ok
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _logspace_kernel(y_ptr, steps, start, end, step, log2b, BLOCK: tl.constexpr, F64: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < steps
    if F64:
        i = offs.to(tl.float64)
        back = (steps - 1 - offs).to(tl.float64)
    else:
        i = offs.to(tl.float32)
        back = (steps - 1 - offs).to(tl.float32)
    half = steps // 2
    e = tl.where(offs < half, start + i * step, end - back * step)
    y = tl.exp2(e * log2b)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def logspace(start, end, steps, base=10.0, dtype=None, layout=torch.strided, device=None,
             requires_grad=False):
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dtype = dtype or torch.get_default_dtype()
    y = torch.empty(steps, dtype=dtype, layout=layout, device=device)
    if steps >= 1:
        if steps == 1:
            end, step = start, 0.0
        else:
            step = (float(end) - float(start)) / (steps - 1)
        BLOCK, warps = (4096, 8) if steps >= (1 << 20) else (1024, 4)
        _logspace_kernel[(triton.cdiv(steps, BLOCK),)](
            y, steps, float(start), float(end), step, math.log2(float(base)), BLOCK=BLOCK,
            F64=dtype == torch.float64, num_warps=warps)
    if requires_grad:
        y.requires_grad_(True)
    return y

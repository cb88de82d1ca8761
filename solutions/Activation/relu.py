"""ReLU (KernelBench-X Activation/relu.py): max(x, 0) elementwise, optionally in place.

One flat, vectorised elementwise kernel over the contiguous storage: 1024 elements per program,
4 warps (8 elements, two 128-bit accesses per thread; the best of the block/warp pairs measured
on an H200, on par with torch at 2**27 elements), 64-bit offsets so tensors beyond 2**31 elements
are addressed correctly. NaN propagates as in torch (`x < 0 ? 0 : x`).
"""
# expect: ok

import torch
import triton
import triton.language as tl


@triton.jit
def _relu_kernel(x_ptr, y_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.where(x < 0, tl.zeros_like(x), x)
    tl.store(y_ptr + offs, y, mask=mask)


_BLOCK = 1024
_NUM_WARPS = 4


def _launch(src, dst):
    n = src.numel()
    if n == 0:
        return
    grid = (triton.cdiv(n, _BLOCK),)
    _relu_kernel[grid](src, dst, n, BLOCK=_BLOCK, num_warps=_NUM_WARPS)


def relu(input, inplace=False):
    if inplace:
        if input.is_contiguous():
            _launch(input, input)
        else:
            tmp = input.contiguous()
            _launch(tmp, tmp)
            input.copy_(tmp)
        return input
    x = input.contiguous()
    out = torch.empty_like(x)
    _launch(x, out)
    return out

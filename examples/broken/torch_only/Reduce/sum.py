# Negative example for kbx: outcome `not_triton`.
# The answer is correct, but it comes from torch.sum: the Triton kernel below is defined and never
# launched, so kbx observes zero Triton launches. (kbx counts launches at run time; importing
# triton or defining @triton.jit functions is not enough.)
import torch
import triton
import triton.language as tl


@triton.jit
def sum_kernel(x_ptr, out_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    offsets = tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_cols
    x = tl.load(x_ptr + row * n_cols + offsets, mask=mask, other=0.0)
    tl.store(out_ptr + row, tl.sum(x, axis=0))


def sum(input, dim, keepdim=False, dtype=None):
    # TODO: dispatch to sum_kernel once multi-dim reductions are handled.
    return torch.sum(input, dim, keepdim=keepdim, dtype=dtype)

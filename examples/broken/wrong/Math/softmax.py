# Negative example for kbx: outcome `incorrect` (reason: mismatch).
# A Triton softmax that compiles, launches and returns the right shape and dtype, but carries two
# classic LLM mistakes: it skips the max subtraction (exp(x) directly) and it normalises by the
# row length instead of the sum of the exponentials. Every output is off by a factor
# sum(exp(x)) / N, far outside rtol = atol = 1e-5 on every test case.
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    offsets = tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_cols
    x = tl.load(x_ptr + row * n_cols + offsets, mask=mask, other=0.0).to(tl.float32)
    numerator = tl.exp(x)  # BUG: no max subtraction
    denominator = n_cols  # BUG: should be tl.sum(numerator, axis=0)
    y = numerator / denominator
    tl.store(y_ptr + row * n_cols + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def softmax(input, dim, dtype=None):
    x = input if dtype is None else input.to(dtype)
    x = x.movedim(dim, -1).contiguous()
    n_cols = x.shape[-1]
    x2 = x.reshape(-1, n_cols)
    y2 = torch.empty_like(x2)
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    softmax_kernel[(x2.shape[0],)](x2, y2, n_cols, BLOCK_SIZE=BLOCK_SIZE)
    return y2.reshape(x.shape).movedim(-1, dim)

# Negative example for kbx: outcome `timeout`.
# A chunked MSE whose host-side loop never advances its offset: the first call launches the
# Triton kernel over and over and never returns, so kbx kills the worker when its timeout expires.
import torch
import triton
import triton.language as tl


@triton.jit
def mse_chunk_kernel(x_ptr, t_ptr, acc_ptr, offset, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = offset + pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    t = tl.load(t_ptr + offsets, mask=mask, other=0.0)
    d = x - t
    tl.atomic_add(acc_ptr, tl.sum(d * d, axis=0))


def mse_loss(input, target, reduction='mean'):
    x = input.contiguous().view(-1)
    t = target.contiguous().view(-1)
    n = x.numel()
    acc = torch.zeros(1, dtype=torch.float32, device=x.device)
    BLOCK_SIZE = 1024
    CHUNK = 64 * BLOCK_SIZE
    offset = 0
    while offset < n:
        grid = (triton.cdiv(min(CHUNK, n - offset), BLOCK_SIZE),)
        mse_chunk_kernel[grid](x, t, acc, offset, n, BLOCK_SIZE=BLOCK_SIZE)
        # BUG: `offset += CHUNK` is missing, so the loop never ends.
    if reduction == 'none':
        return (x - t).pow(2).view_as(input)
    total = acc[0].to(input.dtype)
    return total / n if reduction == 'mean' else total

"""Fusion/fused_hardshrink_dropout.py: dropout with Triton's Philox (tl.rand, seed from torch's
global generator) scaled by 1/(1-p), then hardshrink; eval mode / p == 0 is a plain hardshrink.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _dropout_hardshrink_kernel(x_ptr, y_ptr, n, p, lambd, seed, TRAIN: tl.constexpr,
                               BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    if TRAIN:
        r = tl.rand(seed, offs)
        keep = r >= p
        x = tl.where(keep, x / (1.0 - p), 0.0)
    y = tl.where(tl.abs(x) > lambd, x, 0.0)
    tl.store(y_ptr + offs, y, mask=m)


def fused_hardshrink_dropout(input, p=0.5, training=True, inplace=False, lambd=0.5):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    train = training and p > 0
    if train and p >= 1.0:
        y.zero_()
        return y
    seed = int(torch.randint(0, 2**31 - 1, (1,)).item())
    _dropout_hardshrink_kernel[(triton.cdiv(n, 1024),)](x, y, n, float(p), float(lambd), seed,
                                                       TRAIN=train, BLOCK_SIZE=1024)
    if inplace and train:
        input.copy_(torch.where(y != 0, x / (1.0 - p), torch.zeros_like(x)))
    return y.view(input.shape)

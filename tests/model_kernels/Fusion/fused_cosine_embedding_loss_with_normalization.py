"""Fusion/fused_cosine_embedding_loss_with_normalization.py: one program per row pair normalises
both rows (max(norm, 1e-12)), takes the cosine, applies the hinge (and the margin term when
margin > 0); a second kernel reduces the per-pair losses ('mean' / 'sum').
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _pair_kernel(a_ptr, b_ptr, t_ptr, l_ptr, D, margin, USE_MARGIN: tl.constexpr, BLOCK_D: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_D)
    m = offs < D
    a = tl.load(a_ptr + row * D + offs, mask=m, other=0.0)
    b = tl.load(b_ptr + row * D + offs, mask=m, other=0.0)
    a = a / tl.maximum(tl.sqrt(tl.sum(a * a, axis=0)), 1e-12)
    b = b / tl.maximum(tl.sqrt(tl.sum(b * b, axis=0)), 1e-12)
    c = tl.sum(a * b, axis=0)
    t = tl.load(t_ptr + row).to(tl.float32)
    l = tl.maximum(1.0 - c * t, 0.0)
    if USE_MARGIN:
        l = tl.maximum(l, margin - c)
    tl.store(l_ptr + row, l)


@triton.jit
def _reduce_kernel(l_ptr, y_ptr, n, scale, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for s in range(0, n, BLOCK):
        offs = s + tl.arange(0, BLOCK)
        acc += tl.load(l_ptr + offs, mask=offs < n, other=0.0)
    tl.store(y_ptr, tl.sum(acc, axis=0) * scale)


def fused_cosine_embedding_loss_with_normalization(input1, input2, target, margin=0, reduction='mean'):
    a = input1.contiguous().float()
    b = input2.contiguous().float()
    t = target.contiguous()
    N, D = a.shape
    l = torch.empty(N, dtype=torch.float32, device=a.device)
    _pair_kernel[(N,)](a, b, t, l, D, float(margin), USE_MARGIN=margin > 0, BLOCK_D=triton.next_power_of_2(D))
    if reduction == 'none':
        return l
    y = torch.empty((), dtype=torch.float32, device=a.device)
    _reduce_kernel[(1,)](l, y, N, 1.0 / N if reduction == 'mean' else 1.0, BLOCK=128)
    return y

"""Fusion/fused_embedding_add_tanh.py: with max_norm, a first Triton kernel runs once per distinct
referenced row of `weight` (torch.unique on the indices, host glue): it computes the row's
norm_type-norm in float32 (sum |w| for 1, sqrt(sum w^2) for 2, max |w| for inf, (sum |w|^p)^(1/p)
otherwise) and, if it exceeds max_norm, rescales the row IN PLACE by max_norm / (norm + 1e-7), as
torch.embedding_renorm_ does. A second Triton kernel then reads weight[idx] row by row, adds `other`
(broadcast to (*, D) on the host) and writes tanh(e + other) = 1 - 2 / (exp(2z) + 1) in float32.
padding_idx, scale_grad_by_freq and sparse only affect gradients and are ignored. With `out` the
result is copied into it and returned.
"""
# expect: ok
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _renorm_kernel(w_ptr, rows_ptr, D, swv, swd, max_norm, norm_type,
                   MODE: tl.constexpr, BLOCK_D: tl.constexpr):
    row = tl.load(rows_ptr + tl.program_id(0))
    d = tl.arange(0, BLOCK_D)
    m = d < D
    w = tl.load(w_ptr + row * swv + d * swd, mask=m, other=0.0)
    a = tl.abs(w)
    if MODE == 1:
        norm = tl.sum(a, axis=0)
    elif MODE == 2:
        norm = tl.sqrt(tl.sum(a * a, axis=0))
    elif MODE == 3:
        norm = tl.max(a, axis=0)
    else:
        pw = tl.where(a > 0, tl.exp(tl.log(a) * norm_type), 0.0)
        norm = tl.exp(tl.log(tl.sum(pw, axis=0)) / norm_type)
    if norm > max_norm:
        sc = max_norm / (norm + 1e-7)
        tl.store(w_ptr + row * swv + d * swd, w * sc, mask=m)


@triton.jit
def _embed_add_tanh_kernel(idx_ptr, w_ptr, o_ptr, res_ptr, D, swv, swd,
                           BLOCK_D: tl.constexpr):
    i = tl.program_id(0)
    row = tl.load(idx_ptr + i)
    d = tl.arange(0, BLOCK_D)
    m = d < D
    e = tl.load(w_ptr + row * swv + d * swd, mask=m, other=0.0)
    o = tl.load(o_ptr + i * D + d, mask=m, other=0.0)
    z = e + o
    t = 1.0 - 2.0 / (tl.exp(2.0 * z) + 1.0)
    tl.store(res_ptr + i * D + d, t, mask=m)


def fused_embedding_add_tanh(input_indices, weight, other, *, padding_idx=None, max_norm=None, norm_type=2.0,
                             scale_grad_by_freq=False, sparse=False, out=None):
    V, D = weight.shape
    idx = input_indices.reshape(-1).contiguous()
    BLOCK_D = max(16, triton.next_power_of_2(D))
    if max_norm is not None and idx.numel() > 0:
        rows = torch.unique(idx).contiguous()
        nt = float(norm_type)
        mode = 1 if nt == 1.0 else 2 if nt == 2.0 else 3 if math.isinf(nt) and nt > 0 else 0
        _renorm_kernel[(rows.numel(),)](weight, rows, D, weight.stride(0), weight.stride(1),
                                        float(max_norm), nt if mode == 0 else 1.0,
                                        MODE=mode, BLOCK_D=BLOCK_D)
    shape = tuple(input_indices.shape) + (D,)
    oth = other.to(torch.float32).expand(shape).contiguous()
    res = torch.empty(shape, dtype=torch.float32, device=weight.device)
    if idx.numel() > 0 and D > 0:
        _embed_add_tanh_kernel[(idx.numel(),)](idx, weight, oth, res, D, weight.stride(0),
                                               weight.stride(1), BLOCK_D=BLOCK_D)
    if out is not None:
        out.copy_(res)
        return out
    return res

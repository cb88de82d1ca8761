"""Fusion/fused_fractional_max_pool2d_with_relu.py variant whose indices are offsets into the
whole tensor: the pooled values are right, but return_indices gives plane * H * W + h * W + w
(the address the kernel loaded from) instead of the in-plane position. The description says
"indices int64 giving the flat position h * W + w of each maximum within its plane" (as
torch.nn.functional.fractional_max_pool2d / max_unpool2d use them); the two agree only for the
first plane, so a single-plane case (the upstream indices call) cannot show it.
"""
# expect: incorrect
# expect-kernelbenchx: ok  (only kbx's own cases, kbx_only, or its contract catch it)
import torch
import triton
import triton.language as tl


@triton.jit
def _frac_pool_relu_kernel(x_ptr, u_ptr, out_ptr, idx_ptr, H, W, OH, OW,
                           KH: tl.constexpr, KW: tl.constexpr, WRITE_IDX: tl.constexpr, BLOCK: tl.constexpr):
    plane = tl.program_id(0)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    om = offs < OH * OW
    oi = offs // OW
    oj = offs % OW
    u_w = tl.load(u_ptr + plane * 2)
    u_h = tl.load(u_ptr + plane * 2 + 1)
    alpha_h = (H - KH).to(tl.float32) / tl.maximum(OH - 1, 1).to(tl.float32)
    alpha_w = (W - KW).to(tl.float32) / tl.maximum(OW - 1, 1).to(tl.float32)
    a = ((oi.to(tl.float32) + u_h) * alpha_h).to(tl.int32) - (u_h * alpha_h).to(tl.int32)
    b = ((oj.to(tl.float32) + u_w) * alpha_w).to(tl.int32) - (u_w * alpha_w).to(tl.int32)
    a = tl.where(oi == OH - 1, H - KH, a)
    b = tl.where(oj == OW - 1, W - KW, b)
    base = x_ptr + plane * H * W
    best = tl.full([BLOCK], float('-inf'), dtype=tl.float32)
    best_idx = tl.zeros([BLOCK], dtype=tl.int32)
    for kh in tl.static_range(KH):
        for kw in tl.static_range(KW):
            pos = (a + kh) * W + (b + kw)
            v = tl.load(base + pos, mask=om, other=0.0)
            v = tl.maximum(v, 0.0)                       # fused ReLU
            take = v > best
            best = tl.where(take, v, best)
            best_idx = tl.where(take, pos, best_idx)
    tl.store(out_ptr + plane * OH * OW + offs, best, mask=om)
    if WRITE_IDX:
        # index of the maximum in the input tensor
        tl.store(idx_ptr + plane * OH * OW + offs, (plane * H * W + best_idx).to(tl.int64), mask=om)


def _pair(v):
    return (v, v) if isinstance(v, (int, float)) else (v[0], v[1])


def fused_fractional_max_pool2d_with_relu(input, kernel_size, output_size=None, output_ratio=None,
                                          return_indices=False):
    squeeze = input.dim() == 3
    x = input.unsqueeze(0) if squeeze else input
    x = x.contiguous().float()
    N, C, H, W = x.shape
    kh, kw = _pair(kernel_size)
    if output_size is not None:
        oh, ow = _pair(output_size)
    elif output_ratio is not None:
        rh, rw = _pair(output_ratio)
        oh, ow = int(H * rh), int(W * rw)
    else:
        raise ValueError("fractional_max_pool2d requires specifying either an output_size or an output_ratio")
    if oh + kh - 1 > H or ow + kw - 1 > W:
        raise ValueError("fractional_max_pool2d: output size too large for the kernel and input")
    samples = torch.rand(N * C, 2, dtype=torch.float32, device=x.device)
    out = torch.empty((N, C, oh, ow), dtype=torch.float32, device=x.device)
    idx = torch.empty((N, C, oh, ow), dtype=torch.int64, device=x.device)
    if out.numel() > 0:
        BLOCK = min(256, triton.next_power_of_2(oh * ow))
        grid = (N * C, triton.cdiv(oh * ow, BLOCK))
        _frac_pool_relu_kernel[grid](x, samples, out, idx, H, W, oh, ow, KH=kh, KW=kw,
                                     WRITE_IDX=bool(return_indices), BLOCK=BLOCK)
    if squeeze:
        out, idx = out.squeeze(0), idx.squeeze(0)
    if return_indices:
        return out, idx
    return out

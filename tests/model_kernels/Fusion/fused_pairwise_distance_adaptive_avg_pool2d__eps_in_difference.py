"""Fusion/fused_pairwise_distance_adaptive_avg_pool2d.py variant with torch's pairwise_distance
eps placement: the same one-program-per-sample adaptive pooling, but eps is added to each pooled
difference (||a - b + eps||_p) instead of to the norm. The description is explicit: "(sum over
c, i, j of |a - b|^p)^(1/p) + eps ... eps added after the norm" (and the notes: "not to the
difference, as torch.nn.functional.pairwise_distance does"). With the default eps = 1e-6 the two
differ by ~1e-6, inside the tolerance, so only a larger eps shows it.
"""
# expect: incorrect
# expect-kernelbenchx: ok  (only kbx's own cases, kbx_only, or its contract catch it)
import torch
import triton
import triton.language as tl


@triton.jit
def _pool_dist_kernel(x1_ptr, x2_ptr, out_ptr, C, H, W, OH, OW, p, inv_p, eps,
                      MAX_KH, MAX_KW, P_MODE: tl.constexpr, BLOCK: tl.constexpr):
    n = tl.program_id(0)
    cells = C * OH * OW
    base = n * C * H * W
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, cells, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        cm = offs < cells
        c = offs // (OH * OW)
        r = offs % (OH * OW)
        i = r // OW
        j = r % OW
        h0 = (i * H) // OH
        h1 = ((i + 1) * H + OH - 1) // OH
        w0 = (j * W) // OW
        w1 = ((j + 1) * W + OW - 1) // OW
        s1 = tl.zeros([BLOCK], dtype=tl.float32)
        s2 = tl.zeros([BLOCK], dtype=tl.float32)
        for dh in range(0, MAX_KH):
            hh = h0 + dh
            for dw in range(0, MAX_KW):
                ww = w0 + dw
                m = cm & (hh < h1) & (ww < w1)
                off = base + (c * H + hh) * W + ww
                s1 += tl.load(x1_ptr + off, mask=m, other=0.0)
                s2 += tl.load(x2_ptr + off, mask=m, other=0.0)
        cnt = ((h1 - h0) * (w1 - w0)).to(tl.float32)
        d = tl.abs(s1 / cnt - s2 / cnt + eps)   # as F.pairwise_distance does
        d = tl.where(cm, d, 0.0)
        if P_MODE == 1:
            acc += d
        elif P_MODE == 2:
            acc += d * d
        else:
            acc += tl.where(d > 0, tl.exp(p * tl.log(d)), 0.0)
    total = tl.sum(acc, axis=0)
    if P_MODE == 1:
        norm = total
    elif P_MODE == 2:
        norm = tl.sqrt(total)
    else:
        norm = tl.where(total > 0, tl.exp(tl.log(total) * inv_p), 0.0)
    tl.store(out_ptr + n, norm)


def _max_window(size, out):
    return max(((i + 1) * size + out - 1) // out - (i * size) // out for i in range(out))


def fused_pairwise_distance_adaptive_avg_pool2d(x1, x2, output_size, p=2.0, eps=1e-06, keepdim=False):
    a = x1.contiguous().float()
    b = x2.contiguous().float()
    B, C, H, W = a.shape
    if isinstance(output_size, int):
        OH = OW = output_size
    else:
        OH, OW = output_size
        OH = H if OH is None else OH
        OW = W if OW is None else OW
    p = float(p)
    mode = 1 if p == 1.0 else (2 if p == 2.0 else 0)
    out = torch.empty(B, dtype=torch.float32, device=a.device)
    if B > 0:
        BLOCK = min(512, triton.next_power_of_2(max(1, C * OH * OW)))
        _pool_dist_kernel[(B,)](a, b, out, C, H, W, OH, OW, p, 1.0 / p, float(eps),
                                _max_window(H, OH), _max_window(W, OW), P_MODE=mode, BLOCK=BLOCK)
    if keepdim:
        out = out.view(B, 1, 1, 1)
    return out

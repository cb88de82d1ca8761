"""Fusion/fused_transformer_block.py variant whose dropout drops with probability p / 2 but still
scales the survivors by 1 / (1 - p) (a halved threshold, `tl.rand(...) >= p * 0.5`): every row
still fits some keep/drop pattern at the right scale, so only the drop count tells it from a
correct kernel. Otherwise as the correct kernel: one fused Triton kernel per block of 16 token
rows (tl.dot for both products, softmax and dropout in registers, layer norm without affine
parameters). It passed the small dropout cases about a third of the time; the 2,048- and
1,024-element dropout cases' drop counts fail it.
"""
# expect: incorrect
# expect-kernelbenchx: ok  (only kbx's own cases, kbx_only, or its contract catch it)
import torch
import triton
import triton.language as tl


@triton.jit
def _ffn_block_kernel(x_ptr, w1_ptr, w2_ptr, r_ptr, y_ptr, NTOK, NSEQ, DIN, DK, DOUT,
                      sxb, sxn, sxd, sw1a, sw1b, sw2a, sw2b, srb, srn, srd, syb, syn, syd,
                      p, scale, eps, seed, DROPOUT: tl.constexpr,
                      BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr, BLOCK_DK: tl.constexpr,
                      BLOCK_D: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < NTOK
    bi = rows // NSEQ
    ni = rows % NSEQ
    hk = tl.arange(0, BLOCK_DK)
    hmask = hk < DK
    # z = x @ W1
    z = tl.zeros([BLOCK_M, BLOCK_DK], dtype=tl.float32)
    for k0 in range(0, DIN, BLOCK_K):
        kk = k0 + tl.arange(0, BLOCK_K)
        kmask = kk < DIN
        x = tl.load(x_ptr + bi[:, None] * sxb + ni[:, None] * sxn + kk[None, :] * sxd,
                    mask=rmask[:, None] & kmask[None, :], other=0.0)
        w1 = tl.load(w1_ptr + kk[:, None] * sw1a + hk[None, :] * sw1b, mask=kmask[:, None] & hmask[None, :], other=0.0)
        z += tl.dot(x, w1, input_precision="ieee")
    # softmax over D_k
    z = tl.where(hmask[None, :], z, -float("inf"))
    zmax = tl.max(z, axis=1)
    e = tl.where(hmask[None, :], tl.exp(z - zmax[:, None]), 0.0)
    s = e / tl.sum(e, axis=1)[:, None]
    # dropout (training mode)
    if DROPOUT:
        keep = tl.rand(seed, rows[:, None] * DK + hk[None, :]) >= p * 0.5
        s = tl.where(keep, s * scale, 0.0)
    # y = d @ W2 + residual
    dd = tl.arange(0, BLOCK_D)
    dmask = dd < DOUT
    w2 = tl.load(w2_ptr + hk[:, None] * sw2a + dd[None, :] * sw2b, mask=hmask[:, None] & dmask[None, :], other=0.0)
    y = tl.dot(s, w2, input_precision="ieee")
    omask = rmask[:, None] & dmask[None, :]
    res = tl.load(r_ptr + bi[:, None] * srb + ni[:, None] * srn + dd[None, :] * srd, mask=omask, other=0.0)
    y = tl.where(dmask[None, :], y + res, 0.0)
    # layer norm over D_out, biased variance, no affine
    mean = tl.sum(y, axis=1) / DOUT
    diff = tl.where(dmask[None, :], y - mean[:, None], 0.0)
    var = tl.sum(diff * diff, axis=1) / DOUT
    out = diff / tl.sqrt(var + eps)[:, None]
    tl.store(y_ptr + bi[:, None] * syb + ni[:, None] * syn + dd[None, :] * syd, out, mask=omask)


def fused_transformer_block(input, weight1, weight2, residual, dropout_p=0.1, eps=1e-05, *, out=None):
    if not 0.0 <= dropout_p <= 1.0:
        raise ValueError("dropout probability has to be between 0 and 1")
    B, N, DIN = input.shape
    DIN2, DK = weight1.shape
    DK2, DOUT = weight2.shape
    if DIN2 != DIN or DK2 != DK or tuple(residual.shape) != (B, N, DOUT):
        raise RuntimeError("fused_transformer_block: incompatible shapes")
    y = out if out is not None else torch.empty((B, N, DOUT), dtype=torch.float32, device=input.device)
    scale = 1.0 / (1.0 - dropout_p) if dropout_p < 1 else 0.0
    seed = int(torch.randint(0, 2**31 - 1, (1,)).item())
    ntok = B * N
    if ntok * DOUT > 0:
        BLOCK_M, BLOCK_K = 16, 16
        BLOCK_DK = max(16, triton.next_power_of_2(DK))
        BLOCK_D = max(16, triton.next_power_of_2(DOUT))
        _ffn_block_kernel[(triton.cdiv(ntok, BLOCK_M),)](
            input, weight1, weight2, residual, y, ntok, N, DIN, DK, DOUT,
            input.stride(0), input.stride(1), input.stride(2), weight1.stride(0), weight1.stride(1),
            weight2.stride(0), weight2.stride(1), residual.stride(0), residual.stride(1), residual.stride(2),
            y.stride(0), y.stride(1), y.stride(2),
            float(dropout_p), scale, float(eps), seed, DROPOUT=dropout_p > 0,
            BLOCK_M=BLOCK_M, BLOCK_K=BLOCK_K, BLOCK_DK=BLOCK_DK, BLOCK_D=BLOCK_D)
    return y

"""Fusion/fused_mul_add_logsoftmax_dropout_bmm.py, wrong variant: the same two kernels (row-wise
multiply-add / log-softmax / dropout, then a batched tl.dot GEMM), but the wrapper always lays the
rows out along the last axis: `dim` is accepted and ignored, so dim=1 still normalises over N
instead of over M. The description says l = log_softmax(s, dim) along `dim` (dim=1 normalises over
M); for dim=1 every log-softmax value, and so the product, is wrong. dim=-1 calls are unaffected.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _mul_add_logsoftmax_dropout_kernel(x1_ptr, x2_ptr, o_ptr, l_ptr, R, R1, L,
                                       s1a, s1b, s1l, s2a, s2b, s2l, soa, sob, sol, sla, slb, sll,
                                       p, scale, seed, TRAINING: tl.constexpr,
                                       BLOCK_R: tl.constexpr, BLOCK_L: tl.constexpr):
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    c = tl.arange(0, BLOCK_L)
    ra = r // R1
    rb = r % R1
    mask = (r[:, None] < R) & (c[None, :] < L)
    x1 = tl.load(x1_ptr + ra[:, None] * s1a + rb[:, None] * s1b + c[None, :] * s1l, mask=mask, other=0.0)
    x2 = tl.load(x2_ptr + ra[:, None] * s2a + rb[:, None] * s2b + c[None, :] * s2l, mask=mask, other=0.0)
    o = tl.load(o_ptr + ra[:, None] * soa + rb[:, None] * sob + c[None, :] * sol, mask=mask, other=0.0)
    s = tl.where(mask, x1 * x2 + o, -float("inf"))
    mx = tl.max(s, axis=1)
    mx = tl.where(r < R, mx, 0.0)
    e = tl.where(mask, tl.exp(s - mx[:, None]), 0.0)
    lse = tl.log(tl.sum(e, axis=1))
    l = s - mx[:, None] - lse[:, None]
    if TRAINING:
        keep = tl.rand(seed, r[:, None] * L + c[None, :]) >= p
        l = tl.where(keep, l * scale, 0.0)
    tl.store(l_ptr + ra[:, None] * sla + rb[:, None] * slb + c[None, :] * sll, l, mask=mask)


@triton.jit
def _bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, P, sab, sam, san, sbb, sbn, sbp, scb, scm, scp,
                BLOCK_M: tl.constexpr, BLOCK_P: tl.constexpr, BLOCK_K: tl.constexpr):
    bid = tl.program_id(0)
    rm = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    rp = tl.program_id(2) * BLOCK_P + tl.arange(0, BLOCK_P)
    acc = tl.zeros([BLOCK_M, BLOCK_P], dtype=tl.float32)
    for k0 in range(0, N, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + bid * sab + rm[:, None] * sam + rk[None, :] * san,
                    mask=(rm[:, None] < M) & (rk[None, :] < N), other=0.0)
        b = tl.load(b_ptr + bid * sbb + rk[:, None] * sbn + rp[None, :] * sbp,
                    mask=(rk[:, None] < N) & (rp[None, :] < P), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + bid * scb + rm[:, None] * scm + rp[None, :] * scp, acc,
             mask=(rm[:, None] < M) & (rp[None, :] < P))


def fused_mul_add_logsoftmax_dropout_bmm(input1, input2, other, mat2, p=0.5, training=True, inplace=False, dim=-1,
                                         *, out=None):
    if not 0.0 <= p <= 1.0:
        raise ValueError("dropout probability has to be between 0 and 1")
    dev = input1.device
    other = torch.as_tensor(other, dtype=torch.float32, device=dev)
    shape = torch.broadcast_shapes(input1.shape, input2.shape, other.shape)
    if len(shape) != 3:
        raise RuntimeError("expected 3-D (B, M, N) operands")
    B, M, N = shape
    Bm, N2, P = mat2.shape
    if Bm != B or N2 != N:
        raise RuntimeError("mat2 must be (B, N, P)")
    d = 2               # log-softmax over the rows of each (M, N) slice
    x1 = input1.expand(shape).movedim(d, -1)
    x2 = input2.expand(shape).movedim(d, -1)
    o = other.expand(shape).movedim(d, -1)
    lbuf = torch.empty(shape, dtype=torch.float32, device=dev)
    lv = lbuf.movedim(d, -1)
    R0, R1, L = lv.shape
    R = R0 * R1
    train = bool(training) and p > 0
    scale = 1.0 / (1.0 - p) if p < 1 else 0.0
    seed = int(torch.randint(0, 2**31 - 1, (1,)).item())
    res = out if out is not None else torch.empty((B, M, P), dtype=torch.float32, device=dev)
    if R * L > 0:
        BLOCK_L = max(triton.next_power_of_2(L), 2)
        BLOCK_R = max(1, min(64, 4096 // BLOCK_L))
        _mul_add_logsoftmax_dropout_kernel[(triton.cdiv(R, BLOCK_R),)](
            x1, x2, o, lv, R, R1, L,
            x1.stride(0), x1.stride(1), x1.stride(2), x2.stride(0), x2.stride(1), x2.stride(2),
            o.stride(0), o.stride(1), o.stride(2), lv.stride(0), lv.stride(1), lv.stride(2),
            float(p), scale, seed, TRAINING=train, BLOCK_R=BLOCK_R, BLOCK_L=BLOCK_L)
    if B * M * P > 0:
        BM, BP, BK = 16, 32, 16
        _bmm_kernel[(B, triton.cdiv(M, BM), triton.cdiv(P, BP))](
            lbuf, mat2, res, M, N, P, lbuf.stride(0), lbuf.stride(1), lbuf.stride(2),
            mat2.stride(0), mat2.stride(1), mat2.stride(2), res.stride(0), res.stride(1), res.stride(2),
            BLOCK_M=BM, BLOCK_P=BP, BLOCK_K=BK)
    return res

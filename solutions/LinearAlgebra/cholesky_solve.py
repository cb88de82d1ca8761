"""LinearAlgebra/cholesky_solve.py: A X = B from A's Cholesky factor: a forward and a back
substitution, two launches, each one chain of programs that pass solved blocks to each other
through global memory (eager: cuSOLVER's potrs, two trsm passes).

Both triangular systems are made lower-triangular forward substitutions through strides: L Z = B
reads L as it is; L^T X = Z reads L with swapped strides, index-reversed (the views start at the
last row and the kernel walks negative strides); upper=True (A = U^T U) is the mirror image. The
factor is read through its strides (only its named triangle), so non-contiguous and broadcast
factors and right-hand sides need no copy, and Z lives in the output buffer (the back solve's
program i reads the Z rows of its own block before it writes X there).

One launch per solve, grid (row blocks, column chunks, batch). Program i owns BS rows and a chunk
of up to 16 right-hand-side columns: it inverts its BS x BS diagonal block without touching the
chain (16 x 16 sub-blocks by the nilpotent product (I - N)(I + N^2)(I + N^4)(I + N^8), then
doubling [[A, 0], [C, B]]^-1 = [[A^-1, 0], [-B^-1 C A^-1, B^-1]]), then for j = 0 .. i-1 waits for
block j of the solution, subtracts T_ij X_j (the next T tile is loaded before the wait), and
publishes X_i = inv(T_ii) acc. The factor is read once per solve by all programs at once, so the
large systems of the perf sweep (n up to 32768, a 4 GiB factor) stream it at HBM bandwidth in two
launches instead of one launch per block row.

Publishing (float32): each value is one 64-bit word, (epoch << 32) | float bits, in a persistent
zero-initialised buffer; a consumer polls until every word of the block carries this launch's
epoch (a host counter), so the data is its own flag. float64 stores the block, then sets a
per-block flag to the epoch with a release atomic; consumers spin on an acquire atomic. A program
waits only on programs with lower ids in its own chain, which the GPU dispatches first and the CPU
interpreter has already run, so neither can deadlock. Math in the inputs' dtype (float32 products
are tl.dot in IEEE fp32: the contract is float32-exact and TF32 fails it; float64 products are
broadcast-multiply-sums). Tuning knobs are the keyword arguments of solve() (tune/linalg_tune.py
--task chol times them).
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _mm(a, b, DOT: tl.constexpr):
    # Matrix product (tl.dot in IEEE fp32, or a broadcast-multiply-sum for float64).
    if DOT:
        out = tl.dot(a, b, input_precision="ieee")
    else:
        out = tl.sum(a[:, :, None] * b[None, :, :], axis=1)
    return out


@triton.jit
def _bmm(a, b, DOT: tl.constexpr):
    # Batched [B, M, K] x [B, K, N] product.
    if DOT:
        out = tl.dot(a, b, input_precision="ieee")
    else:
        out = tl.sum(a[:, :, :, None] * b[:, None, :, :], axis=2)
    return out


@triton.jit
def _join_cols(a, b, H: tl.constexpr, S: tl.constexpr):
    # [H, S, S] x 2 -> [H, S, 2S]: a on the left, b on the right.
    return tl.reshape(tl.permute(tl.join(a, b), (0, 1, 3, 2)), (H, S, 2 * S))


@triton.jit
def _double(inv, t_ptr, str_, stc, n, r0, H: tl.constexpr, S: tl.constexpr, DOT: tl.constexpr):
    # [2H, S, S] inverses of consecutive diagonal blocks -> [H, 2S, 2S] inverses of their pairs.
    dt = inv.dtype
    pi = tl.arange(0, H)[:, None, None]
    rr = tl.arange(0, S)[None, :, None]
    cc = tl.arange(0, S)[None, None, :]
    crow = r0 + pi * (2 * S) + S + rr
    ccol = r0 + pi * (2 * S) + cc
    c = tl.load(t_ptr + crow * str_ + ccol * stc, mask=crow < n, other=0.0).to(dt)
    ia, ib = tl.split(tl.permute(tl.reshape(inv, (H, 2, S, S)), (0, 2, 3, 1)))
    x = -_bmm(ib, _bmm(c, ia, DOT), DOT)
    top = _join_cols(ia, tl.zeros((H, S, S), dt), H, S)
    bot = _join_cols(x, ib, H, S)
    return tl.reshape(tl.permute(tl.join(top, bot), (0, 3, 1, 2)), (H, 2 * S, 2 * S))


@triton.jit
def _diag_inverse(t_ptr, str_, stc, n, r0, BS: tl.constexpr, DOT: tl.constexpr):
    # inv(T[r0:r0+BS, r0:r0+BS]) of the lower-triangular T as a [BS, BS] tensor (rows >= n padded
    # with the identity).
    dt = t_ptr.dtype.element_ty
    SB: tl.constexpr = 16
    G: tl.constexpr = BS // SB
    gi = tl.arange(0, G)[:, None, None]
    ri = tl.arange(0, SB)[None, :, None]
    ci = tl.arange(0, SB)[None, None, :]
    rows = r0 + gi * SB + ri
    cols = r0 + gi * SB + ci
    d = tl.load(t_ptr + rows * str_ + cols * stc, mask=(rows < n) & (ci <= ri), other=0.0).to(dt)
    eye = ri == ci
    diag = tl.sum(tl.where(eye, d, 0.0), axis=2)
    diag = tl.where(diag == 0.0, 1.0, diag)  # padding rows (rows >= n)
    M = tl.where(ci < ri, -d / diag[:, :, None], 0.0)
    S = tl.where(eye, 1.0, 0.0).to(dt) + M
    for _ in tl.static_range(3):  # (I - N)(I + N^2)(I + N^4)(I + N^8): N^16 = 0
        M = _bmm(M, M, DOT)
        S = S + _bmm(S, M, DOT)
    dcol = tl.sum(tl.where(eye, diag[:, :, None], 0.0), axis=1)
    inv = S / dcol[:, None, :]
    # Doubling: blocks 2p and 2p+1 of size s merge into [[A^-1, 0], [-B^-1 C A^-1, B^-1]].
    if BS >= 32:
        inv = _double(inv, t_ptr, str_, stc, n, r0, BS // 32, 16, DOT)
    if BS >= 64:
        inv = _double(inv, t_ptr, str_, stc, n, r0, BS // 64, 32, DOT)
    if BS >= 128:
        inv = _double(inv, t_ptr, str_, stc, n, r0, BS // 128, 64, DOT)
    return tl.reshape(inv, (BS, BS))


@triton.jit(do_not_specialize=["epoch"])
def _chain_kernel(t_ptr, str_, stc, tbs, b_ptr, sbr, sbc, bbs, x_ptr, sxr, sxc, xbs, comm_ptr,
                  flag_ptr, n, k, epoch, nblk, ncb,
                  BS: tl.constexpr, KB: tl.constexpr, PACK: tl.constexpr, DOT: tl.constexpr):
    # Program (i, cb, bat): rows [i*BS, (i+1)*BS) of the lower-triangular T of batch matrix bat
    # (T[r, c] at t_ptr + bat * tbs + r * str_ + c * stc), right-hand-side columns
    # [cb*KB, (cb+1)*KB). Solves T X = B into x; B may alias x (same rows, read first).
    i = tl.program_id(0)
    cb = tl.program_id(1)
    bat = tl.program_id(2).to(tl.int64)
    dt = t_ptr.dtype.element_ty
    t_ptr += bat * tbs
    b_ptr += bat * bbs
    x_ptr += bat * xbs
    r0 = i * BS
    ridx = tl.arange(0, BS)
    rows = r0 + ridx
    rmask = rows < n
    kidx = tl.arange(0, KB)
    kc = cb * KB + kidx
    kmask = kc < k
    acc = tl.load(b_ptr + rows[:, None] * sbr + kc[None, :] * sbc,
                  mask=rmask[:, None] & kmask[None, :], other=0.0).to(dt)
    inv = _diag_inverse(t_ptr, str_, stc, n, r0, BS, DOT)
    # Published blocks of chain (bat, cb): block j at comm_ptr + ((chain * nblk + j) * BS) * KB.
    chain = bat * ncb + cb
    cidx = ridx[:, None] * KB + kidx[None, :]
    cbase = comm_ptr + chain * nblk * BS * KB
    fbase = flag_ptr + chain * nblk
    tmask = rmask[:, None] & (ridx[None, :] >= 0)
    tptr = t_ptr + rows[:, None] * str_ + ridx[None, :] * stc
    tile = tl.load(tptr, mask=tmask & (i > 0), other=0.0).to(dt)
    for j in range(0, i):
        nxt = tl.load(tptr + (j + 1) * BS * stc, mask=tmask & (j + 1 < i), other=0.0).to(dt)
        src = cbase + j * BS * KB + cidx
        if PACK:
            w = tl.load(src, volatile=True)
            while tl.min(((w >> 32) == epoch).to(tl.int32)) == 0:
                w = tl.load(src, volatile=True)
            xj = (w & 0xFFFFFFFF).to(tl.int32).to(tl.float32, bitcast=True)
        else:
            f = tl.atomic_add(fbase + j, 0, sem="acquire", scope="gpu")
            while f != epoch:
                f = tl.atomic_add(fbase + j, 0, sem="acquire", scope="gpu")
            xj = tl.load(src, volatile=True)
        acc -= _mm(tile, xj, DOT)
        tile = nxt
    x = _mm(inv, acc, DOT)
    if i + 1 < nblk:
        dst = cbase + i * BS * KB + cidx
        if PACK:
            bits = x.to(tl.int32, bitcast=True).to(tl.int64) & 0xFFFFFFFF
            tl.store(dst, bits | (epoch.to(tl.int64) << 32))
        else:
            tl.store(dst, x)
            tl.debug_barrier()
            tl.atomic_xchg(fbase + i, epoch, sem="release", scope="gpu")
    tl.store(x_ptr + rows[:, None] * sxr + kc[None, :] * sxc, x,
             mask=rmask[:, None] & kmask[None, :])


_comm = {}  # (device, stream, dtype, words, flags) -> [data buffer, flags, last epoch]


def _channel(device, dtype, words, flags):
    """The persistent hand-off buffers for one launch and its epoch (the buffers are per stream,
    so launches on two streams never share them)."""
    key = (str(device), torch.cuda.current_stream(device).cuda_stream if device.type == "cuda" else 0,
           dtype, words, flags)
    ch = _comm.get(key)
    if ch is None:
        ch = [torch.zeros(max(words, 1), dtype=dtype, device=device),
              torch.zeros(max(flags, 1), dtype=torch.int32, device=device), 0]
        _comm[key] = ch
    ch[2] += 1
    if ch[2] >= 2**31 - 1:  # epochs wrap: start over on zeroed buffers
        ch[0].zero_()
        ch[1].zero_()
        ch[2] = 1
    return ch


def _lower_solve(t, str_, stc, tbs, b, sbr, sbc, bbs, x, sxr, sxc, xbs, n, k, nb, bs, warps):
    dot = x.dtype == torch.float32
    BS = min(bs, max(16, triton.next_power_of_2(n))) if dot else 16
    KB = 16 if dot else max(2, min(16, triton.next_power_of_2(k)))
    nblk = triton.cdiv(n, BS)
    ncb = triton.cdiv(k, KB)
    words = nb * ncb * nblk * BS * KB
    data, flags, epoch = _channel(x.device, torch.int64 if dot else x.dtype, words,
                                  0 if dot else nb * ncb * nblk)
    _chain_kernel[(nblk, ncb, nb)](t, str_, stc, tbs, b, sbr, sbc, bbs, x, sxr, sxc, xbs, data,
                                   flags, n, k, epoch, nblk, ncb, BS=BS, KB=KB, PACK=dot, DOT=dot,
                                   num_warps=warps)


def solve(B, L, upper=False, out=None, *, bs_small=32, bs_large=64, large_n=2048, warps_small=2,
          warps_large=4):
    """The solver with its tuning knobs: rows per program (16, 32, 64 or 128) and warps per
    program, for float32 systems below large_n and from it on (float64: 16 rows)."""
    n = L.shape[-1]
    if L.dim() < 2 or L.shape[-2] != n or B.dim() < 2 or B.shape[-2] != n:
        raise RuntimeError(f"cholesky_solve: L {list(L.shape)} must be square and match B {list(B.shape)}")
    k = B.shape[-1]
    batch = torch.broadcast_shapes(B.shape[:-2], L.shape[:-2])
    dtype = torch.result_type(B, L)
    x = torch.empty(tuple(batch) + (n, k), dtype=dtype, device=B.device)
    nb = x.numel() // max(n * k, 1)
    if n and k and nb:
        Lb = L.expand(tuple(batch) + (n, n))
        Bb = B.expand(tuple(batch) + (n, k))
        if len(batch) != 1:
            Lb = Lb.reshape(-1, n, n)
            Bb = Bb.reshape(-1, n, k)
        if Lb.dtype != dtype:
            Lb = Lb.to(dtype)
        bs, warps = (bs_large, warps_large) if n >= large_n else (bs_small, warps_small)
        xv = x.view(nb, n, k)
        slb, slr, slc = Lb.stride(0), Lb.stride(1), Lb.stride(2)
        first = (slr, slc) if not upper else (slc, slr)      # L, or U^T: lower
        second = (-slc, -slr) if not upper else (-slr, -slc)  # L^T or U, index-reversed
        # Z = T1^-1 B into x, then X = T2^-1 Z in place (row n - 1 first, negative strides).
        _lower_solve(Lb, *first, slb, Bb, Bb.stride(1), Bb.stride(2), Bb.stride(0),
                     xv, k, 1, n * k, n, k, nb, bs, warps)
        _lower_solve(Lb[:, n - 1:, n - 1:], *second, slb, xv[:, n - 1:], -k, 1, n * k,
                     xv[:, n - 1:], -k, 1, n * k, n, k, nb, bs, warps)
    if out is not None:
        out.resize_(x.shape)
        return out.copy_(x)
    return x


def cholesky_solve(B, L, upper=False, out=None):
    return solve(B, L, upper, out)

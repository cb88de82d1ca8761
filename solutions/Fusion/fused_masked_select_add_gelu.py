"""Fusion/fused_masked_select_add_gelu.py: GELU(masked_select(input, mask) + alpha * other) as a
one-launch stream compaction with the add and the GELU applied on the way out: the selected values
are written once, already activated (eager's masked_select writes them, then add and gelu each read
and write the [k] vector again: three launches after the selection's own).

Design: the broadcast input / mask pair is walked flat in row-major order (both addressed through
their own strides after the iteration space is collapsed, so a broadcast mask row or a
non-contiguous input is read in place) in blocks of BLOCK = 4096 elements (8 warps), one program
each. A program counts its block's set mask bits (1 byte per element read) and publishes the
count, then finds its output offset by decoupled look-back: it reads its predecessors' published
words 32 at a time, nearest first, adding their counts until it meets one that already carries
its inclusive prefix, and publishes its own inclusive prefix. It then ranks its set lanes with an
in-block tl.cumsum, loads only the selected input elements, computes GELU(x + alpha * other) in
float32 (other a kernel scalar, or a [1] / [k] tensor read at the output position) and stores them
at offset + rank: increasing addresses per block, so the stores coalesce. A published word is
((epoch * 4 + state) << 32) | value in a persistent zero-initialised buffer (state 1: the block's
count, 2: its inclusive prefix; epoch: a host counter passed per launch), so the data is its own
flag and nothing is reset between calls; a program waits only on programs with lower ids, which
the GPU dispatches first and the CPU interpreter (programs in id order) has already finished.
The result goes into a buffer of the worst-case size n; the last program writes the total k,
tagged with the epoch, into pinned host memory, so the host's one synchronisation (eager's
masked_select waits too) is a spin on that word, with no copy launched and no stream synchronize,
and the call returns the leading k elements (or copies them into `out`). The call waits for its
total, so its host time counts, and on the H200 a Triton launch of 20 arguments costs the host
24 us, more than the GPU work here: one launch instead of count, scan and write, and the collapse
plan cached per shapes and strides. The epoch is a launch argument, so a CUDA graph replay would
reuse it: not graph-capturable.
"""
# expect: ok
import ctypes

import torch
import triton
import triton.language as tl


def _plan(shape, tensors):
    """Collapse a broadcast iteration space: drop size-1 dims, merge dims that every operand
    walks contiguously, pad to 4 dims. Returns (sizes[4], [strides[4] per operand], ndim), or
    None when more than 4 dims remain (callers then fall back to contiguous copies)."""
    strides = [list(t.expand(shape).stride()) for t in tensors]
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    sizes = [shape[d] for d in dims]
    strides = [[s[d] for d in dims] for s in strides]
    i = len(sizes) - 1
    while i > 0:
        if all(s[i - 1] == s[i] * sizes[i] for s in strides):
            sizes[i - 1] *= sizes[i]
            del sizes[i]
            for s in strides:
                s[i - 1] = s[i]
                del s[i]
        i -= 1
    if len(sizes) > 4:
        return None
    ndim = max(len(sizes), 1)
    pad = 4 - len(sizes)
    return [1] * pad + sizes, [[0] * pad + s for s in strides], ndim


@triton.jit
def _strided(offs, S1, S2, S3, s0, s1, s2, s3, NDIM: tl.constexpr):
    # Element offset of flat (row-major) indices `offs` in an operand with strides s0..s3 over
    # the collapsed sizes [S0, S1, S2, S3]; NDIM == 1 is the common contiguous / scalar case.
    if NDIM == 1:
        return offs * s3
    i3 = offs % S3
    r = offs // S3
    if NDIM == 2:
        return r * s2 + i3 * s3
    i2 = r % S2
    r = r // S2
    if NDIM == 3:
        return r * s1 + i2 * s2 + i3 * s3
    i1 = r % S1
    r = r // S1
    return r * s0 + i1 * s1 + i2 * s2 + i3 * s3

@triton.jit
def _gelu(x, TANH: tl.constexpr):
    if TANH:
        u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        a = tl.abs(u)
        e = tl.exp(-2.0 * a)
        t = (1.0 - e) / (1.0 + e)
        a2 = a * a
        t = tl.where(a < 0.0625, a * (1.0 - a2 * (0.3333333333333333 - a2 * 0.13333333333333333)), t)
        t = tl.where(u < 0, -t, t)
        return 0.5 * x * (1.0 + t)
    else:
        return 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))


@triton.jit(do_not_specialize=["epoch"])
def _select_gelu_kernel(x_ptr, m_ptr, o_ptr, y_ptr, st_ptr, tot_ptr, n, other_scalar, alpha, os_, o_n,
                        S1, S2, S3, xs0, xs1, xs2, xs3, ms0, ms1, ms2, ms3, epoch,
                        OTHER_IS_TENSOR: tl.constexpr, TANH: tl.constexpr, NDIM: tl.constexpr,
                        I64: tl.constexpr, BLOCK: tl.constexpr, LOOK: tl.constexpr):
    pid = tl.program_id(0)
    if I64:
        pid = pid.to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    inb = offs < n
    m = tl.load(m_ptr + _strided(offs, S1, S2, S3, ms0, ms1, ms2, ms3, NDIM), mask=inb, other=0)
    sel = inb & (m != 0)
    cnt = tl.sum(sel.to(tl.int32), axis=0).to(tl.int64)
    ep = epoch.to(tl.int64)
    prefix = tl.zeros([], tl.int64)
    if pid == 0:
        tl.store(st_ptr, ((ep * 4 + 2) << 32) | cnt)
    else:
        tl.store(st_ptr + pid, ((ep * 4 + 1) << 32) | cnt)
        lanes = tl.arange(0, LOOK)
        hi = pid
        while hi > 0:
            idx = hi - 1 - lanes  # the nearest predecessor first
            ok = idx >= 0
            # Lanes before block 0 read as a published prefix of 0.
            w = tl.load(st_ptr + idx, mask=ok, other=0, volatile=True)
            w = tl.where(ok, w, (ep * 4 + 2) << 32)
            while tl.min(((w >> 34) == ep).to(tl.int32), axis=0) == 0:
                w = tl.load(st_ptr + idx, mask=ok, other=0, volatile=True)
                w = tl.where(ok, w, (ep * 4 + 2) << 32)
            first = tl.min(tl.where(((w >> 32) & 3) == 2, lanes, LOOK), axis=0)
            prefix += tl.sum(tl.where(lanes <= first, w & 0xFFFFFFFF, 0), axis=0)
            hi = tl.where(first < LOOK, 0, hi - LOOK)
        tl.store(st_ptr + pid, ((ep * 4 + 2) << 32) | (prefix + cnt))
    if pid == tl.num_programs(0) - 1:
        tl.store(tot_ptr, (ep << 32) | (prefix + cnt))
    pos = prefix + tl.cumsum(sel.to(tl.int32), axis=0) - 1
    x = tl.load(x_ptr + _strided(offs, S1, S2, S3, xs0, xs1, xs2, xs3, NDIM), mask=sel,
                other=0.0).to(tl.float32)
    if OTHER_IS_TENSOR:
        # Never past other's end, also when it is shorter than the selection (reported after).
        o = tl.load(o_ptr + pos * os_, mask=sel & (pos < o_n), other=0.0).to(tl.float32)
    else:
        o = other_scalar
    y = _gelu(x + alpha * o, TANH)
    tl.store(y_ptr + pos, y.to(y_ptr.dtype.element_ty), mask=sel)


_states = {}  # (device, stream) -> [word buffer, last epoch, total slot, its reader]
_plans = {}  # (shapes and strides of input and mask) -> (shape, n, collapse plan or None, i64)
_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)


def _state(device, blocks):
    """The look-back words, the launch's epoch and the total's slot (pinned host memory the GPU
    writes; a plain CPU tensor under the interpreter) of the current stream on `device`."""
    handle = 0
    if device.type == "cuda":
        handle = (_raw_stream(device.index) if _raw_stream is not None
                  else torch.cuda.current_stream(device).cuda_stream)
    key = (device, handle)
    st = _states.get(key)
    if st is None or st[0].numel() < blocks:
        tot = torch.zeros(1, dtype=torch.int64, pin_memory=device.type == "cuda")
        st = [torch.zeros(max(blocks, 1024), dtype=torch.int64, device=device), 0, tot,
              ctypes.c_int64.from_address(tot.data_ptr())]
        _states[key] = st
    st[1] += 1
    if st[1] >= 2**28:  # epochs wrap: start over on a zeroed buffer and slot
        st[0].zero_()
        st[2].zero_()
        st[1] = 1
    return st


def _total(st, device):
    """The selection's size, as the last program wrote it into the pinned slot with this launch's
    epoch. The host spins on the slot (a stream synchronize costs it about 10 us on the H200);
    the output's elements need no wait, work queued after this call on the stream sees them.
    A kernel still running after some 20,000 reads (about a millisecond), or one that failed, is
    waited for properly, which raises its error."""
    slot, epoch = st[3], st[1]
    for _ in range(20000):
        w = slot.value
        if w >> 32 == epoch:
            return w & 0xFFFFFFFF
    if device.type == "cuda":
        torch.cuda.current_stream(device).synchronize()
    w = slot.value
    if w >> 32 != epoch:
        raise RuntimeError("fused_masked_select_add_gelu: the kernel did not report the selection's size")
    return w & 0xFFFFFFFF


def fused_masked_select_add_gelu(input, mask, other, *, alpha=1, approximate='none', out=None):
    if approximate not in ('none', 'tanh'):
        raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
    if mask.dtype != torch.bool:
        raise RuntimeError(f"masked_select: expected BoolTensor for mask, got {mask.dtype}")
    other_is_tensor = isinstance(other, torch.Tensor)
    dtype = torch.result_type(input, other)
    key = (input.shape, input.stride(), mask.shape, mask.stride())
    cached = _plans.get(key)
    if cached is None:
        shape = torch.broadcast_shapes(input.shape, mask.shape)
        n = 1
        for d in shape:
            n *= d
        plan = _plan(shape, [input.expand(shape), mask.expand(shape)])
        i64 = n + 4096 >= 2**31
        if plan is not None:
            span = max(max(abs(s) * (d - 1) for s, d in zip(s_, plan[0])) for s_ in plan[1]) + 1
            i64 = i64 or span + 4096 >= 2**31
        cached = (shape, n, plan, i64)
        if len(_plans) < 4096:
            _plans[key] = cached
    shape, n, plan, i64 = cached
    dev = input.device
    x, m = input, mask.view(torch.uint8)
    if plan is None:
        x, m = input.expand(shape).contiguous(), m.expand(shape).contiguous()
        plan = _plan(shape, [x, m])
    sizes, st, ndim = plan
    BLOCK = 4096
    nb = triton.cdiv(n, BLOCK)
    k = 0
    y = torch.empty(n, dtype=dtype, device=dev)
    if nb:
        if other_is_tensor and other.dim() > 1:
            raise RuntimeError(f"other must be a scalar, a [1] or a [k] tensor, got {list(other.shape)}")
        o = other if other_is_tensor else y
        state = _state(dev, nb)
        words, epoch, tot = state[:3]
        # A [k] other is read at the output position (stride 1), a [1] one broadcast (stride 0).
        os_ = (other.stride(0) if other.numel() > 1 else 0) if other_is_tensor else 0
        _select_gelu_kernel[(nb,)](
            x, m, o, y, words, tot, n, 0.0 if other_is_tensor else float(other), float(alpha), os_,
            other.numel() if os_ else n, sizes[1], sizes[2], sizes[3], *st[0], *st[1], epoch,
            OTHER_IS_TENSOR=other_is_tensor, TANH=approximate == 'tanh', NDIM=ndim, I64=i64,
            BLOCK=BLOCK, LOOK=32, num_warps=8)
        k = _total(state, dev)
        if other_is_tensor and other.numel() not in (1, k):
            raise RuntimeError(f"other of {other.numel()} elements does not broadcast to the {k} selected")
    if out is not None:
        if out.shape != (k,):
            out.resize_(k)
        return out.copy_(y[:k])
    return y[:k]

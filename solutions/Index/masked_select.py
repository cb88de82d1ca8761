"""Index/masked_select.py: torch.masked_select as a one-launch stream compaction (decoupled
look-back), broadcasting input and mask in place.

Design: the broadcast shape is collapsed like an elementwise space (size-1 dims dropped, jointly
contiguous dims merged) and both operands are addressed through their own (possibly stride-0)
strides, so a broadcast mask or input is never materialised and a non-contiguous input is read in
place. One program per BLOCK = 4096 elements counts its True flags (one byte each) and publishes
the count, then finds its output offset by looking back over its predecessors' published words
(32 at a time, nearest first): it adds up their counts until it meets one that already carries its
inclusive prefix, publishes its own inclusive prefix, and stores its selected elements at offset +
in-block position (an inclusive tl.cumsum): row-major order, deterministic, no atomics. A word is
((epoch * 4 + state) << 32) | value in a persistent zero-initialised buffer (state 1: the block's
count, 2: its inclusive prefix; epoch: a host counter passed per launch), so the data is its own
flag and nothing is reset between calls. A program waits only on programs with lower ids, which
the GPU dispatches first and the CPU interpreter (programs in id order) has already finished.
The last program also writes the total, tagged with the epoch, into pinned host memory, so the
host's one synchronisation (the op needs the output's size; eager's masked_select waits too) is a
spin on that word, with no copy launched and no stream synchronize; it returns the leading
`total` elements of a worst-case-size buffer, a contiguous view. The call is bound by the host on
the H200 (it waits for the GPU, so kbx counts its host time, and the GPU work is 3-25 us), so the
host path is kept short: one launch instead of count-then-write (a Triton launch of 20
arguments costs the host 24 us there), and the collapse plan cached per shapes and strides. The
epoch is a launch argument, so a CUDA graph replay would reuse it: not graph-capturable.
"""
# expect: ok
import ctypes

import torch
import triton
import triton.language as tl


def _plan(shape, tensors):
    """Collapse an iteration space: drop size-1 dims, merge dims that every operand walks
    contiguously, pad to 4 dims. Returns (sizes[4], [strides[4] per operand], ndim), or None when
    more than 4 dims remain."""
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
    # the collapsed sizes [S0, S1, S2, S3]; NDIM == 1 is the common contiguous case.
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


@triton.jit(do_not_specialize=["epoch"])
def _select_kernel(x_ptr, m_ptr, y_ptr, st_ptr, tot_ptr, n, S1, S2, S3, xs0, xs1, xs2, xs3,
                   ms0, ms1, ms2, ms3, epoch, NDIM: tl.constexpr, BLOCK: tl.constexpr,
                   LOOK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    valid = offs < n
    m = tl.load(m_ptr + _strided(offs, S1, S2, S3, ms0, ms1, ms2, ms3, NDIM), mask=valid, other=0)
    sel = (m != 0) & valid
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
    x = tl.load(x_ptr + _strided(offs, S1, S2, S3, xs0, xs1, xs2, xs3, NDIM), mask=sel)
    tl.store(y_ptr + pos, x, mask=sel)


_states = {}  # (device, stream) -> [word buffer, last epoch, total slot, its reader]
_plans = {}  # (shapes and strides of input and mask) -> (shape, n, collapse plan or None)
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
        raise RuntimeError("masked_select: the kernel did not report the selection's size")
    return w & 0xFFFFFFFF


def masked_select(input, mask):
    if mask.dtype != torch.bool:
        raise RuntimeError(f"masked_select: expected a bool mask, got {mask.dtype}")
    key = (input.shape, input.stride(), mask.shape, mask.stride())
    cached = _plans.get(key)
    if cached is None:
        shape = torch.broadcast_shapes(input.shape, mask.shape)
        n = 1
        for s in shape:
            n *= s
        cached = (shape, n, _plan(shape, [input, mask]))
        if len(_plans) < 4096:
            _plans[key] = cached
    shape, n, plan = cached
    if n == 0:
        return torch.empty(0, dtype=input.dtype, device=input.device)
    if n >= 2**31 - 1:
        raise NotImplementedError("masked_select: more than 2**31 - 2 elements")
    x, m = input, mask.view(torch.uint8)
    if plan is None:
        x, m = input.expand(shape).contiguous(), m.expand(shape).contiguous()
        plan = _plan(shape, [x, m])
    sizes, st, ndim = plan
    BLOCK = 4096
    nb = triton.cdiv(n, BLOCK)
    state = _state(input.device, nb)
    words, epoch, tot = state[:3]
    # The result is written into a buffer of the worst-case size n and returned as its leading
    # `total` elements (a contiguous view), so the one host synchronisation comes after the work.
    y = torch.empty(n, dtype=input.dtype, device=input.device)
    _select_kernel[(nb,)](x, m, y, words, tot, n, sizes[1], sizes[2], sizes[3], *st[0], *st[1],
                          epoch, NDIM=ndim, BLOCK=BLOCK, LOOK=32, num_warps=8)
    return y[:_total(state, input.device)]

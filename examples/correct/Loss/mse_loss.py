"""Mean squared error (KernelBench-X Loss/mse_loss.py), F.mse_loss semantics.

* reduction='none': one elementwise kernel, (x - t)**2.
* 'mean' / 'sum': a deterministic two-stage reduction. Stage 1 launches about four programs per SM;
  each streams one contiguous range of both inputs with a per-lane float32 accumulator and writes
  one partial sum. Stage 2 (one program) adds the partials and divides by numel for 'mean'.
  Small inputs take a single program that writes the final value directly. No atomics.

Inputs are broadcast against each other as F.mse_loss does. Math in float32 (float64 for float64).
Loop trip counts are compile-time constants (see Math/softmax.py for why).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _sq_diff_kernel(x_ptr, t_ptr, y_ptr, n_elements, ACC: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(ACC)
    t = tl.load(t_ptr + offs, mask=mask, other=0.0).to(ACC)
    d = x - t
    tl.store(y_ptr + offs, (d * d).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _sq_diff_partial_kernel(x_ptr, t_ptr, out_ptr, n_elements, divisor,
                            ACC: tl.constexpr, BLOCK: tl.constexpr, CHUNKS: tl.constexpr):
    # Program p sums (x - t)^2 over elements [p * CHUNKS * BLOCK, (p + 1) * CHUNKS * BLOCK) and
    # stores sum / divisor at out[p] (divisor = 1 for partials, numel for a one-program 'mean').
    pid = tl.program_id(0).to(tl.int64)
    start = pid * (CHUNKS * BLOCK)
    lanes = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], ACC)
    for i in range(CHUNKS):
        offs = start + i * BLOCK + lanes
        mask = offs < n_elements
        x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(ACC)
        t = tl.load(t_ptr + offs, mask=mask, other=0.0).to(ACC)
        d = x - t
        acc += d * d
    total = tl.sum(acc, axis=0) / divisor
    tl.store(out_ptr + pid, total.to(out_ptr.dtype.element_ty))


@triton.jit
def _finalize_kernel(p_ptr, out_ptr, n_partials, divisor, ACC: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = tl.load(p_ptr + offs, mask=offs < n_partials, other=0.0).to(ACC)
    total = tl.sum(p, axis=0) / divisor
    tl.store(out_ptr, total.to(out_ptr.dtype.element_ty))


_BLOCK = 4096


_SM_COUNT = {}


def _num_sms(device):
    if device.type != "cuda":
        return 4
    index = device.index if device.index is not None else torch.cuda.current_device()
    if index not in _SM_COUNT:  # keep the per-call host work small
        _SM_COUNT[index] = torch.cuda.get_device_properties(index).multi_processor_count
    return _SM_COUNT[index]


def mse_loss(input, target, reduction='mean'):
    if reduction not in ('none', 'mean', 'sum'):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    dtype = torch.result_type(input, target)
    if not dtype.is_floating_point:
        raise RuntimeError(f"mse_loss: expected floating point inputs, got {dtype}")
    x, t = torch.broadcast_tensors(input, target)
    x, t = x.contiguous(), t.contiguous()
    n = x.numel()
    acc = tl.float64 if dtype == torch.float64 else tl.float32
    acc_torch = torch.float64 if dtype == torch.float64 else torch.float32

    if reduction == 'none':
        out = torch.empty(x.shape, dtype=dtype, device=x.device)
        if n > 0:
            _sq_diff_kernel[(triton.cdiv(n, _BLOCK),)](x, t, out, n, ACC=acc, BLOCK=_BLOCK,
                                                       num_warps=8)
        return out

    out = torch.empty((), dtype=dtype, device=x.device)
    divisor = float(n) if reduction == 'mean' else 1.0  # mean of nothing is 0/0 = nan, as torch
    block = min(_BLOCK, max(128, triton.next_power_of_2(n)))
    n_chunks = max(1, triton.cdiv(n, block))
    n_programs = min(n_chunks, 4 * _num_sms(x.device))
    chunks = triton.cdiv(n_chunks, n_programs)
    n_programs = triton.cdiv(n_chunks, chunks)
    if n_programs == 1:
        _sq_diff_partial_kernel[(1,)](x, t, out, n, divisor, ACC=acc, BLOCK=block, CHUNKS=chunks,
                                      num_warps=8 if block >= 2048 else 4)
        return out
    partials = torch.empty(n_programs, dtype=acc_torch, device=x.device)
    _sq_diff_partial_kernel[(n_programs,)](x, t, partials, n, 1.0, ACC=acc, BLOCK=block,
                                           CHUNKS=chunks, num_warps=8)
    _finalize_kernel[(1,)](partials, out, n_programs, divisor, ACC=acc,
                           BLOCK=triton.next_power_of_2(n_programs), num_warps=4)
    return out

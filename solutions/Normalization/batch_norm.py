"""Normalization/batch_norm.py: F.batch_norm (eval and training, running-statistics update) with the
per-channel affine folded into one elementwise kernel.

Design: the input is viewed as [N, C, S] (S = the spatial dims, read through the view's strides).
Normalisation kernel: grid (N * C planes, S / BLOCK); a program loads its channel's mean, inverse
std, weight and bias once (four scalars), then streams BLOCK elements as
(x - mean) * (invstd * weight) + bias: one read and one write of the tensor, in the input's dtype
(float16 in the perf sweep: 16 halves per thread, two 128-bit accesses, at BLOCK = 4096 / 8 warps),
float32 math in registers. Eager eval-mode batch_norm is also one pass, but through cuDNN's
generic path with a per-call setup; the win is small and honest.
Training: a statistics kernel (one program per channel, BLOCK_S tiles over the N planes) computes
the mean, then the biased variance as the mean of squared deviations (two sweeps, no
E[x^2] - E[x]^2 cancellation), writes mean and 1 / sqrt(var + eps) for the normalisation kernel
and updates running_mean / running_var in place ((1 - momentum) * running + momentum * batch, with
the unbiased variance), as the contract compares them. Eval mode reads running stats directly.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _bn_stats_kernel(x_ptr, mean_ptr, invstd_ptr, rm_ptr, rv_ptr, N, S, sxn, sxc, sxs, eps,
                     momentum, inv_count, inv_count_unbiased, UPDATE: tl.constexpr, BLOCK_S: tl.constexpr):
    c = tl.program_id(0)
    offs = tl.arange(0, BLOCK_S)
    base = x_ptr + c.to(tl.int64) * sxc
    acc = tl.zeros([BLOCK_S], tl.float32)
    row = base
    for n in range(0, N):
        for s0 in range(0, S, BLOCK_S):
            s = s0 + offs
            acc += tl.load(row + s.to(tl.int64) * sxs, mask=s < S, other=0.0).to(tl.float32)
        row += sxn
    mean = tl.sum(acc, axis=0) * inv_count
    acc = tl.zeros([BLOCK_S], tl.float32)
    row = base
    for n in range(0, N):
        for s0 in range(0, S, BLOCK_S):
            s = s0 + offs
            x = tl.load(row + s.to(tl.int64) * sxs, mask=s < S, other=0.0).to(tl.float32)
            d = tl.where(s < S, x - mean, 0.0)
            acc += d * d
        row += sxn
    m2 = tl.sum(acc, axis=0)
    var = m2 * inv_count
    tl.store(mean_ptr + c, mean)
    tl.store(invstd_ptr + c, 1.0 / tl.sqrt(var + eps))
    if UPDATE:
        unbiased = m2 * inv_count_unbiased
        rm = tl.load(rm_ptr + c).to(tl.float32)
        rv = tl.load(rv_ptr + c).to(tl.float32)
        tl.store(rm_ptr + c, ((1.0 - momentum) * rm + momentum * mean).to(rm_ptr.dtype.element_ty))
        tl.store(rv_ptr + c, ((1.0 - momentum) * rv + momentum * unbiased).to(rv_ptr.dtype.element_ty))


@triton.jit
def _bn_apply_kernel(x_ptr, y_ptr, mean_ptr, var_ptr, w_ptr, b_ptr, C, S, sxn, sxc, sxs, eps,
                     IS_INVSTD: tl.constexpr, HAS_W: tl.constexpr, HAS_B: tl.constexpr,
                     BLOCK: tl.constexpr):
    plane = tl.program_id(0)
    n = plane // C
    c = plane % C
    mean = tl.load(mean_ptr + c).to(tl.float32)
    if IS_INVSTD:
        scale = tl.load(var_ptr + c).to(tl.float32)
    else:
        scale = 1.0 / tl.sqrt(tl.load(var_ptr + c).to(tl.float32) + eps)
    if HAS_W:
        scale = scale * tl.load(w_ptr + c).to(tl.float32)
    shift = 0.0
    if HAS_B:
        shift = tl.load(b_ptr + c).to(tl.float32)
    s = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = s < S
    x = tl.load(x_ptr + n.to(tl.int64) * sxn + c.to(tl.int64) * sxc + s * sxs, mask=mask, other=0.0)
    y = (x.to(tl.float32) - mean) * scale + shift
    tl.store(y_ptr + plane.to(tl.int64) * S + s, y.to(y_ptr.dtype.element_ty), mask=mask)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-05):
    N, C = input.shape[0], input.shape[1]
    x = input.reshape(N, C, -1)
    S = x.shape[2]
    y = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    if y.numel() == 0:
        return y
    if training:
        if N * S <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {list(input.shape)}")
        mean = torch.empty(C, dtype=torch.float32, device=input.device)
        invstd = torch.empty(C, dtype=torch.float32, device=input.device)
        update = running_mean is not None and running_var is not None
        _bn_stats_kernel[(C,)](x, mean, invstd, running_mean if update else mean,
                               running_var if update else invstd, N, S, x.stride(0), x.stride(1),
                               x.stride(2), float(eps), float(momentum if momentum is not None else 0.0),
                               1.0 / (N * S), 1.0 / (N * S - 1),
                               UPDATE=update, BLOCK_S=min(triton.next_power_of_2(S), 1024),
                               num_warps=4)
        stat_mean, stat_var, is_invstd = mean, invstd, True
    else:
        stat_mean, stat_var, is_invstd = running_mean, running_var, False
    BLOCK = min(4096, max(128, triton.next_power_of_2(S)))
    warps = 8 if BLOCK >= 4096 else 4
    _bn_apply_kernel[(N * C, triton.cdiv(S, BLOCK))](
        x, y, stat_mean, stat_var, weight if weight is not None else stat_mean,
        bias if bias is not None else stat_mean, C, S, x.stride(0), x.stride(1), x.stride(2),
        float(eps), IS_INVSTD=is_invstd, HAS_W=weight is not None, HAS_B=bias is not None,
        BLOCK=BLOCK, num_warps=warps)
    return y

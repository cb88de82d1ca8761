"""Fusion/fused_hardsigmoid_batch_norm.py variant that updates running_var with the biased batch
variance (sum of squares / n) instead of the unbiased one (/ (n - 1)) that the description and
torch require. The output is unaffected (normalization correctly uses the biased variance); the
in-place running_var is low by momentum * var / (n - 1): ~2.4e-5 for the public 16x32x16x16
training cases (n = 4096), about 1.6e-3 at n = 189 (momentum 0.3) and 0.014 at n = 8 (kbx's own training cases). A
careful judge comparing running_var fails it. The public training cases (n = 10240 and 4096) stay
within the 1e-5 tolerance, so only kbx's own small training cases catch it.

Otherwise as the correct kernel: one Triton program per channel c over x viewed as
(N, C, S) (S = product of the spatial dims, 1 for 2-D input; any strides). In training mode it
first computes the channel's batch mean and biased variance over the N*S elements (two passes,
float32) and updates running_mean / running_var in place: (1 - momentum) * running + momentum *
stat, with the unbiased variance var * n / (n - 1) for the running one; the normalization uses the
batch mean and biased variance. In eval mode it uses running_mean / running_var and leaves them
unchanged. Then y = (x - mean) / sqrt(var + eps) * weight + bias (weight 1, bias 0 when None) and
out = clamp(y / 6 + 1/2, 0, 1), written to a new contiguous float32 tensor of x's shape.
"""
# expect: incorrect
# expect-kernelbenchx: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _bn_hardsigmoid_kernel(x_ptr, rm_ptr, rv_ptr, w_ptr, b_ptr, o_ptr, NB, S, sxn, sxc, sxs, C,
                           momentum, eps, TRAINING: tl.constexpr, HAS_W: tl.constexpr,
                           HAS_B: tl.constexpr, BLOCK: tl.constexpr):
    c = tl.program_id(0)
    total = NB * S
    if TRAINING:
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for start in range(0, total, BLOCK):
            offs = start + tl.arange(0, BLOCK)
            m = offs < total
            ni = offs // S
            si = offs % S
            v = tl.load(x_ptr + ni * sxn + c * sxc + si * sxs, mask=m, other=0.0)
            acc += v
        mean = tl.sum(acc, axis=0) / total
        acc2 = tl.zeros([BLOCK], dtype=tl.float32)
        for start in range(0, total, BLOCK):
            offs = start + tl.arange(0, BLOCK)
            m = offs < total
            ni = offs // S
            si = offs % S
            v = tl.load(x_ptr + ni * sxn + c * sxc + si * sxs, mask=m, other=0.0)
            dlt = tl.where(m, v - mean, 0.0)
            acc2 += dlt * dlt
        var = tl.sum(acc2, axis=0) / total
        unbiased = var
        rm = tl.load(rm_ptr + c)
        rv = tl.load(rv_ptr + c)
        tl.store(rm_ptr + c, (1.0 - momentum) * rm + momentum * mean)
        tl.store(rv_ptr + c, (1.0 - momentum) * rv + momentum * unbiased)
    else:
        mean = tl.load(rm_ptr + c)
        var = tl.load(rv_ptr + c)
    inv = 1.0 / tl.sqrt(var + eps)
    if HAS_W:
        wv = tl.load(w_ptr + c)
    else:
        wv = 1.0
    if HAS_B:
        bv = tl.load(b_ptr + c)
    else:
        bv = 0.0
    for start in range(0, total, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < total
        ni = offs // S
        si = offs % S
        v = tl.load(x_ptr + ni * sxn + c * sxc + si * sxs, mask=m, other=0.0)
        y = (v - mean) * inv * wv + bv
        h = tl.minimum(tl.maximum(y / 6.0 + 0.5, 0.0), 1.0)
        tl.store(o_ptr + ni * (C * S) + c * S + si, h, mask=m)


def fused_hardsigmoid_batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False,
                                 momentum=0.1, eps=1e-05, inplace=False):
    NB, C = x.shape[0], x.shape[1]
    S = 1
    for d in x.shape[2:]:
        S *= d
    if training and NB * S <= 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {tuple(x.shape)}")
    x3 = x.reshape(NB, C, S)
    res = torch.empty(x.shape, dtype=torch.float32, device=x.device)
    if x.numel() > 0:
        _bn_hardsigmoid_kernel[(C,)](
            x3, running_mean, running_var, weight if weight is not None else x3,
            bias if bias is not None else x3, res, NB, S, x3.stride(0), x3.stride(1), x3.stride(2), C,
            float(momentum), float(eps), TRAINING=bool(training), HAS_W=weight is not None,
            HAS_B=bias is not None, BLOCK=1024)
    return res

"""Fusion/fused_dropout_relu_batch_norm_conv2d.py variant with the eval-mode mix-up: training
only switches the dropout off, so training=False returns relu(batch_norm(conv)) normalised with
the current batch's statistics instead of raising. The description: "`training` is passed to
both the batch norm and the dropout as torch.nn.functional does: there are no running statistics,
so training=False raises RuntimeError". Batch statistics in eval mode silently turn an error
into a made-up result; training=True calls are unaffected.
"""
# expect: incorrect
# expect-kernelbenchx: ok  (only kbx's own cases, kbx_only, or its contract catch it)
import torch
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def _channel_stats_kernel(y_ptr, mean_ptr, rstd_ptr, N, C, S, eps, BLOCK: tl.constexpr):
    c = tl.program_id(0)
    total = N * S
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, total, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < total
        v = tl.load(y_ptr + (offs // S) * C * S + c * S + offs % S, mask=m, other=0.0)
        acc += v
    mean = tl.sum(acc, axis=0) / total
    acc2 = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, total, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < total
        v = tl.load(y_ptr + (offs // S) * C * S + c * S + offs % S, mask=m, other=0.0)
        d = tl.where(m, v - mean, 0.0)
        acc2 += d * d
    var = tl.sum(acc2, axis=0) / total
    tl.store(mean_ptr + c, mean)
    tl.store(rstd_ptr + c, 1.0 / tl.sqrt(var + eps))


@triton.jit
def _bn_relu_dropout_kernel(y_ptr, out_ptr, mean_ptr, rstd_ptr, C, S, numel, p, scale, seed,
                            APPLY_DROPOUT: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < numel
    c = (offs // S) % C
    v = tl.load(y_ptr + offs, mask=m, other=0.0)
    mean = tl.load(mean_ptr + c, mask=m, other=0.0)
    rstd = tl.load(rstd_ptr + c, mask=m, other=1.0)
    z = tl.maximum((v - mean) * rstd, 0.0)
    if APPLY_DROPOUT:
        r = tl.rand(seed, offs)
        z = tl.where(r >= p, z * scale, 0.0)
    tl.store(out_ptr + offs, z, mask=m)


def fused_dropout_relu_batch_norm_conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                                         p=0.5, training=True, inplace=False):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    tup = lambda v: tuple(v) if isinstance(v, list) else v
    y = F.conv2d(input.float(), weight.float(), bias.float() if bias is not None else None,
                 tup(stride), tup(padding), tup(dilation), groups).contiguous()
    N, C, Ho, Wo = y.shape
    S = Ho * Wo
    mean = torch.empty(C, dtype=torch.float32, device=y.device)
    rstd = torch.empty(C, dtype=torch.float32, device=y.device)
    _channel_stats_kernel[(C,)](y, mean, rstd, N, C, S, 1e-5, BLOCK=min(1024, triton.next_power_of_2(N * S)))
    out = torch.empty_like(y)
    numel = y.numel()
    seed = int(torch.randint(0, 2 ** 31 - 1, (1,)).item())
    scale = 1.0 / (1.0 - p) if p < 1.0 else 0.0
    BLOCK = 1024
    _bn_relu_dropout_kernel[(triton.cdiv(numel, BLOCK),)](y, out, mean, rstd, C, S, numel, float(p), scale, seed,
                                                         APPLY_DROPOUT=training and p > 0.0, BLOCK=BLOCK)
    return out

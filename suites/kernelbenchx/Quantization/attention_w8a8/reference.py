"""Reference for Quantization/attention_w8a8.py: attention whose two matmuls run on int8 operands."""

import math

import torch


def _quantize(x, dim, qmax):
    """Symmetric round-half-to-even quantisation of float32 `x` with one scale per slice along `dim`."""
    scale = x.abs().amax(dim=dim, keepdim=True) / qmax
    q = torch.round(x / torch.where(scale == 0, torch.ones_like(scale), scale)).clamp_(-qmax, qmax)
    return q, scale


def attention_w8a8(query, key, value):
    d = query.shape[-1]
    qq, sq = _quantize(query.float(), -1, 127.0)  # per token: [B, S, 1]
    qk, sk = _quantize(key.float(), -1, 127.0)  # per token: [B, S, 1]
    acc = torch.matmul(qq.double(), qk.double().transpose(-1, -2)).float()  # exact int32 sums
    scores = acc * sq * sk.transpose(-1, -2) / math.sqrt(d)
    probs = torch.softmax(scores, dim=-1)
    qp, sp = _quantize(probs, -1, 127.0)  # per query row: [B, S, 1]
    qv, sv = _quantize(value.float(), -2, 127.0)  # per channel: [B, 1, D]
    acc = torch.matmul(qp.double(), qv.double()).float()
    return acc * sp * sv


def masked_randn(gen, device, shape, std=1.0, zero=None, dtype="float32"):
    """randn * std of `shape`; `zero` lists indices along the first dim whose slices are set to 0."""
    x = torch.randn(shape, generator=gen, dtype=torch.float32) * std
    for i in zero or []:
        x[i] = 0
    return x.to(getattr(torch, dtype)).to(device)


def fixed(gen, device, values, dtype="float32"):
    """A tensor with the given values (no randomness; `gen` is unused)."""
    return torch.tensor(values, dtype=getattr(torch, dtype)).to(device)

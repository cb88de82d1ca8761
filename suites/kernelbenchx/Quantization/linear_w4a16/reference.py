"""Reference for Quantization/linear_w4a16.py: float16 activations times int4 group-quantised weights."""

import torch


def linear_w4a16(input, weight, bias=None):
    d_out, d_in = weight.shape
    group = min(128, d_in)
    # Symmetric int4 weights: one float32 scale per output row and group of `group` input features.
    w = weight.float().reshape(d_out, d_in // group, group)
    scale = w.abs().amax(dim=-1, keepdim=True) / 7.0
    q = torch.round(w / torch.where(scale == 0, torch.ones_like(scale), scale)).clamp_(-7.0, 7.0)
    w_deq = (q.double() * scale.double()).reshape(d_out, d_in)
    # float16 activations against the dequantised weights, summed in float64, rounded once to float16.
    out = torch.matmul(input.double(), w_deq.T)
    if bias is not None:
        out = out + bias.double()
    return out.to(input.dtype)


def masked_randn(gen, device, shape, std=1.0, zero=None, dtype="float32"):
    """randn * std of `shape`; `zero` lists indices along the first dim whose slices are set to 0."""
    x = torch.randn(shape, generator=gen, dtype=torch.float32) * std
    for i in zero or []:
        x[i] = 0
    return x.to(getattr(torch, dtype)).to(device)


def fixed(gen, device, values, dtype="float32"):
    """A tensor with the given values (no randomness; `gen` is unused)."""
    return torch.tensor(values, dtype=getattr(torch, dtype)).to(device)

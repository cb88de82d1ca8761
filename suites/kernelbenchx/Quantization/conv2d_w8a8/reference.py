"""Reference for Quantization/conv2d_w8a8.py: W8A8 conv2d, int8 per-tensor activations and per-channel weights."""

import torch
import torch.nn.functional as F


def _quantize(x, dim, qmax):
    """Symmetric round-half-to-even quantisation of float32 `x`; `dim` None means one scale for the tensor."""
    amax = x.abs().amax() if dim is None else x.abs().amax(dim=dim, keepdim=True)
    scale = amax / qmax
    q = torch.round(x / torch.where(scale == 0, torch.ones_like(scale), scale)).clamp_(-qmax, qmax)
    return q, scale


def conv2d_w8a8(input, weight, bias=None, stride=1, padding=0):
    qx, sx = _quantize(input.float(), None, 127.0)  # one scale for the whole activation tensor
    qw, sw = _quantize(weight.float(), (1, 2, 3), 127.0)  # one scale per output channel: [C_out, 1, 1, 1]
    # Exact integer convolution (int32 accumulation), emulated in float64.
    acc = F.conv2d(qx.double(), qw.double(), None, stride, padding).float()
    out = acc * sx * sw.reshape(1, -1, 1, 1)
    if bias is not None:
        out = out + bias.float().reshape(1, -1, 1, 1)
    return out


def masked_randn(gen, device, shape, std=1.0, zero=None, dtype="float32"):
    """randn * std of `shape`; `zero` lists indices along the first dim whose slices are set to 0."""
    x = torch.randn(shape, generator=gen, dtype=torch.float32) * std
    for i in zero or []:
        x[i] = 0
    return x.to(getattr(torch, dtype)).to(device)


def fixed(gen, device, values, dtype="float32"):
    """A tensor with the given values (no randomness; `gen` is unused)."""
    return torch.tensor(values, dtype=getattr(torch, dtype)).to(device)

"""Reference for Math/ifftshift.py: undoes fftshift by rolling each dimension by -(n // 2)."""

import torch


def ifftshift(input, dim=None):  # noqa: A002 - upstream's parameter name
    return torch.fft.ifftshift(input, dim=dim)

"""Reference for Math/fftn.py: N-dimensional discrete Fourier transform."""

import torch


def fftn(input, s=None, dim=None, norm=None, out=None):  # noqa: A002 - upstream's parameter name
    return torch.fft.fftn(input, s=s, dim=dim, norm=norm, out=out)

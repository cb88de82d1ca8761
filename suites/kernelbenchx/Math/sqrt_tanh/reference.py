"""Reference for Math/sqrt_tanh.py: tanh(sqrt(x)) elementwise."""

import torch


def sqrt_tanh(input, out=None):  # noqa: A002 - upstream's parameter name
    return torch.tanh(torch.sqrt(input), out=out)

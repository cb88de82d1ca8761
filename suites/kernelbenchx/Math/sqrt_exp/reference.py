"""Reference for Math/sqrt_exp.py: exp(sqrt(x)) elementwise."""

import torch


def sqrt_exp(input, out=None):  # noqa: A002 - upstream's parameter name
    return torch.exp(torch.sqrt(input), out=out)


def squares(gen, device, n):
    """The perfect squares 0, 1, 4, ..., (n - 1)**2 as float32."""
    return (torch.arange(n, dtype=torch.float32) ** 2).to(device)

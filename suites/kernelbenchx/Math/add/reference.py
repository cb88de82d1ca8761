"""Reference for Math/add.py: input + alpha * other with broadcasting."""

import torch


def add(input, other, alpha=1, out=None):  # noqa: A002 - upstream's parameter name
    return torch.add(input, other, alpha=alpha, out=out)

"""Reference for Math/bitwise_and.py: elementwise bitwise AND with broadcasting."""

import torch


def bitwise_and(input, other, out=None):  # noqa: A002 - upstream's parameter name
    return torch.bitwise_and(input, other, out=out)

"""Reference for Math/floor.py: elementwise floor."""

import torch


def floor(input, out=None):  # noqa: A002 - upstream's parameter name
    return torch.floor(input, out=out)

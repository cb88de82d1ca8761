"""Reference for Math/log.py: elementwise natural logarithm."""

import torch


def log(input, out=None):  # noqa: A002 - upstream's parameter name
    return torch.log(input, out=out)

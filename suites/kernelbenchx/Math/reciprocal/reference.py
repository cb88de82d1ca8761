"""Reference for Math/reciprocal.py: elementwise 1 / x."""

import torch


def reciprocal(input, out=None):  # noqa: A002 - upstream's parameter name
    return torch.reciprocal(input, out=out)

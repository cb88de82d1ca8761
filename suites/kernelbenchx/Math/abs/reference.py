"""Reference for Math/abs.py: elementwise absolute value."""

import torch


def abs(input_tensor, out=None):  # noqa: A001 - the task's entry name shadows the builtin
    return torch.abs(input_tensor, out=out)

"""Reference for Math/pow.py: elementwise power with a scalar or tensor exponent."""

import torch


def pow(input_tensor, exponent, out=None):  # noqa: A001 - the task's entry name shadows the builtin
    return torch.pow(input_tensor, exponent, out=out)

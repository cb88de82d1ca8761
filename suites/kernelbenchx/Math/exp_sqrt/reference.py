"""Reference for Math/exp_sqrt.py: sqrt(exp(x)) elementwise."""

import torch


def exp_sqrt(input, out=None):  # noqa: A002 - upstream's parameter name
    return torch.sqrt(torch.exp(input), out=out)

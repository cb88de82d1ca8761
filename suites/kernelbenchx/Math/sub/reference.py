"""Reference for Math/sub.py: input - alpha * other with broadcasting."""

import torch


def sub(input, other, *, alpha=1, out=None):  # noqa: A002 - upstream's parameter name
    return torch.sub(input, other, alpha=alpha, out=out)

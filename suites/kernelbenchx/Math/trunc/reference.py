"""Reference for Math/trunc.py: elementwise truncation toward zero."""

import torch


def trunc(input, out=None):  # noqa: A002 - upstream's parameter name
    return torch.trunc(input, out=out)

"""Reference for Math/airy_ai.py: elementwise Airy function Ai(x)."""

import torch


def airy_ai(input, out=None):  # noqa: A002 - upstream's parameter name
    return torch.special.airy_ai(input, out=out)

"""Reference for Math/zeta.py: Hurwitz zeta function zeta(x, q)."""

import torch


def zeta(input, other, out=None):  # noqa: A002 - upstream's parameter name
    return torch.special.zeta(input, other, out=out)

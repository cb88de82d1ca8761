"""Reference for Math/gammaln.py: elementwise ln|Gamma(x)|."""

import torch


def gammaln(input, out=None):  # noqa: A002 - upstream's parameter name
    return torch.special.gammaln(input, out=out)

"""Reference for Math/erfc_sqrt.py: the pair (erfc(x), sqrt(x))."""

import torch


def erfc_sqrt(input):  # noqa: A002 - upstream's parameter name
    return torch.special.erfc(input), torch.sqrt(input)

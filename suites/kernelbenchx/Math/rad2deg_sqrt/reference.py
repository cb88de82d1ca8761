"""Reference for Math/rad2deg_sqrt.py: the pair (rad2deg(x), sqrt(x))."""

import torch


def rad2deg_sqrt(input):  # noqa: A002 - upstream's parameter name
    return torch.rad2deg(input), torch.sqrt(input)

"""Reference for Math/div.py: true, truncating or flooring division with broadcasting."""

import torch


def div(input, other, rounding_mode=None, out=None):  # noqa: A002 - upstream's parameter name
    return torch.div(input, other, rounding_mode=rounding_mode, out=out)

"""Reference for Math/erf.py: elementwise error function."""

import torch


def erf(input_tensor):
    return torch.special.erf(input_tensor)

"""Reference for Math/digamma.py: elementwise digamma (psi) function."""

import torch


def digamma(input_tensor):
    return torch.special.digamma(input_tensor)

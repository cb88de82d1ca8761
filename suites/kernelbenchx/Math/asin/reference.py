"""Reference for Math/asin.py: elementwise inverse sine."""

import torch


def asin(input_tensor):
    return torch.asin(input_tensor)

"""Reference for Math/cos.py: elementwise cosine."""

import torch


def cos(input_tensor):
    return torch.cos(input_tensor)

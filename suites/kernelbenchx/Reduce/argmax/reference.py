"""Reference for Reduce/argmax.py: index of the first maximum along one dimension."""

import torch


def argmax(input_tensor, dim, keepdim=False):
    return torch.argmax(input_tensor, dim=dim, keepdim=keepdim)

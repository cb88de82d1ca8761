"""Reference for Activation/sigmoid.py: elementwise logistic function 1 / (1 + exp(-x))."""

import torch


def sigmoid(input, out=None):
    # torch.sigmoid (the same kernel as torch.special.expit) is the fused eager op.
    return torch.sigmoid(input, out=out)

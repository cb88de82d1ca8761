"""Reference for Activation/combined_activation.py: tanh(sigmoid(input @ weight1)) * weight2 + bias."""

import torch


def combined_activation(input, weight1, weight2, bias, *, out=None):
    # Eager chain: matmul, sigmoid, tanh, then a fused multiply-add with broadcasting.
    act = torch.tanh(torch.sigmoid(torch.mm(input, weight1)))
    return torch.addcmul(bias, act, weight2, out=out)

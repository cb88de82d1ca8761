"""Reference for Activation/leaky_relu.py: x if x >= 0 else negative_slope * x, optionally in place."""

import torch.nn.functional as F


def leaky_relu(input, negative_slope=0.01, inplace=False):
    # F.leaky_relu is the fused eager op; with inplace=True it writes into `input` and returns it.
    return F.leaky_relu(input, negative_slope=negative_slope, inplace=inplace)

"""Reference for Fusion/fused_sigmoid_adaptive_avg_pool2d.py: sigmoid of a 2-D adaptive average pool."""

import torch
import torch.nn.functional as F


def fused_sigmoid_adaptive_avg_pool2d(input, output_size):
    # PyTorch's adaptive average pool, then an eager sigmoid.
    return torch.sigmoid(F.adaptive_avg_pool2d(input, output_size))

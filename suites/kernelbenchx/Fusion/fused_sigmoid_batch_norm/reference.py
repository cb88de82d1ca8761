"""Reference for Fusion/fused_sigmoid_batch_norm.py: sigmoid of batch normalization (running stats updated in training)."""

import torch
import torch.nn.functional as F


def fused_sigmoid_batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-05):
    # PyTorch's batch norm (which updates the running statistics in place when training), then an eager sigmoid.
    y = F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    return torch.sigmoid(y)

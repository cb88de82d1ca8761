"""Reference for Fusion/fused_relu_conv2d.py: ReLU of a 2-D convolution."""

import torch
import torch.nn.functional as F


def fused_relu_conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, inplace=False):
    # PyTorch's convolution, then ReLU (in place on the fresh convolution output when asked; the inputs are never touched).
    return F.relu(F.conv2d(input, weight, bias, stride, padding, dilation, groups), inplace=inplace)

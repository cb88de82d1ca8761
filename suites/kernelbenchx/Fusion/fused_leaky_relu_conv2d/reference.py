"""Reference for Fusion/fused_leaky_relu_conv2d.py: 2-D convolution followed by leaky ReLU."""

import torch
import torch.nn.functional as F


def fused_leaky_relu_conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                            negative_slope=0.01, inplace=False):
    # cuDNN convolution, then leaky ReLU (in place on the fresh convolution output if asked).
    y = F.conv2d(input, weight, bias, stride, padding, dilation, groups)
    return F.leaky_relu(y, negative_slope, inplace)

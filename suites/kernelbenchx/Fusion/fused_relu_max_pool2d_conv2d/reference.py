"""Reference for Fusion/fused_relu_max_pool2d_conv2d.py: 2-D convolution, then 2-D max pooling, then ReLU."""

import torch
import torch.nn.functional as F


def fused_relu_max_pool2d_conv2d(input, weight, bias=None, conv_stride=1, conv_padding=0, conv_dilation=1, conv_groups=1,
                                 pool_kernel_size=2, pool_stride=None, pool_padding=0, pool_dilation=1, pool_ceil_mode=False,
                                 inplace=False):
    y = F.conv2d(input, weight, bias, conv_stride, conv_padding, conv_dilation, conv_groups)
    y = F.max_pool2d(y, pool_kernel_size, pool_stride, pool_padding, pool_dilation, ceil_mode=pool_ceil_mode)
    return F.relu(y, inplace=inplace)

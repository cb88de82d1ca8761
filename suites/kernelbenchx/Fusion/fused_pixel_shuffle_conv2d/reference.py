"""Reference for Fusion/fused_pixel_shuffle_conv2d.py: 2-D convolution followed by a pixel shuffle."""

import torch
import torch.nn.functional as F


def fused_pixel_shuffle_conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, upscale_factor=2):
    return F.pixel_shuffle(F.conv2d(input, weight, bias, stride, padding, dilation, groups), upscale_factor)

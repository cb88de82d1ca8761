"""Reference for Convolution/conv2d.py: NCHW 2-D convolution (cross-correlation) with optional bias."""

import torch.nn.functional as F


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    # F.conv2d is the eager op KernelBench-X measures against; ints are widened to (h, w) pairs.
    return F.conv2d(input, weight, bias, _pair(stride), _pair(padding), _pair(dilation), groups)

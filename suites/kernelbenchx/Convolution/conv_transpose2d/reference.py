"""Reference for Convolution/conv_transpose2d.py: NCHW 2-D transposed convolution with optional bias."""

import torch.nn.functional as F


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    # F.conv_transpose2d is the eager op KernelBench-X measures against; ints widen to (h, w) pairs.
    return F.conv_transpose2d(input, weight, bias, _pair(stride), _pair(padding), _pair(output_padding), groups,
                              _pair(dilation))

"""Reference for Fusion/fused_gelu_conv2d.py: 2-D convolution followed by GELU."""

import torch
import torch.nn.functional as F


def fused_gelu_conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                      approximate='none', out=None):
    # cuDNN convolution, then PyTorch's GELU kernel (erf form, or the tanh approximation).
    y = F.conv2d(input, weight, bias, stride, padding, dilation, groups)
    result = F.gelu(y, approximate=approximate)
    if out is not None:
        return out.copy_(result)
    return result

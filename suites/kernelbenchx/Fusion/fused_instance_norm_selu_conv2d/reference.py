"""Reference for Fusion/fused_instance_norm_selu_conv2d.py: convolution, SELU, then instance norm."""

import torch
import torch.nn.functional as F


def fused_instance_norm_selu_conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                                    num_features=None, eps=1e-05, momentum=0.1, affine=False,
                                    track_running_stats=False):
    # Three eager kernels: cuDNN convolution, SELU, and instance normalization without
    # learnable parameters or running statistics (num_features, affine and
    # track_running_stats do not change the result).
    y = F.conv2d(input, weight, bias, stride, padding, dilation, groups)
    y = F.selu(y)
    return F.instance_norm(y, eps=eps, momentum=momentum)


def ramp_image(gen, device, shape, slope=1.0):
    """randn plus slope * (h + 2 w): with mostly positive weights the convolution outputs of one
    channel differ clearly across positions, so normalizing over a 2x2 map stays well conditioned."""
    n, c, h, w = shape
    x = torch.randn(n, c, h, w, generator=gen)
    hh = torch.arange(h, dtype=torch.float32).view(1, 1, h, 1)
    ww = torch.arange(w, dtype=torch.float32).view(1, 1, 1, w)
    return (x + slope * (hh + 2 * ww)).to(device)

"""Reference for Fusion/fused_silu_layer_norm_conv2d.py: conv2d, layer norm over (C, H, W), per-channel scale, SiLU."""

import torch
import torch.nn.functional as F


def fused_silu_layer_norm_conv2d(x, weight, conv_weight, conv_bias=None, conv_stride=1, conv_padding=0,
                                 conv_dilation=1, conv_groups=1, ln_eps=1e-05):
    y = F.conv2d(x, conv_weight, conv_bias, conv_stride, conv_padding, conv_dilation, conv_groups)
    # Normalize each sample over all of its output channels and positions (no affine part here) ...
    y = F.layer_norm(y, y.shape[1:], eps=ln_eps)
    # ... then scale each output channel by weight[c] when a weight is given.
    if weight is not None:
        y = y * weight.view(1, -1, 1, 1)
    return F.silu(y)


def upstream_reference(x, weight, conv_weight, conv_bias=None, conv_stride=1, conv_padding=0,
                       conv_dilation=1, conv_groups=1, ln_eps=1e-05):
    # KernelBench-X's public reference: the same pipeline with `weight` ignored.
    y = F.conv2d(x, conv_weight, conv_bias, conv_stride, conv_padding, conv_dilation, conv_groups)
    return F.silu(F.layer_norm(y, y.shape[1:], eps=ln_eps))

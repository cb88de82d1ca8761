"""Reference for Fusion/fused_relu_batch_norm_conv2d.py: 2-D convolution, batch normalization, then ReLU."""

import torch
import torch.nn.functional as F


def fused_relu_batch_norm_conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, running_mean=None,
                                 running_var=None, bn_weight=None, bn_bias=None, training=False, momentum=0.1, eps=1e-05,
                                 inplace=False):
    y = F.conv2d(input, weight, bias, stride, padding, dilation, groups)
    # In training mode F.batch_norm normalises with the batch statistics and updates running_mean / running_var in place.
    y = F.batch_norm(y, running_mean, running_var, bn_weight, bn_bias, training, momentum, eps)
    return F.relu(y, inplace=inplace)

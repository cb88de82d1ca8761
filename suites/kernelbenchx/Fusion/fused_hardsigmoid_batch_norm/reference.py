"""Reference for Fusion/fused_hardsigmoid_batch_norm.py: batch normalization, then hardsigmoid."""

import torch
import torch.nn.functional as F


def fused_hardsigmoid_batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False,
                                 momentum=0.1, eps=1e-05, inplace=False):
    # torch's batch_norm kernel (which also updates the running statistics in place when
    # training), then hardsigmoid = clamp(y / 6 + 1/2, 0, 1).
    y = F.batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps)
    return F.hardsigmoid(y, inplace=inplace)

"""Reference for Fusion/fused_cos_avg_pool1d.py: avg_pool1d of cos(input)."""

import torch
import torch.nn.functional as F


def fused_cos_avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return F.avg_pool1d(torch.cos(input), kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode,
                        count_include_pad=count_include_pad)

"""Reference for Pooling/avg_pool1d.py: 1-D average pooling with zero padding counted in the mean."""

import torch.nn.functional as F


def avg_pool1d(input, kernel_size, stride=None, padding=0):
    # stride=None means stride == kernel_size; ceil_mode=False and count_include_pad=True are the defaults.
    return F.avg_pool1d(input, kernel_size, stride, padding)

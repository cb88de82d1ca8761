"""Reference for SpatialOps/interpolate.py: nearest, (bi)linear, bicubic or area resampling."""

import torch.nn.functional as F


def interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None):
    return F.interpolate(input, size=size, scale_factor=scale_factor, mode=mode, align_corners=align_corners)

"""Reference for Pooling/adaptive_avg_pool2d.py: 2-D adaptive average pooling over the last two dims."""

import torch.nn.functional as F


def adaptive_avg_pool2d(input, output_size):
    # The eager op KernelBench-X measures against; it accepts (C, H, W) and (N, C, H, W) inputs.
    return F.adaptive_avg_pool2d(input, output_size)

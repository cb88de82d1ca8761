"""Reference for Fusion/fused_pairwise_distance_adaptive_avg_pool2d.py:
per-sample p-norm distance between adaptively average-pooled feature maps, plus eps."""

import torch
import torch.nn.functional as F


def fused_pairwise_distance_adaptive_avg_pool2d(x1, x2, output_size, p=2.0, eps=1e-06, keepdim=False):
    a = F.adaptive_avg_pool2d(x1, output_size)
    b = F.adaptive_avg_pool2d(x2, output_size)
    dist = torch.linalg.vector_norm(a - b, ord=p, dim=(1, 2, 3), keepdim=keepdim)
    return dist + eps

"""Reference for Fusion/fused_avg_pool2d_cosine_similarity.py: avg_pool2d of the channel-wise cosine similarity."""

import torch.nn.functional as F


def fused_avg_pool2d_cosine_similarity(x1, x2, kernel_size, stride=None, padding=0, eps=1e-08):
    c = F.cosine_similarity(x1, x2, dim=1, eps=eps).unsqueeze(1)
    return F.avg_pool2d(c, kernel_size, stride=stride, padding=padding)

"""Reference for Fusion/fused_mv_sigmoid_sub.py: sigmoid(input @ vec) - alpha * other."""

import torch


def fused_mv_sigmoid_sub(input, vec, other, alpha=1, *, out=None):
    s = torch.sigmoid(torch.mv(input, vec))
    return torch.sub(s, other, alpha=alpha, out=out)

"""Reference for Fusion/fused_softmax_log.py: softmax of log(input) along one dimension."""

import torch


def fused_softmax_log(input, dim=-1, dtype=None):
    # Unfused eager ops: optional cast, elementwise log, then PyTorch's softmax.
    x = input if dtype is None else input.to(dtype)
    return torch.softmax(torch.log(x), dim=dim)

"""Reference for Fusion/fused_cross_entropy_log_softmax.py: cross_entropy of log_softmax(input, dim)."""

import torch
import torch.nn.functional as F


def fused_cross_entropy_log_softmax(input, target, dim=1, weight=None, ignore_index=-100, reduction='mean',
                                    label_smoothing=0.0):
    # cross_entropy normalises over dim 1 itself, and log_softmax is idempotent there: skip the redundant pass.
    class_dim = 1 if input.dim() > 1 else 0
    logp = input if dim % max(input.dim(), 1) == class_dim else F.log_softmax(input, dim=dim)
    return F.cross_entropy(logp, target, weight=weight, ignore_index=ignore_index, reduction=reduction,
                           label_smoothing=label_smoothing)


def probabilities(gen, device, n, c):
    """An (n, c) float32 target whose rows are probability vectors."""
    return torch.softmax(torch.randn(n, c, generator=gen), dim=1).to(device)

"""Reference for Loss/binary_cross_entropy.py: binary cross-entropy of probabilities, logs clamped at -100."""

import torch
import torch.nn.functional as F


def binary_cross_entropy(input, target, weight=None, reduction='mean'):
    # F.binary_cross_entropy clamps both logs at -100 and applies the weight before reducing.
    return F.binary_cross_entropy(input, target, weight=weight, reduction=reduction)


def probabilities(gen, device, shape, outlier_p=0.0, outlier_scale=1.0):
    """sigmoid(randn) probabilities; with outlier_p, that fraction of logits is scaled first."""
    shape = [int(s) for s in shape]
    logits = torch.randn(shape, generator=gen, dtype=torch.float32)
    if outlier_p > 0:
        hit = torch.rand(shape, generator=gen, dtype=torch.float64) < outlier_p
        logits = torch.where(hit, logits * outlier_scale, logits)
    return torch.sigmoid(logits).to(device)

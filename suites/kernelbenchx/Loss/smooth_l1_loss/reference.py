"""Reference for Loss/smooth_l1_loss.py: quadratic below beta, linear above, then reduced."""

import torch.nn.functional as F


def smooth_l1_loss(input, target, beta=1.0, reduction='mean'):
    # F.smooth_l1_loss is the fused eager op (beta = 0 falls back to L1).
    return F.smooth_l1_loss(input, target, reduction=reduction, beta=beta)

"""Reference for Optimizer/RMSProp.py: one in-place RMSProp step (no momentum, not centered)."""

import torch


def rmsprop_step(param, grad, square_avg, lr=0.01, alpha=0.99, eps=1e-08, weight_decay=0.0):
    g = grad.add(param, alpha=weight_decay) if weight_decay != 0 else grad
    # Running mean of the squared gradient, in place.
    square_avg.mul_(alpha).addcmul_(g, g, value=1.0 - alpha)
    param.addcdiv_(g, square_avg.sqrt().add_(eps), value=-lr)
    return param, square_avg

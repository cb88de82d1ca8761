"""Reference for Optimizer/Lion.py: one in-place Lion step (sign of an interpolated momentum)."""

import torch


def lion_step(param, grad, exp_avg, lr=0.0001, beta1=0.9, beta2=0.99, weight_decay=0.0):
    # The update direction uses the momentum interpolated with beta1 (a new tensor) ...
    direction = torch.lerp(grad, exp_avg, beta1).sign_()
    if weight_decay != 0:
        param.mul_(1.0 - lr * weight_decay)
    param.add_(direction, alpha=-lr)
    # ... while the stored momentum is interpolated with beta2, in place.
    exp_avg.lerp_(grad, 1.0 - beta2)
    return param, exp_avg

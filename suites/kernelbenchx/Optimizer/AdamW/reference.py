"""Reference for Optimizer/AdamW.py: one in-place AdamW step (decoupled weight decay, bias correction)."""

import math

import torch


def adamw_step(param, grad, exp_avg, exp_avg_sq, step, lr=0.001, beta1=0.9, beta2=0.999, eps=1e-08,
               weight_decay=0.01):
    # Decoupled weight decay acts on the parameter before the Adam update.
    param.mul_(1.0 - lr * weight_decay)
    exp_avg.lerp_(grad, 1.0 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1.0 - beta2)
    bias1 = 1.0 - beta1 ** step
    bias2 = 1.0 - beta2 ** step
    denom = exp_avg_sq.sqrt().div_(math.sqrt(bias2)).add_(eps)
    param.addcdiv_(exp_avg, denom, value=-lr / bias1)
    return param, exp_avg, exp_avg_sq

"""Reference for Optimizer/SGD.py: one in-place SGD step with optional weight decay, momentum and Nesterov."""

import torch


def sgd_step(param, grad, momentum_buffer=None, lr=0.1, momentum=0.9, weight_decay=0.0, dampening=0.0,
             nesterov=False):
    step = grad.add(param, alpha=weight_decay)  # a new tensor: grad itself is left untouched
    if momentum > 0:
        if momentum_buffer is None:
            momentum_buffer = torch.zeros_like(param)
        momentum_buffer.mul_(momentum).add_(step, alpha=1.0 - dampening)
        step = step.add(momentum_buffer, alpha=momentum) if nesterov else momentum_buffer
    else:
        momentum_buffer = None
    param.add_(step, alpha=-lr)
    return param, momentum_buffer

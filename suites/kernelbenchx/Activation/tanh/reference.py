"""Reference for Activation/tanh.py: elementwise hyperbolic tangent."""

import torch


def tanh(input_tensor, out_tensor=None):
    # torch.tanh is the fused eager op; `out_tensor` receives the result when given.
    return torch.tanh(input_tensor, out=out_tensor)

"""Reference for Fusion/fused_layer_norm_relu_linear.py: linear layer, ReLU, then layer norm."""

import torch
import torch.nn.functional as F


def fused_layer_norm_relu_linear(input, weight, bias=None, normalized_shape=None, eps=1e-05,
                                 elementwise_affine=True):
    # Three eager kernels: the linear layer (cuBLAS), ReLU, and layer_norm over the trailing
    # `normalized_shape` dimensions. The affine step of a freshly initialised LayerNorm is the
    # identity (weight 1, bias 0), so elementwise_affine does not change the result.
    y = F.relu(F.linear(input, weight, bias))
    if normalized_shape is None:
        normalized_shape = (y.shape[-1],)
    elif isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    return F.layer_norm(y, tuple(normalized_shape), eps=eps)

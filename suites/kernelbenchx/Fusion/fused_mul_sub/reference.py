"""Reference for Fusion/fused_mul_sub.py: input * other_mul - alpha * other_sub."""

import torch


def fused_mul_sub(input, other_mul, other_sub, alpha=1, out=None):
    # Two eager ops (multiply, then torch.sub with alpha); with three Python numbers the
    # arithmetic is plain Python and returns a float.
    if not any(isinstance(v, torch.Tensor) for v in (input, other_mul, other_sub)):
        return input * other_mul - alpha * other_sub
    product = torch.mul(input, other_mul)
    result = torch.sub(product, other_sub, alpha=alpha)
    if out is not None:
        return out.copy_(result)
    return result

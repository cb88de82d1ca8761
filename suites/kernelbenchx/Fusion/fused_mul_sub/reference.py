"""Reference for Fusion/fused_mul_sub.py: input * other_mul - alpha * other_sub."""

import torch


def fused_mul_sub(input, other_mul, other_sub, alpha=1, out=None):
    prod = input * other_mul
    if not isinstance(prod, torch.Tensor):
        # all three operands are Python numbers: plain arithmetic, a Python number comes back
        return prod - alpha * other_sub
    return torch.sub(prod, other_sub, alpha=alpha, out=out)

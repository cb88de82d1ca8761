"""Reference for Fusion/fused_add_mul_groupnorm.py: group_norm((input1 + input2) * input2)."""

import torch
import torch.nn.functional as F


def fused_add_mul_groupnorm(input1, input2, weight, bias, num_groups, eps=1e-05, *, out=None):
    m = torch.add(input1, input2).mul_(input2)  # one temporary, multiplied in place
    y = F.group_norm(m, num_groups, weight, bias, eps)
    if out is not None:
        return out.copy_(y)
    return y

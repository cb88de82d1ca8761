"""Reference for Fusion/fused_masked_select_add_gelu.py: masked_select, add alpha * other, GELU."""

import torch
import torch.nn.functional as F


def fused_masked_select_add_gelu(input, mask, other, *, alpha=1, approximate='none', out=None):
    # Three eager kernels: masked_select (row-major order, 1-D result), add with alpha, GELU.
    selected = torch.masked_select(input, mask)
    s = torch.add(selected, other, alpha=alpha)
    result = F.gelu(s, approximate=approximate)
    if out is not None:
        if out.shape != result.shape:
            out.resize_(result.shape)
        return out.copy_(result)
    return result

"""Reference for Fusion/fused_hstack_div.py: horizontal stack, then division."""

import torch


def fused_hstack_div(tensors, divisor, *, rounding_mode=None, out=None):
    # torch.hstack (concatenation along dim 1, or dim 0 for 1-D tensors), then torch.div.
    stacked = torch.hstack(tensors)
    result = torch.div(stacked, divisor, rounding_mode=rounding_mode)
    if out is not None:
        return out.copy_(result)
    return result

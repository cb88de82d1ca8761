"""Reference for Fusion/fused_repeat_interleave_log_softmax.py: repeat_interleave, then log_softmax along the same dim."""

import torch


def fused_repeat_interleave_log_softmax(input, repeats, dim=None, *, output_size=None, dtype=None, out=None):
    r = torch.repeat_interleave(input, repeats, dim=dim, output_size=output_size)
    # With dim=None the repeated tensor is flat (1-D), so the log-softmax runs over its only dimension.
    result = torch.log_softmax(r, dim=0 if dim is None else dim, dtype=dtype)
    if out is not None:
        return out.copy_(result)
    return result

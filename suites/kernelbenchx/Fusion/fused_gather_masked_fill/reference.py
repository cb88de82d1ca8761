"""Reference for Fusion/fused_gather_masked_fill.py: gather along a dimension, then masked_fill."""

import torch


def fused_gather_masked_fill(input, dim, index, mask, value, *, sparse_grad=False, out=None):
    # Two eager ops: torch.gather picks input[..., index[i][j], ...] along `dim`; masked_fill
    # then overwrites the positions where `mask` is True with `value`.
    gathered = torch.gather(input, dim, index, sparse_grad=sparse_grad)
    result = gathered.masked_fill(mask, value)
    if out is not None:
        return out.copy_(result)
    return result

"""Reference for Fusion/fused_relu_sqrt.py: sqrt(max(x, 0)), optionally in place or into `out`."""

import torch


def fused_relu_sqrt(input, inplace=False, out=None):
    # Non-floating inputs are promoted to float32 first; float32/float64 are used as they are.
    x = input if input.dtype in (torch.float32, torch.float64) else input.to(torch.float32)
    if inplace:
        # In-place: the (possibly promoted) tensor itself is rectified and square-rooted.
        return torch.sqrt_(torch.relu_(x))
    result = torch.sqrt(torch.relu(x))
    if out is not None:
        return out.copy_(result)
    return result

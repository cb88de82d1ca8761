"""Reference for SpatialOps/grid_sample.py: interpolated sampling of an image or volume at normalised grid points."""

import torch
import torch.nn.functional as F

_MODES = ("bilinear", "nearest")
_PADDING_MODES = ("zeros", "border", "reflection")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=False):
    if not isinstance(input, torch.Tensor) or not isinstance(grid, torch.Tensor):
        raise TypeError("grid_sample: input and grid must be tensors")
    if mode not in _MODES:
        raise ValueError(f"grid_sample: mode must be one of {_MODES}, got {mode!r}")
    if padding_mode not in _PADDING_MODES:
        raise ValueError(f"grid_sample: padding_mode must be one of {_PADDING_MODES}, got {padding_mode!r}")
    return F.grid_sample(input, grid, mode=mode, padding_mode=padding_mode, align_corners=align_corners)

"""Reference for Reduce/min.py: minimum values and first-occurrence indices along one dimension."""

import torch


def min(input_tensor, dim, keepdim=False):  # noqa: A001 - the task's entry name shadows the builtin
    values, indices = torch.min(input_tensor, dim=dim, keepdim=keepdim)
    return values, indices

"""Reference for Reduce/sum.py: sum over one or more dimensions, optionally in another dtype."""

import torch


def sum(input, dim, keepdim=False, dtype=None):  # noqa: A001 - the task's entry name shadows the builtin
    return torch.sum(input, dim, keepdim=keepdim, dtype=dtype)

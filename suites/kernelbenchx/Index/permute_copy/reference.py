"""Reference for Index/permute_copy.py: a contiguous copy of a permuted tensor."""

import torch


def permute_copy(input, dims):
    # torch.permute_copy materialises the permutation into a fresh contiguous tensor.
    return torch.permute_copy(input, dims)

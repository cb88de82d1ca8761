"""Reference for Fusion/fused_embedding_add_tanh.py: tanh(embedding(indices, weight) + other)."""

import torch
import torch.nn.functional as F


def fused_embedding_add_tanh(input_indices, weight, other, *, padding_idx=None, max_norm=None, norm_type=2.0,
                             scale_grad_by_freq=False, sparse=False, out=None):
    # With max_norm, F.embedding rescales the referenced rows of `weight` in place before the lookup.
    e = F.embedding(input_indices, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse)
    result = torch.tanh(e + other)
    if out is not None:
        return out.copy_(result)
    return result

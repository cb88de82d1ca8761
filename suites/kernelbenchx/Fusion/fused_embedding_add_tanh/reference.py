"""Reference for Fusion/fused_embedding_add_tanh.py: tanh(embedding(indices, weight) + other)."""

import torch
import torch.nn.functional as F


def fused_embedding_add_tanh(input_indices, weight, other, *, padding_idx=None, max_norm=None, norm_type=2.0,
                             scale_grad_by_freq=False, sparse=False, out=None):
    if max_norm is not None:
        _renorm_rows(input_indices, weight, float(max_norm), float(norm_type))
    e = F.embedding(input_indices, weight, padding_idx, None, norm_type, scale_grad_by_freq, sparse)
    result = torch.tanh(e + other)
    if out is not None:
        return out.copy_(result)
    return result


def _renorm_rows(indices, weight, max_norm, norm_type):
    """What F.embedding's max_norm does, as torch's CPU embedding_renorm_ does it: each distinct row
    of `weight` that `indices` references, whose norm_type-norm exceeds max_norm, is rescaled in
    place by max_norm / (norm + 1e-7). Not F.embedding itself: torch's CUDA renorm kernel sums
    pow(w, norm_type) without the absolute value, so any norm_type other than 1 and 2 comes out
    wrong on a GPU (inf: every norm reads 1, so rows are scaled whenever max_norm < 1, never
    otherwise; 3: negative entries subtract)."""
    with torch.no_grad():
        rows = torch.unique(indices.reshape(-1))
        if rows.numel() == 0:
            return
        picked = weight.index_select(0, rows)
        norms = torch.linalg.vector_norm(picked, ord=norm_type, dim=1).double()
        scale = torch.where(norms > max_norm, max_norm / (norms + 1e-7), torch.ones_like(norms))
        weight.index_copy_(0, rows, picked * scale.to(weight.dtype).unsqueeze(1))

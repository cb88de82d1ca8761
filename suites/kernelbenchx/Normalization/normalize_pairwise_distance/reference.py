"""Reference for Normalization/normalize_pairwise_distance.py: row-wise p-distances, then p-normalised along a dim."""

import torch


def normalize_pairwise_distance(x1, x2, p_distance=2.0, eps_distance=1e-06, keepdim=False, p_norm=2, dim_norm=1,
                                eps_norm=1e-12):
    # eps_distance is added to the distance itself (not to the difference, unlike F.pairwise_distance).
    d = torch.linalg.vector_norm(x1 - x2, ord=p_distance, dim=-1, keepdim=keepdim) + eps_distance
    scale = torch.linalg.vector_norm(d, ord=p_norm, dim=dim_norm, keepdim=True).clamp_min(eps_norm)
    return d / scale

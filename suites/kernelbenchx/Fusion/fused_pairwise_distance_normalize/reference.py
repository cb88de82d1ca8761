"""Reference for Fusion/fused_pairwise_distance_normalize.py: p-norm distances between row-normalized vectors."""

import torch
import torch.nn.functional as F


def fused_pairwise_distance_normalize(x1, x2, p_norm=2.0, eps_norm=1e-12, eps_distance=1e-06, keepdim=False):
    # Each row scaled to unit p-norm (its norm floored at eps_norm), then every row of x1 against every row of x2.
    a = F.normalize(x1, p=p_norm, dim=-1, eps=eps_norm)
    b = F.normalize(x2, p=p_norm, dim=-1, eps=eps_norm)
    # Direct differences (no |a|^2 + |b|^2 - 2ab expansion), so distances near 0 keep their accuracy.
    d = torch.cdist(a, b, p=p_norm, compute_mode="donot_use_mm_for_euclid_dist")
    d = d.clamp_min(eps_distance)
    return d.unsqueeze(-1) if keepdim else d

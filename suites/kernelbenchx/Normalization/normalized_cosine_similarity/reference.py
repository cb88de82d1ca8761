"""Reference for Normalization/normalized_cosine_similarity.py: p-normalise both inputs, then cosine similarity."""

import torch.nn.functional as F


def normalized_cosine_similarity(x1, x2, dim=1, eps_similarity=1e-08, p_norm=2, eps_norm=1e-12):
    a = F.normalize(x1, p=p_norm, dim=dim, eps=eps_norm)
    b = F.normalize(x2, p=p_norm, dim=dim, eps=eps_norm)
    return F.cosine_similarity(a, b, dim=dim, eps=eps_similarity)

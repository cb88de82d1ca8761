"""Reference for Normalization/spectral_norm_eig.py: spectral radius (largest |eigenvalue|) of square matrices."""

import torch


def spectral_norm_eig(A, *, out=None):
    # Eigenvalues of a general real matrix are complex; their largest modulus is real.
    radius = torch.linalg.eigvals(A).abs().amax(dim=-1)
    if out is not None:
        out.copy_(radius)
        return out
    return radius


def fixed_matrix(gen, device, values):
    """A float32 matrix with the given rows (no randomness; `gen` is unused)."""
    return torch.tensor(values, dtype=torch.float32).to(device)

"""Reference for SpatialOps/grid_sample_with_affine.py: affine_grid from theta, then grid_sample."""

import math

import torch
import torch.nn.functional as F


def grid_sample_with_affine(input, theta, size, mode='bilinear', padding_mode='zeros', align_corners=False):
    grid = F.affine_grid(theta.to(input.dtype), list(size), align_corners=align_corners)
    return F.grid_sample(input, grid, mode=mode, padding_mode=padding_mode, align_corners=align_corners)


def integer_theta(gen, device, n):
    """int64 (n, 2, 3): a signed axis permutation plus an integer translation in {-1, 0, 1}."""
    theta = torch.zeros(n, 2, 3, dtype=torch.int64)
    for b in range(n):
        swap = bool(torch.randint(0, 2, (1,), generator=gen))
        signs = torch.randint(0, 2, (2,), generator=gen) * 2 - 1
        shift = torch.randint(-1, 2, (2,), generator=gen)
        cols = (1, 0) if swap else (0, 1)
        for r in range(2):
            theta[b, r, cols[r]] = signs[r]
            theta[b, r, 2] = shift[r]
    return theta.to(device)


def affine_theta(gen, device, n):
    """float32 (n, 2, 3): rotation, anisotropic scale in [0.7, 1.3], shear and a small translation."""
    u = torch.rand(n, 6, generator=gen, dtype=torch.float64)
    angle = (u[:, 0] - 0.5) * 2 * math.pi
    sx, sy = 0.7 + 0.6 * u[:, 1], 0.7 + 0.6 * u[:, 2]
    shear = (u[:, 3] - 0.5) * 0.6
    tx, ty = (u[:, 4] - 0.5) * 0.6, (u[:, 5] - 0.5) * 0.6
    c, s = torch.cos(angle), torch.sin(angle)
    a = torch.stack([torch.stack([c * sx, -s * sy + shear * c * sx, tx], -1),
                     torch.stack([s * sx, c * sy + shear * s * sx, ty], -1)], 1)
    return a.to(torch.float32).to(device)

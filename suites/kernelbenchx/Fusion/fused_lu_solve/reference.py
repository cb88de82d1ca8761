"""Reference for Fusion/fused_lu_solve.py: solve A x = b through an LU factorization with pivoting."""

import torch


def fused_lu_solve(A, b):
    # torch.linalg.solve factors P A = L U (partial pivoting, LAPACK getrf / cuSOLVER) and runs
    # the two triangular solves; a singular A raises torch.linalg.LinAlgError.
    return torch.linalg.solve(A, b)


def pivoted_matrix(gen, device, n):
    """A well-conditioned n x n float32 matrix whose LU needs row exchanges: randn + n*I with
    its rows permuted (never the identity permutation)."""
    m = torch.randn(n, n, generator=gen, dtype=torch.float64) + n * torch.eye(n, dtype=torch.float64)
    perm = torch.randperm(n, generator=gen)
    if torch.equal(perm, torch.arange(n)):
        perm = torch.roll(perm, 1)
    return m[perm].float().to(device)


def singular_matrix(gen, device, n):
    """An exactly singular n x n float32 matrix: randn with its last column zero. Every elimination
    step leaves a zero column zero (0 - m * 0), so its pivot is exactly 0 on any device and in any
    order of operations; a repeated row is not: a GPU solver that divides by multiplying with a
    rounded reciprocal leaves a tiny nonzero pivot and returns instead of raising."""
    m = torch.randn(n, n, generator=gen)
    m[:, -1] = 0
    return m.to(device)


def upstream_reference(A, b):
    """What the public reference computes: it drops P and solves (L U) x = b."""
    P, L, U = torch.linalg.lu(A)
    return torch.linalg.solve(L @ U, b)

"""Reference for Math/chebyshev_polynomial_t.py: Chebyshev polynomial of the first kind T_n(x)."""

import torch


def chebyshev_polynomial_t(input, n, out=None):  # noqa: A002 - upstream's parameter name
    return torch.special.chebyshev_polynomial_t(input, n, out=out)

"""Reference for Random/logspace.py: `steps` powers of `base` with evenly spaced exponents (not random)."""

import torch


def logspace(start, end, steps, base=10.0, dtype=None, layout=torch.strided, device=None, requires_grad=False):
    return torch.logspace(start, end, steps, base=base, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)

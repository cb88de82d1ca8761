"""Reference for Index/masked_select.py: the elements of a tensor where a broadcast bool mask is True."""

import torch


def masked_select(input, mask):
    # torch.masked_select broadcasts input and mask and compacts in row-major order.
    return torch.masked_select(input, mask)


def mixed_mask(gen, device, shape):
    """A Bernoulli(0.5) bool mask whose first entry is True and last entry False."""
    m = torch.rand(shape, generator=gen, dtype=torch.float64) < 0.5
    flat = m.view(-1)
    flat[0], flat[-1] = True, False
    return m.to(device)


def alternating_mask(gen, device, n):
    """The perf mask: True at even positions (arange(n) % 2 == 0); draws nothing."""
    return torch.arange(n, device=device) % 2 == 0

"""Reference for Math/signbit_bitwise_and.py: the pair (signbit(input), int8(input) & int8(other))."""

import torch


def signbit_bitwise_and(input, other):  # noqa: A002 - upstream's parameter name
    return torch.signbit(input), input.to(torch.int8) & other.to(torch.int8)


def signed_specials(gen, device):
    """Signed zeros, halves that truncate to zero, and values at the edge of the int8 range."""
    vals = [-0.0, 0.0, -0.5, 0.5, -127.9, 127.9, -3.0, 3.0]
    return torch.tensor(vals, dtype=torch.float32, device=device)

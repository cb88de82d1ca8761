"""Reference for Activation/gelu_int8.py: GELU of an int8 tensor, evaluated in float32 and truncated back to int8."""

import torch
import torch.nn.functional as F


def gelu_int8(input, approximate="none"):
    # Widen to float32, apply the fused eager GELU, and let the int8 cast truncate toward zero.
    return F.gelu(input.to(torch.float32), approximate=approximate).to(torch.int8)


def int8_values(gen, device, shape, low, high, avoid=(), ramp=False):
    """int8 tensor: randint in [low, high) (or the ramp low, low + 1, ...), with each value in
    `avoid` replaced by its negation. Used to keep x = 5 out of the tanh-form cases, where the
    float32 result 4.9999995 lies within one float32 ulp of 5 and a correct kernel may truncate
    to either 4 or 5."""
    n = 1
    for d in shape:
        n *= d
    if ramp:
        x = torch.arange(low, low + n, dtype=torch.int64).reshape(shape)
    else:
        x = torch.randint(low, high, tuple(shape), generator=gen, dtype=torch.int64)
    for v in avoid:
        x = torch.where(x == v, -v, x)
    return x.to(torch.int8).to(device)

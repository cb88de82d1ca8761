"""Reference for Math/div.py: true, truncating or flooring division with broadcasting."""

import torch


def div(input, other, rounding_mode=None, out=None):  # noqa: A002 - upstream's parameter name
    return torch.div(input, other, rounding_mode=rounding_mode, out=out)


def canonical_div(out, args, kwargs):
    """Floor mode: also accept floor of the correctly rounded quotient where it differs from torch's.

    torch (like Python's //) floors the exact quotient; floor(a / b) of the rounded quotient is one
    larger where a / b rounds up onto an integer. At exactly those elements an output equal to
    floor(a / b) is replaced by torch's value; every other element is returned unchanged.
    """
    rounding_mode = kwargs.get("rounding_mode", args[2] if len(args) > 2 else None)
    if rounding_mode != "floor" or not isinstance(out, torch.Tensor):
        return out
    a = args[0] if len(args) > 0 else kwargs["input"]
    b = args[1] if len(args) > 1 else kwargs["other"]
    a = torch.as_tensor(a, dtype=out.dtype).to(out.device)
    b = torch.as_tensor(b, dtype=out.dtype).to(out.device)
    exact = torch.div(a, b, rounding_mode="floor")
    rounded = torch.floor(a / b)
    accept = (exact != rounded) & (out == rounded)
    return torch.where(accept, exact, out)

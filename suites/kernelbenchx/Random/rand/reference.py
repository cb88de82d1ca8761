"""Reference for Random/rand.py: uniform samples on [0, 1), judged by range and distribution checks."""

import math

import torch

_Z = 6.0  # standard deviations allowed per statistic (two-sided tail about 2e-9)


def rand(*size, generator=None, out=None, dtype=None, layout=torch.strided, device=None,
         requires_grad=False, pin_memory=False):
    return torch.rand(*size, generator=generator, out=out, dtype=dtype, layout=layout, device=device,
                      requires_grad=requires_grad, pin_memory=pin_memory)


def canonical_rand(out, args, kwargs):
    """Pass/fail checks of a uniform [0, 1) sample; a correct generator passes all of them."""
    if not isinstance(out, torch.Tensor) or not out.is_floating_point():
        raise ValueError("rand must return a floating tensor")
    x = out.detach().reshape(-1).double()
    n = x.numel()
    if n == 0:
        return (True,)
    finite = bool(torch.isfinite(x).all())
    in_range = finite and bool(((x >= 0) & (x < 1)).all())
    if not in_range:
        return (False,) * (6 if n >= 1000 else 3)
    c = x - 0.5
    mean_ok = abs(c.mean().item()) <= _Z * math.sqrt(1.0 / (12 * n))
    var_ok = abs((c * c).mean().item() - 1.0 / 12) <= _Z * math.sqrt(1.0 / (180 * n))
    checks = [in_range, mean_ok, var_ok]
    if n >= 1000:
        counts = torch.histc(x, bins=16, min=0.0, max=1.0)
        sd = math.sqrt(n * (1 / 16) * (15 / 16))
        checks.append(bool(((counts - n / 16).abs() <= _Z * sd).all()))
        r = (c[:-1] * c[1:]).mean().item() * 12
        checks.append(abs(r) <= _Z / math.sqrt(n - 1))
        # at least 24 random bits per sample: fewer than 1% repeats (float16 or repeated samples fail)
        checks.append(n > 2 ** 20 or torch.unique(x).numel() >= 0.99 * n)
    return tuple(checks)

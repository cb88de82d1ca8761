"""Reference for Math/trunc.py: elementwise truncation toward zero."""

import torch


def trunc(input, out=None):  # noqa: A002 - upstream's parameter name
    return torch.trunc(input, out=out)


def rounding_specials(gen, device, n=64, noncontig=False):
    """[n] float32: the values a rounding kernel gets wrong when it goes through an integer type or a
    +0.5 trick, then random magnitudes from 1 to 2^40 (past int32's range) with random signs, shuffled.

    +-inf, NaN, +-0.0, +-2^31, +-3e9, +-1e20, +-3.4e38 (near float32's max), +-4194304.5 (a half at 2^22),
    +-16777216 (2^24), +-0.49999997 (the float just below 0.5), +-0.99999994, +-1e-40 (subnormal:
    its truncation is +-0 whether or not a kernel flushes it to zero, as Triton does on a GPU).
    """
    specials = [float("inf"), float("nan"), 0.0, 2.0 ** 31, 3e9, 1e20, 3.4e38, 4194304.5, 16777216.0,
                0.49999997, 0.99999994, 1e-40]
    vals = torch.tensor(specials + [-v for v in specials], dtype=torch.float32)
    rest = max(0, n - vals.numel())
    mags = torch.exp2(torch.rand(rest, generator=gen) * 40.0)
    signs = torch.where(torch.rand(rest, generator=gen) < 0.5, -1.0, 1.0)
    vals = torch.cat([vals, (mags * signs).to(torch.float32)])[:n]
    vals = vals[torch.randperm(vals.numel(), generator=gen)]
    if noncontig:
        wide = torch.zeros(2 * vals.numel(), dtype=torch.float32)
        wide[::2] = vals
        vals = wide[::2]
    return vals.to(device)

"""Reference for Fusion/fused_index_select_eq.py: index_select, then an elementwise equality test."""

import torch


def fused_index_select_eq(input, dim, index, other, *, out=None):
    # torch.index_select gathers whole slices along `dim`; torch.eq compares them with `other`.
    selected = torch.index_select(input, dim, index)
    result = torch.eq(selected, other)
    if out is not None:
        return out.copy_(result)
    return result


def levels(gen, device, shape, base=1000.0, step=0.0078125, count=3, noncontig=False):
    """float32 values base + step * k, k uniform in [0, count): equal draws compare equal, and
    neighbouring levels differ by far less than a float16/bfloat16 ulp at `base`."""
    k = torch.randint(0, count, shape, generator=gen)
    x = (base + step * k.double()).float()
    if noncontig:
        wide = torch.empty(*shape[:-1], 2 * shape[-1], dtype=x.dtype)
        wide[..., ::2] = x
        x = wide[..., ::2]
    return x.to(device)

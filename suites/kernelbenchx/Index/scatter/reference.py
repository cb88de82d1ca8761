"""Reference for Index/scatter.py: out-of-place scatter of src into a copy of input along dim."""

import torch


def scatter(input, dim, index, src):
    # torch.scatter copies input once and writes src through index.
    return torch.scatter(input, dim, index, src)


def unique_index(gen, device, shape, dim, size, noncontig=False):
    """An int64 index of `shape` whose lines along `dim` hold distinct values in [0, size).

    Each line is a random prefix of a random permutation, so no output element is written twice.
    With noncontig, the index is delivered as every other element of a buffer twice as wide.
    """
    shape = [int(s) for s in shape]
    d = dim % len(shape)
    lines = shape[:d] + shape[d + 1:]
    keys = torch.rand(lines + [int(size)], generator=gen, dtype=torch.float64)
    idx = keys.argsort(dim=-1)[..., : shape[d]].movedim(-1, d).contiguous()
    if noncontig:
        wide = torch.zeros(shape[:-1] + [2 * shape[-1]], dtype=torch.int64)
        wide[..., ::2] = idx
        idx = wide[..., ::2]
    return idx.to(device)

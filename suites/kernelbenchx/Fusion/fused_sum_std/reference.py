"""Reference for Fusion/fused_sum_std.py: a sum over `dim`, then the standard deviation of all the sums."""

import torch


def fused_sum_std(input, dim=None, keepdim=False, dtype=None, correction=1, out=None):
    s = torch.sum(input, dim=dim, keepdim=keepdim, dtype=dtype)
    if s.numel() > correction:
        result = torch.std(s, correction=correction)
    else:
        # Too few sums for the requested correction: defined as 0, on the input's device, in the sums' dtype.
        result = torch.zeros((), dtype=s.dtype, device=s.device)
    if out is not None:
        return out.copy_(result)
    return result


def upstream_reference(input, dim=None, keepdim=False, dtype=None, correction=1, out=None):
    """What KernelBench-X's reference does: the degenerate branch returns torch.tensor(0.0), a CPU tensor."""
    s = input.sum(dim=dim, keepdim=keepdim, dtype=dtype)
    n = s.numel()
    if n <= correction:
        return torch.tensor(0.0)
    mean = s.mean()
    result = torch.sqrt(((s - mean) ** 2).sum() / (n - correction))
    if out is not None:
        out.copy_(result)
    return result

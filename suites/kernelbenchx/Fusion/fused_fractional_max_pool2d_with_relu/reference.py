"""Reference for Fusion/fused_fractional_max_pool2d_with_relu.py: fractional_max_pool2d(relu(input))."""

import math

import torch
import torch.nn.functional as F


def fused_fractional_max_pool2d_with_relu(input, kernel_size, output_size=None, output_ratio=None,
                                          return_indices=False):
    return F.fractional_max_pool2d(F.relu(input), kernel_size, output_size=output_size, output_ratio=output_ratio,
                                   return_indices=return_indices)


def _pair(v):
    return (v, v) if isinstance(v, (int, float)) else tuple(v)


def _sequences(size_in, size_out, k):
    """Every window-start sequence int((i + u) * alpha) - int(u * alpha) can give for u in [0, 1), as a tensor."""
    if size_out == 1:
        return torch.tensor([[size_in - k]], dtype=torch.int64)
    alpha = (size_in - k) / (size_out - 1)
    points = {0.0}
    for i in range(size_out):
        for m in range(int(i * alpha), int((i + 1) * alpha) + 2):
            u = m / alpha - i if alpha > 0 else 0.0
            if 0.0 <= u < 1.0:
                points.add(u)
    pts = sorted(points)
    probes = pts + [(a + b) / 2 for a, b in zip(pts, pts[1:] + [1.0])]
    seqs = set()
    for u in probes:
        for dt in (torch.float32, torch.float64):  # torch evaluates in the input's float type
            uu, al = torch.tensor(u, dtype=dt), torch.tensor(alpha, dtype=dt)
            s = [int(((i + uu) * al).item()) - int((uu * al).item()) for i in range(size_out - 1)] + [size_in - k]
            seqs.add(tuple(s))
    return torch.tensor(sorted(seqs), dtype=torch.int64)


def canonical_fractional_max_pool2d(out, args, kwargs):
    names = ("input", "kernel_size", "output_size", "output_ratio", "return_indices")
    a = dict(zip(names, args))
    a.update(kwargs)
    x = F.relu(a["input"])
    values, indices = (out if a.get("return_indices", False) else (out, None))
    squeeze = x.dim() == 3
    if squeeze:
        x = x.unsqueeze(0)
        values = values.unsqueeze(0)
        indices = indices.unsqueeze(0) if indices is not None else None
    kh, kw = _pair(a["kernel_size"])
    H, W = x.shape[-2:]
    oh, ow = values.shape[-2:]
    if a.get("output_size") is not None:
        if (oh, ow) != tuple(_pair(a["output_size"])):
            raise ValueError("wrong output size")
    sh = _sequences(H, oh, kh).to(x.device)          # (nh, oh)
    sw = _sequences(W, ow, kw).to(x.device)          # (nw, ow)
    pooled = F.max_pool2d(x, (kh, kw), stride=1)      # window maxima at every start (N, C, H-kh+1, W-kw+1)
    g = pooled[:, :, sh]                              # (N, C, nh, oh, W')
    g = g[..., sw]                                    # (N, C, nh, oh, nw, ow)
    match = (g == values[:, :, None, :, None, :]).all(dim=5).all(dim=3)   # (N, C, nh, nw)
    if indices is not None:
        flat = x.flatten(2)
        if indices.dtype != torch.int64 or (indices < 0).any() or (indices >= H * W).any():
            raise ValueError("indices out of range")
        got = flat.gather(2, indices.flatten(2)).view_as(values)
        r, c = indices // W, indices % W
        rr = r[:, :, None, :, None, :]
        cc = c[:, :, None, :, None, :]
        a0 = sh[None, None, :, :, None, None]
        b0 = sw[None, None, None, None, :, :]
        inside = ((rr >= a0) & (rr < a0 + kh) & (cc >= b0) & (cc < b0 + kw)).all(dim=5).all(dim=3)
        match = match & inside & (got == values).all(dim=-1).all(dim=-1)[:, :, None, None]
    return match.flatten(2).any(dim=2)

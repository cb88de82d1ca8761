"""Reference for Loss/cross_entropy.py: softmax cross-entropy with class-index targets."""

import torch
import torch.nn.functional as F


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction='mean'):
    # F.cross_entropy fuses log_softmax and the weighted, ignore-aware NLL reduction.
    return F.cross_entropy(input, target, weight=weight, ignore_index=ignore_index, reduction=reduction)


def class_targets(gen, device, shape, classes, ignore_index=-100, ignore_p=0.0):
    """Uniform class indices in [0, classes); a fraction ignore_p of them set to ignore_index.

    The first element is never ignored, so a 'mean' reduction always has a non-zero normaliser.
    """
    shape = [int(s) for s in shape]
    y = torch.randint(0, int(classes), shape, generator=gen, dtype=torch.int64)
    hit = torch.rand(shape, generator=gen, dtype=torch.float64) < ignore_p
    hit.view(-1)[0] = False
    y = torch.where(hit, torch.full_like(y, int(ignore_index)), y)
    if 0 <= ignore_index < classes:
        # keep "not ignored" meaning "not equal to ignore_index"
        y = torch.where(~hit & (y == ignore_index), (y + 1) % int(classes), y)
    return y.to(device)

"""Reference for Fusion/fused_cosine_embedding_loss_with_normalization.py: hinge loss on cosines of normalised rows."""

import torch
import torch.nn.functional as F


def fused_cosine_embedding_loss_with_normalization(input1, input2, target, margin=0, reduction='mean'):
    a = F.normalize(input1, p=2, dim=1)
    b = F.normalize(input2, p=2, dim=1)
    cos = (a * b).sum(dim=1)
    loss = torch.clamp(1 - cos * target.to(cos.dtype), min=0)
    if margin > 0:
        loss = torch.maximum(loss, margin - cos)
    if reduction == 'mean':
        return loss.mean()
    if reduction == 'sum':
        return loss.sum()
    if reduction == 'none':
        return loss
    raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def plus_minus_one(gen, device, n, dtype="int64"):
    """n targets, each +1 or -1 with probability 1/2."""
    t = torch.randint(0, 2, (n,), generator=gen) * 2 - 1
    return t.to(getattr(torch, dtype)).to(device)


def correlated_pair(gen, device, n, d, which):
    """Row pairs with cosines spread over (-1, 1): shared randn base plus a little noise, sign flipped per row.

    Both calls (which=0, then which=1) draw the same base from the case generator's state; the second one
    draws its own noise afterwards, so the two tensors differ.
    """
    state = gen.get_state()
    base = torch.randn(n, d, generator=gen)
    sign = torch.where(torch.rand(n, 1, generator=gen) < 0.5, -1.0, 1.0)
    if which == 0:
        gen.set_state(state)  # let the partner draw the same base
        return base.to(device)
    noise = torch.randn(n, d, generator=gen) * torch.rand(n, 1, generator=gen)
    return (sign * base + noise).to(device)

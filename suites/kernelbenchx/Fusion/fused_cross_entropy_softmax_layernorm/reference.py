"""Reference for Fusion/fused_cross_entropy_softmax_layernorm.py: (cross_entropy(logits), layer_norm(softmax(logits)))."""

import torch.nn.functional as F


def fused_cross_entropy_softmax_layernorm(logits, targets, normalized_shape, weight=None, ignore_index=-100,
                                          reduction='mean', label_smoothing=0.0, eps=1e-05, *, out=None):
    loss = F.cross_entropy(logits, targets, weight=weight, ignore_index=ignore_index, reduction=reduction,
                           label_smoothing=label_smoothing)
    normed = F.layer_norm(F.softmax(logits, dim=-1), (normalized_shape,), eps=eps)
    if out is not None:
        out.copy_(normed)
        return loss, out
    return loss, normed

"""Reference for Normalization/batch_norm.py: per-channel batch normalisation with running statistics."""

import torch
import torch.nn.functional as F


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-05):
    # Eval mode normalises with the running statistics; training mode normalises with the batch's
    # statistics and updates running_mean / running_var in place.
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def positive_variance(gen, device, channels):
    """A running variance as the perf sweep draws it: |randn| + 1e-5, float32."""
    return (torch.randn(channels, generator=gen).abs() + 1e-5).to(device)

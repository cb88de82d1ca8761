"""Reference for Math/logit.py: ln(p / (1 - p)) with optional clamping to [eps, 1 - eps]."""

import torch


def logit(input, eps=None, out=None):  # noqa: A002 - upstream's parameter name
    return torch.logit(input, eps=eps, out=out)

"""Reference for Activation/gelu.py: elementwise GELU (erf form or tanh approximation)."""

import torch.nn.functional as F


def gelu(input, approximate="none"):
    # F.gelu is the fused eager op KernelBench-X measures against.
    return F.gelu(input, approximate=approximate)

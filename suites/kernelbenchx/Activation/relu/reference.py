"""Reference for Activation/relu.py: elementwise max(x, 0), optionally in place."""

import torch.nn.functional as F


def relu(input, inplace=False):
    # F.relu is the eager op KernelBench-X measures against; inplace=True returns `input` itself.
    return F.relu(input, inplace=inplace)

"""Reference for Index/index_fill_.py: fill whole slices of x along dim, in place."""

import torch


def index_fill_(dim, x, index, value):
    # Tensor.index_fill_ writes into x and returns it, exactly the contract of the task.
    return x.index_fill_(dim, index, value)

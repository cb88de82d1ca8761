"""Reference for Fusion/fused_log_tanh.py: tanh of the natural logarithm, positive inputs only."""

import torch


def fused_log_tanh(input, out=None):
    # The domain check needs one reduction and a host sync; then two eager kernels.
    if not bool((input > 0).all()):
        raise ValueError("fused_log_tanh needs every input element to be positive")
    result = torch.tanh(torch.log(input))
    if out is not None:
        return out.copy_(result)
    return result

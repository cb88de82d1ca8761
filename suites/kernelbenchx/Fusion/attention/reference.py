"""Reference for Fusion/attention.py: scaled dot-product attention in float32, optionally causal."""

import torch.nn.functional as F


def attention(q, k, v, causal=False, softmax_scale=None, *, out=None):
    result = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal, scale=softmax_scale)
    if out is not None:
        return out.copy_(result)
    return result.to(q.dtype)

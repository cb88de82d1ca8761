"""Reference for Fusion/fused_hardshrink_dropout.py: dropout, then hard shrinkage."""

import inspect
import math

import torch
import torch.nn.functional as F


def fused_hardshrink_dropout(input, p=0.5, training=True, inplace=False, lambd=0.5):
    # torch's dropout kernel (zeroes each element with probability p, scales survivors by
    # 1/(1-p)), then its hardshrink kernel (keeps x where |x| > lambd, else 0).
    x = F.dropout(input, p=p, training=training, inplace=inplace)
    return F.hardshrink(x, lambd)


def canonical_dropout(out, args, kwargs):
    """Deterministic when training=False or p == 0; otherwise each element must be 0 (dropped)
    or the hard-shrunk scaled input (kept), and the number of dropped elements among those whose
    kept value is non-zero must be a plausible Binomial(n, p) draw (|z| <= 5.5)."""
    b = inspect.signature(fused_hardshrink_dropout).bind(*args, **kwargs)
    b.apply_defaults()
    a = b.arguments
    x, p, training, lambd = a["input"], float(a["p"]), a["training"], a["lambd"]
    if not training or p == 0.0:
        return (out, torch.tensor(True))
    if p >= 1.0:
        return (out, torch.tensor(True))
    kept = F.hardshrink(x * (1.0 / (1.0 - p)), lambd)
    # Elements that are 0 must be dropped (or shrunk away); others must equal the kept value.
    diff = torch.where(out == 0, torch.zeros_like(out), out - kept)
    informative = kept != 0
    n = int(informative.sum())
    dropped = int((informative & (out == 0)).sum())
    if n == 0:
        ok = True
    else:
        sd = math.sqrt(n * p * (1.0 - p))
        ok = abs(dropped - n * p) <= 5.5 * sd + 0.5
    return (diff, torch.tensor(ok))

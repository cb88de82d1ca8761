"""Reference for Math/bitwise_and_binomial.py: binomial draws whose trial counts are input & other."""

import math

import torch


def bitwise_and_binomial(input, other, total_count, probs=None, logits=None):  # noqa: A002
    """Y ~ Binomial(input & other, p) elementwise, p = probs or sigmoid(logits); float result.

    `total_count` is part of the public signature but does not enter the result: the trial
    counts are the bitwise AND (see the task's notes and errata).
    """
    if probs is None and logits is None:
        raise ValueError("bitwise_and_binomial needs probs or logits")
    trials = torch.bitwise_and(input, other)
    if probs is not None:
        dist = torch.distributions.Binomial(total_count=trials.to(probs.dtype), probs=probs)
    else:
        dist = torch.distributions.Binomial(total_count=trials.to(logits.dtype), logits=logits)
    return dist.sample()


def upstream_reference(input, other, total_count, probs=None, logits=None):  # noqa: A002
    """What KernelBench-X's reference returns: the AND is computed and dropped, the draw uses total_count."""
    if probs is None and logits is None:
        raise ValueError("bitwise_and_binomial needs probs or logits")
    if probs is not None:
        return torch.distributions.Binomial(total_count=total_count, probs=probs).sample()
    return torch.distributions.Binomial(total_count=total_count, logits=logits).sample()


def _bernstein_t(variance, log_inv_delta):
    """t with 2 exp(-t^2 / (2 (variance + t / 3))) = delta, for a sum of independent 0/1 trials."""
    L = log_inv_delta
    return L / 3 + math.sqrt(L * L / 9 + 2 * L * variance)


def canonical_draws(out, args, kwargs):
    """Checks of a binomial draw: legal values exactly, then the sum and the spread statistically.

    Returns (legal, mean_ok, spread_ok) as bool tensors. Each statistical check has a false-failure
    probability below 1e-8 per case (Bernstein bounds), so a correct sampler fails a task of a dozen
    cases with probability under 1e-6.
    """
    if not isinstance(out, torch.Tensor):
        raise ValueError("output is not a tensor")
    n = torch.bitwise_and(args[0], args[1]).to(torch.float64)
    p = kwargs.get("probs")
    p = torch.sigmoid(kwargs["logits"].to(torch.float64)) if p is None else p.to(torch.float64)
    n, p = torch.broadcast_tensors(n, p)
    y = out.to(torch.float64)
    if y.shape != n.shape:
        raise ValueError("output shape differs from the broadcast input shape")
    legal = bool((y == torch.round(y)).all() and (y >= 0).all() and (y <= n).all())
    mean = n * p
    var = n * p * (1 - p)
    log_inv = math.log(2 / 1e-8)
    dev = float((y - mean).sum())
    mean_ok = abs(dev) <= _bernstein_t(float(var.sum()), log_inv) + 1e-9
    # Spread: the sum of squared deviations Q must not collapse (a deterministic n * p rounding
    # would). One-sided bound for non-negative terms: P(Q <= E[Q] - t) <= exp(-t^2 / (2 sum E[X^2])).
    fourth = var * (1 + 3 * (n - 2) * p * (1 - p))  # E[(Y - np)^4] of a binomial
    fourth = torch.clamp(fourth, min=0) + var * var  # a safe upper bound on E[X^2] for X = (Y - np)^2
    eq, m2 = float(var.sum()), float(fourth.sum())
    q = float(((y - mean) ** 2).sum())
    t = math.sqrt(2 * m2 * math.log(1 / 1e-8)) if m2 > 0 else 0.0
    spread_ok = q >= eq - t
    return (torch.tensor(legal), torch.tensor(mean_ok), torch.tensor(spread_ok))

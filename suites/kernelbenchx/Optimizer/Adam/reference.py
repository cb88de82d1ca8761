"""Reference for Optimizer/Adam.py: builds an Adam optimiser over a list of parameters."""

import re

import torch


def Adam(params, lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0):
    # The public task returns the optimiser object; its step() is what a submission implements.
    return torch.optim.Adam(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)


def param_list(gen, device, shapes):
    """Leaf parameters (requires_grad) with randn values and a randn .grad each."""
    out = []
    for shape in shapes:
        p = torch.randn(shape, generator=gen, dtype=torch.float32)
        g = torch.randn(shape, generator=gen, dtype=torch.float32)
        p = p.to(device).requires_grad_(True)
        p.grad = g.to(device)
        out.append(p)
    return out


_FIELD = re.compile(r"^\s*(lr|eps|weight_decay|betas):\s*(.+?)\s*$", re.M)


def canonical_hyperparameters(out, args, kwargs):
    """The optimiser's hyperparameters (lr, beta1, beta2, eps, weight_decay) read from its text form.

    kbx passes a returned object that is not a tensor or container as its repr(); torch.optim.Optimizer's
    repr lists every parameter group's settings, one `name: value` line each. A result without the four
    fields (not an optimiser) raises, which fails the case.
    """
    text = out if isinstance(out, str) else repr(out)
    fields = dict(_FIELD.findall(text))
    if set(fields) != {"lr", "eps", "weight_decay", "betas"}:
        raise ValueError(f"not an optimiser with lr/betas/eps/weight_decay: {text[:200]!r}")
    beta1, beta2 = (float(v) for v in fields["betas"].strip("()[] ").split(","))
    return torch.tensor([float(fields["lr"]), beta1, beta2, float(fields["eps"]), float(fields["weight_decay"])],
                        dtype=torch.float64)


def param_rand(gen, device, n):
    """Perf input, as upstream's template: one rand float32 parameter of n elements with a rand
    .grad, drawn on the device from a generator seeded from the case generator."""
    seed = int(torch.randint(0, 2 ** 62, (1,), generator=gen).item())
    g = torch.Generator(device=device)
    g.manual_seed(seed)
    p = torch.rand(n, generator=g, device=device, dtype=torch.float32).requires_grad_(True)
    p.grad = torch.rand(n, generator=g, device=device, dtype=torch.float32)
    return [p]

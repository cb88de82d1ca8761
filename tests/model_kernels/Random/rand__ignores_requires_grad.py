"""Random/rand.py variant: ignores `requires_grad`: the samples are right (Triton's Philox, as in
Random/rand.py) but the tensor never requires grad, even when requires_grad=True is asked for, as
the public shape_2x3_requires_grad case does. kbx compares the flag for this task (task.json
"compare_requires_grad": requires_grad_mismatch); the public harness compares values only.
"""
# expect: incorrect
# expect-kernelbenchx: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _rand_kernel(out_ptr, n, seed, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    r = tl.rand(seed, offs)
    tl.store(out_ptr + offs, r.to(out_ptr.dtype.element_ty), mask=offs < n)


def rand(*size, generator=None, out=None, dtype=None, layout=torch.strided, device=None,
         requires_grad=False, pin_memory=False):
    if len(size) == 1 and isinstance(size[0], (tuple, list, torch.Size)):
        size = tuple(size[0])
    dtype = dtype or torch.float32
    if device is None:
        device = generator.device if generator is not None else 'cpu'
    seed = int(torch.randint(0, 2**31 - 1, (1,), generator=generator, device=generator.device if generator is not None else 'cpu').item())
    res = torch.empty(size, dtype=dtype, device=device)
    n = res.numel()
    _rand_kernel[(triton.cdiv(n, 1024),)](res, n, seed, BLOCK_SIZE=1024)
    return res  # requires_grad is never applied

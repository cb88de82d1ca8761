"""Math/ifftshift.py variant that rolls by -((n + 1) // 2) instead of -(n // 2), the fftshift and
ifftshift amounts swapped: identical for even n, one position off for odd n (the public 3 x 3
calls).
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _roll_kernel(x_ptr, y_ptr, n, N1, N2, N3, S0, S1, S2, S3, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    i3 = offs % N3
    r = offs // N3
    i2 = r % N2
    r = r // N2
    i1 = r % N1
    i0 = r // N1
    N0 = n // (N1 * N2 * N3)
    j0 = (i0 + S0) % N0
    j1 = (i1 + S1) % N1
    j2 = (i2 + S2) % N2
    j3 = (i3 + S3) % N3
    src = ((j0 * N1 + j1) * N2 + j2) * N3 + j3
    v = tl.load(x_ptr + src, mask=mask)
    tl.store(y_ptr + offs, v, mask=mask)


def ifftshift(input, dim=None):
    x = input.contiguous()
    nd = x.dim()
    if dim is None:
        dims = list(range(nd))
    elif isinstance(dim, int):
        dims = [dim]
    else:
        dims = list(dim)
    dims = [d % nd for d in dims] if nd > 0 else []
    if nd > 4:
        raise NotImplementedError("ifftshift kernel handles up to 4 dimensions")
    shape = [1] * (4 - nd) + list(x.shape)
    shifts = [0] * 4
    for d in dims:
        size = x.shape[d]
        shifts[4 - nd + d] = (size + 1) // 2
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _roll_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, shape[1], shape[2], shape[3],
                                                     shifts[0], shifts[1], shifts[2], shifts[3],
                                                     BLOCK_SIZE=BLOCK_SIZE)
    return y

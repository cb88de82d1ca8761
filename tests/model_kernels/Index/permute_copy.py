"""Index/permute_copy.py: one gather kernel over the flattened contiguous output. The output
shape is input.shape[dims[i]] and output dim i walks the input with stride
input.stride(dims[i]) (negative dims normalised first), so the input is read through its real
strides (non-contiguous inputs work, nothing is copied first). Ranks up to 6 are handled by
padding with size-1 dims; each program decomposes BLOCK output offsets into the 6 indices and
gathers the input element.
"""
# expect: ok
import torch
import triton
import triton.language as tl


@triton.jit
def _permute_kernel(x_ptr, y_ptr, total, s0, s1, s2, s3, s4, s5, t0, t1, t2, t3, t4, t5,
                    BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    r = offs
    i5 = r % s5
    r = r // s5
    i4 = r % s4
    r = r // s4
    i3 = r % s3
    r = r // s3
    i2 = r % s2
    r = r // s2
    i1 = r % s1
    i0 = r // s1
    src = i0 * t0 + i1 * t1 + i2 * t2 + i3 * t3 + i4 * t4 + i5 * t5
    v = tl.load(x_ptr + src, mask=mask)
    tl.store(y_ptr + offs, v, mask=mask)


def permute_copy(input, dims):
    nd = input.dim()
    dims = [int(d) % nd for d in dims] if nd > 0 else []
    if sorted(dims) != list(range(nd)):
        raise ValueError("permute_copy: dims must be a permutation")
    out_shape = [input.shape[d] for d in dims]
    out = torch.empty(out_shape, dtype=input.dtype, device=input.device)
    total = out.numel()
    if total == 0:
        return out
    if nd > 6:
        raise NotImplementedError("permute_copy: rank > 6")
    sizes = [1] * (6 - nd) + out_shape
    strides = [0] * (6 - nd) + [input.stride(d) for d in dims]
    BLOCK = 1024
    _permute_kernel[(triton.cdiv(total, BLOCK),)](input, out, total, *sizes, *strides,
                                                 BLOCK=BLOCK)
    return out

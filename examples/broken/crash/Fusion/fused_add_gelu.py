# Negative example for kbx: outcome `crashed` (reason: SIGSEGV).
# The Triton kernel is fine, but after launching it the wrapper "peeks" at a buffer through ctypes
# and hands it a null pointer. Reading address 0 kills the worker process with SIGSEGV, the same
# way on CPU (TRITON_INTERPRET=1) and on the GPU; no Python exception is raised.
import ctypes

import torch
import triton
import triton.language as tl


@triton.jit
def fused_add_gelu_kernel(x_ptr, o_ptr, out_ptr, n_elements, alpha, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    o = tl.load(o_ptr + offsets, mask=mask)
    r = x + alpha * o
    y = 0.5 * r * (1.0 + tl.math.erf(r * 0.7071067811865476))
    tl.store(out_ptr + offsets, y, mask=mask)


def _peek(address):
    # Debug helper: the C string stored at `address` (strlen + copy in native code).
    return ctypes.string_at(address)


def fused_add_gelu(input, other, alpha=1, approximate='none', out=None):
    if not isinstance(other, torch.Tensor):
        other = torch.full_like(input, other)
    x, o = input.contiguous(), other.contiguous()
    result = torch.empty_like(x)
    n = x.numel()
    BLOCK_SIZE = 1024
    fused_add_gelu_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, o, result, n, alpha, BLOCK_SIZE=BLOCK_SIZE)
    scratch = ctypes.c_void_p()  # BUG: never pointed at anything, so its value is NULL
    _peek(scratch.value or 0)  # strlen(NULL): SIGSEGV
    return result

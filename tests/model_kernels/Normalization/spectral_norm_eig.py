"""Normalization/spectral_norm_eig.py: spectral radius of (..., n, n) float32 matrices.
torch.linalg.eigvals gives the (complex) eigenvalues; a Triton kernel reads their interleaved
real/imaginary parts and reduces max_i sqrt(re^2 + im^2) per matrix (one program per block of
matrices), writing straight into the result tensor, which is `out` when given (0-d for a single
matrix).
"""
# expect: not_triton  (torch.linalg.eigvals does the work; Triton's max |lambda| reduction runs well under 1% of the GPU time)
# expect-cpu: ok  (no kernel inventory on the CPU: the data-flow rule alone, which the Triton reduction writing the result meets)
# expect-kernelbenchx: ok  (no Triton requirement)
import torch
import triton
import triton.language as tl


@triton.jit
def _max_modulus_kernel(ev_ptr, out_ptr, B, n, BLOCK_B: tl.constexpr, BLOCK_N: tl.constexpr):
    # ev: [B, n, 2] float32 (real, imag) contiguous; out: [B] float32 contiguous
    pid = tl.program_id(0)
    rb = pid * BLOCK_B + tl.arange(0, BLOCK_B)
    bmask = rb < B
    best = tl.zeros([BLOCK_B], dtype=tl.float32)
    for n0 in range(0, n, BLOCK_N):
        rn = n0 + tl.arange(0, BLOCK_N)
        m = bmask[:, None] & (rn[None, :] < n)
        base = (rb[:, None] * n + rn[None, :]) * 2
        re = tl.load(ev_ptr + base, mask=m, other=0.0)
        im = tl.load(ev_ptr + base + 1, mask=m, other=0.0)
        mod = tl.sqrt(re * re + im * im)
        best = tl.maximum(best, tl.max(mod, axis=1))
    tl.store(out_ptr + rb, best, mask=bmask)


def spectral_norm_eig(A, *, out=None):
    n = A.shape[-1]
    batch = A.shape[:-2]
    ev = torch.linalg.eigvals(A.float())  # complex64 [..., n]
    ev_ri = torch.view_as_real(ev.reshape(-1, n)).contiguous()  # [B, n, 2]
    B = ev_ri.shape[0]
    if out is not None and out.is_contiguous() and out.dtype == torch.float32:
        res = out
    else:
        res = torch.empty(batch, dtype=torch.float32, device=A.device)
    BLOCK_B = 16
    BLOCK_N = min(128, triton.next_power_of_2(n))
    _max_modulus_kernel[(triton.cdiv(B, BLOCK_B),)](ev_ri, res, B, n, BLOCK_B=BLOCK_B, BLOCK_N=BLOCK_N)
    if out is not None:
        if res is not out:
            out.copy_(res)
        return out
    return res

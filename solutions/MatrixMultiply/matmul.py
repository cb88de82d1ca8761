"""torch.matmul semantics (KernelBench-X MatrixMultiply/matmul.py) on a tiled Triton GEMM.

Every case (1-D . 1-D, 1-D @ 2-D, 2-D @ 1-D, 2-D @ 2-D, batched with broadcasting) is mapped to a
batch of [M, K] @ [K, N] products addressed through strides, so transposed, broadcast (stride 0)
and other non-contiguous operands are read in place without copies.

The kernel: BLOCK_M x BLOCK_N output tiles, a loop over K in BLOCK_K steps with masked loads,
tl.dot with a float32 accumulator, and grouped tile ordering (GROUP_M) so neighbouring programs
reuse the same A and B panels from L2. The K-loop trip count is a compile-time constant, so Triton
software-pipelines it (num_stages) on the GPU and it also runs under TRITON_INTERPRET=1 with
NumPy >= 2.4 (see Math/softmax.py).

Precision: for float32 operands tl.dot is asked for input_precision="ieee". The default on
Ampere/Hopper GPUs is TF32 (10-bit mantissa), which misses torch's float32 matmul by ~1e-3,
far beyond the 1e-5 tolerance. float16/bfloat16 operands (the perf sweep) use the tensor cores
natively and accumulate in float32; the result is rounded to the operands' dtype, as torch does.
"""
# expect: ok

import torch
import triton
import triton.language as tl


@triton.jit
def _matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                   stride_ab, stride_am, stride_ak,
                   stride_bb, stride_bk, stride_bn,
                   stride_cb, stride_cm, stride_cn,
                   ACC: tl.constexpr, DOT_PRECISION: tl.constexpr,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                   GROUP_M: tl.constexpr, K_TILES: tl.constexpr):
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    # 1-D grid over (batch, tile): CUDA limits grid y/z to 65535, batches can be larger.
    pid = tl.program_id(0)
    batch = (pid // (num_pid_m * num_pid_n)).to(tl.int64)
    pid = pid % (num_pid_m * num_pid_n)
    # Grouped ordering: GROUP_M row-tiles share each column panel of B while it is in L2.
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    mask_m = offs_m < M
    mask_n = offs_n < N
    a_ptrs = (a_ptr + batch * stride_ab + offs_m.to(tl.int64)[:, None] * stride_am
              + offs_k[None, :] * stride_ak)
    b_ptrs = (b_ptr + batch * stride_bb + offs_k[:, None] * stride_bk
              + offs_n.to(tl.int64)[None, :] * stride_bn)

    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=ACC)
    for kt in range(K_TILES):
        k_left = K - kt * BLOCK_K
        a = tl.load(a_ptrs, mask=mask_m[:, None] & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & mask_n[None, :], other=0.0)
        acc = tl.dot(a, b, acc, input_precision=DOT_PRECISION, out_dtype=ACC)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    c_ptrs = (c_ptr + batch * stride_cb + offs_m.to(tl.int64)[:, None] * stride_cm
              + offs_n.to(tl.int64)[None, :] * stride_cn)
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])


_SM_COUNT = {}


def _num_sms(device):
    if device.type != "cuda":
        return 4
    index = device.index if device.index is not None else torch.cuda.current_device()
    if index not in _SM_COUNT:  # keep the per-call host work small
        _SM_COUNT[index] = torch.cuda.get_device_properties(index).multi_processor_count
    return _SM_COUNT[index]


def _config(dtype, M, N, K, batch, device):
    """(BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages) for an H100/H200-class GPU."""
    sms = _num_sms(device)

    def tiles(bm, bn):
        return triton.cdiv(M, bm) * triton.cdiv(N, bn) * batch

    if dtype in (torch.float16, torch.bfloat16):
        # Tensor-core tiles (measured on an H200: 128x256x64 with 4 stages reaches ~700 TFLOP/s at
        # 4096^3); smaller tiles when there would be too few of them to fill the SMs.
        if tiles(128, 256) >= sms:
            cfg = (128, 256, 64, 8, 4)
        elif tiles(128, 128) >= sms:
            cfg = (128, 128, 64, 8, 4)
        else:
            cfg = (64, 64, 64, 4, 4)
    elif dtype == torch.float64:
        cfg = (64, 64, 32, 4, 3)
    else:
        # float32 in IEEE precision runs on the FMA units: 128x128 tiles (64 accumulators per
        # thread with 8 warps) give enough reuse per shared-memory load.
        if tiles(128, 128) >= sms:
            cfg = (128, 128, 32, 8, 3)
        else:
            cfg = (64, 64, 32, 4, 3)
    bm, bn, bk, warps, stages = cfg
    # tl.dot needs every block dimension >= 16; do not pad tiny problems beyond that.
    bm = min(bm, max(16, triton.next_power_of_2(M)))
    bn = min(bn, max(16, triton.next_power_of_2(N)))
    bk = min(bk, max(16, triton.next_power_of_2(K)))
    if bm * bn <= 64 * 64:
        warps = min(warps, 4)
    return bm, bn, bk, warps, stages


def _launch(a, b, c, M, N, K, n_batch, sa, sb, sc):
    """c[i] = a[i] @ b[i] for i < n_batch, each operand given by (batch, row, column) strides."""
    bm, bn, bk, warps, stages = _config(a.dtype, M, N, K, n_batch, a.device)
    acc = tl.float64 if a.dtype == torch.float64 else tl.float32
    # IEEE float32 products: the TF32 default would miss torch's float32 matmul by ~1e-3.
    precision = "ieee" if a.dtype in (torch.float32, torch.float64) else "tf32"
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn) * n_batch,)
    _matmul_kernel[grid](a, b, c, M, N, K, sa[0], sa[1], sa[2], sb[0], sb[1], sb[2],
                         sc[0], sc[1], sc[2], ACC=acc, DOT_PRECISION=precision,
                         BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8,
                         K_TILES=triton.cdiv(K, bk), num_warps=warps, num_stages=stages)


def matmul(tensor1, tensor2):
    a, b = tensor1, tensor2
    if a.dim() == 0 or b.dim() == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{a.dim()}D and {b.dim()}D")
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {a.dtype} != {b.dtype}")
    if not a.dtype.is_floating_point:
        raise RuntimeError(f"matmul: unsupported dtype {a.dtype}")
    if a.dim() == 2 and b.dim() == 2:
        # Plain matrix product (the perf sweep): no batch bookkeeping on the host.
        M, K = a.shape
        K2, N = b.shape
        if K != K2:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({M}x{K} and {K2}x{N})")
        c = torch.empty((M, N), dtype=a.dtype, device=a.device)
        if c.numel() > 0:
            _launch(a, b, c, M, N, K, 1, (0, a.stride(0), a.stride(1)),
                    (0, b.stride(0), b.stride(1)), (0, c.stride(0), c.stride(1)))
        return c
    a_vec, b_vec = a.dim() == 1, b.dim() == 1
    a2 = a.unsqueeze(0) if a_vec else a  # [1, K]
    b2 = b.unsqueeze(-1) if b_vec else b  # [K, 1]
    M, K = a2.shape[-2], a2.shape[-1]
    K2, N = b2.shape[-2], b2.shape[-1]
    if K != K2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({M}x{K} and {K2}x{N})")
    batch_shape = torch.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    # Broadcast by stride 0 (expand); reshape stays a view unless several batch dims must merge.
    n_batch = 1
    for d in batch_shape:
        n_batch *= d
    a3 = a2.expand(*batch_shape, M, K).reshape(n_batch, M, K)
    b3 = b2.expand(*batch_shape, K, N).reshape(n_batch, K, N)

    c = torch.empty((n_batch, M, N), dtype=a.dtype, device=a.device)
    if c.numel() > 0:
        _launch(a3, b3, c, M, N, K, n_batch, a3.stride(), b3.stride(), c.stride())

    out_shape = list(batch_shape)
    if not a_vec:
        out_shape.append(M)
    if not b_vec:
        out_shape.append(N)
    return c.reshape(out_shape)

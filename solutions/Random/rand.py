"""Random/rand.py: torch.rand as one write-only Triton kernel over Triton's Philox4x32 generator.

Design: flat 1-D grid; each program owns BLOCK outputs and runs Philox on BLOCK / 4 counters:
tl.randint4x returns four independent 32-bit words per counter, so one Philox evaluation (10
rounds) feeds four float32 samples (or two float64). The four word streams are stored as four
contiguous quarter-blocks, so every store is a coalesced 128-bit vector; nothing is read, so the
kernel runs at store bandwidth (BLOCK = 4096 and 8 warps above 1M samples, 1024 and 4 below).
Conversion as torch does it: float32 = (w >> 8) * 2^-24 (24 random bits, exactly in [0, 1));
float64 = ((w0 << 21) | (w1 >> 11)) * 2^-53 (53 random bits). Counters are int32 (n < 2^31 * 4).

Seeds (the contract: draw from `generator`, else from the device's default generator): a CUDA
generator gives its seed and Philox offset on the host (no kernel, no synchronisation); the
offset is advanced by 4 per call, and seed and offset are mixed by splitmix64 into the kernel's
64-bit Philox key, so successive calls on one generator give independent streams. A CPU generator
(the CPU interpreter) has no offset: one 62-bit integer is drawn from it on the host.
dtype (float32 default, float64), device and requires_grad are honoured like torch.rand.
"""
# expect: ok
import torch
import triton
import triton.language as tl

_MASK64 = (1 << 64) - 1


def _splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def _draw_seed(generator, device):
    """A fresh 63-bit Philox key from `generator` (or the device's default generator)."""
    if generator is None:
        if device.type == "cuda":
            generator = torch.cuda.default_generators[device.index if device.index is not None
                                                      else torch.cuda.current_device()]
        else:
            generator = torch.default_generator
    if generator.device.type == "cuda":
        offset = generator.get_offset()
        generator.set_offset(offset + 4)
        key = _splitmix64(generator.initial_seed() ^ _splitmix64(offset))
    else:
        key = _splitmix64(int(torch.randint(0, 2**62, (1,), generator=generator)))
    return key & ((1 << 63) - 1)


@triton.jit
def _rand_kernel(y_ptr, n, seed, F64: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if F64:
        Q: tl.constexpr = BLOCK // 2
        ctr = pid * Q + tl.arange(0, Q)
        w0, w1, w2, w3 = tl.randint4x(seed, ctr)
        a = (w0.to(tl.uint32, bitcast=True).to(tl.uint64) << 21) | (w1.to(tl.uint32, bitcast=True) >> 11).to(tl.uint64)
        b = (w2.to(tl.uint32, bitcast=True).to(tl.uint64) << 21) | (w3.to(tl.uint32, bitcast=True) >> 11).to(tl.uint64)
        base = pid.to(tl.int64) * BLOCK + tl.arange(0, Q)
        tl.store(y_ptr + base, a.to(tl.float64) * 1.1102230246251565e-16, mask=base < n)
        tl.store(y_ptr + base + Q, b.to(tl.float64) * 1.1102230246251565e-16, mask=base + Q < n)
    else:
        Q: tl.constexpr = BLOCK // 4
        ctr = pid * Q + tl.arange(0, Q)
        w0, w1, w2, w3 = tl.randint4x(seed, ctr)
        base = pid.to(tl.int64) * BLOCK + tl.arange(0, Q)
        scale = 5.960464477539063e-08  # 2^-24
        tl.store(y_ptr + base, (w0.to(tl.uint32, bitcast=True) >> 8).to(tl.float32) * scale,
                 mask=base < n)
        tl.store(y_ptr + base + Q, (w1.to(tl.uint32, bitcast=True) >> 8).to(tl.float32) * scale,
                 mask=base + Q < n)
        tl.store(y_ptr + base + 2 * Q, (w2.to(tl.uint32, bitcast=True) >> 8).to(tl.float32) * scale,
                 mask=base + 2 * Q < n)
        tl.store(y_ptr + base + 3 * Q, (w3.to(tl.uint32, bitcast=True) >> 8).to(tl.float32) * scale,
                 mask=base + 3 * Q < n)


def rand(*size, generator=None, out=None, dtype=None, layout=torch.strided, device=None,
         requires_grad=False, pin_memory=False):
    if len(size) == 1 and isinstance(size[0], (tuple, list, torch.Size)):
        size = tuple(size[0])
    dtype = dtype if dtype is not None else torch.get_default_dtype()
    if dtype not in (torch.float32, torch.float64):
        raise TypeError(f"rand: dtype {dtype} is not supported (float32 or float64)")
    if device is None:
        device = generator.device if generator is not None else torch.device("cpu")
    device = torch.device(device)
    y = torch.empty(size, dtype=dtype, device=device)
    n = y.numel()
    if n:
        seed = _draw_seed(generator, device)
        big = n >= (1 << 20)
        BLOCK, warps = (4096, 8) if big else (1024, 4)
        _rand_kernel[(triton.cdiv(n, BLOCK),)](y, n, seed, F64=dtype == torch.float64, BLOCK=BLOCK,
                                               num_warps=warps)
    if out is not None:
        y = out.copy_(y)
    if requires_grad:
        y.requires_grad_(True)
    return y

"""Host cost of launches on this machine: a torch op, a Triton kernel with few and many arguments,
.item(); median microseconds per call over 2000 calls (tune/, session 22)."""
import time, torch, triton, triton.language as tl

@triton.jit
def k4(x, y, n, B: tl.constexpr):
    o = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(y + o, tl.load(x + o, mask=o < n), mask=o < n)

@triton.jit
def k20(x, y, n, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, B: tl.constexpr):
    o = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(y + o, tl.load(x + o, mask=o < n), mask=o < n)

x = torch.randn(4096, device="cuda"); y = torch.empty_like(x)
def t(f, n=2000):
    for _ in range(50): f()
    torch.cuda.synchronize()
    out = []
    for _ in range(n):
        s = time.perf_counter(); f(); out.append(time.perf_counter() - s)
    torch.cuda.synchronize()
    out.sort(); return out[len(out) // 2] * 1e6
print(f"torch add        {t(lambda: torch.add(x, 1, out=y)):7.1f} us")
print(f"triton 4 args    {t(lambda: k4[(4,)](x, y, 4096, B=1024)):7.1f} us")
print(f"triton 20 args   {t(lambda: k20[(4,)](x, y, 4096, *range(3, 18), B=1024)):7.1f} us")
print(f"torch.empty      {t(lambda: torch.empty(4096, device='cuda')):7.1f} us")
print(f".item()          {t(lambda: x[5].item()):7.1f} us")
print(f"masked_select    {t(lambda: torch.masked_select(x, x > 0)):7.1f} us")

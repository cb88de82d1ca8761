"""Host-inclusive time per call of the two masked_select expert kernels against eager on this
machine (calls that wait for the GPU: kbx counts their host time), and their results against
torch's: median microseconds over 1000 calls, each call timed from entry to return (tune/,
session 23). Also times a 20-argument Triton launch through Triton and through the compiled
kernel's own launcher."""
import importlib.util, pathlib, time
import torch, triton, triton.language as tl
import torch.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parent.parent


def load(rel):
    spec = importlib.util.spec_from_file_location(rel.replace("/", "_")[:-3], ROOT / "solutions" / rel)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def t(f, n=1000):
    for _ in range(50):
        f()
    torch.cuda.synchronize()
    out = []
    for _ in range(n):
        s = time.perf_counter()
        f()
        out.append(time.perf_counter() - s)
    torch.cuda.synchronize()
    out.sort()
    return out[len(out) // 2] * 1e6


@triton.jit
def k20(x, y, n, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, B: tl.constexpr):
    o = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(y + o, tl.load(x + o, mask=o < n), mask=o < n)


x = torch.randn(4096, device="cuda")
y = torch.empty_like(x)
args = (x, y, 4096, *range(3, 18), 1024)
ck = k20[(4,)](*args)
stream = torch.cuda.current_stream().cuda_stream
print(f"triton 20 args, through Triton     {t(lambda: k20[(4,)](*args)):7.1f} us")
print(f"triton 20 args, compiled launcher  {t(lambda: ck.run(4, 1, 1, stream, ck.function, ck.packed_metadata, None, None, None, *args)):7.1f} us")
print(f"stream synchronize (idle)          {t(lambda: torch.cuda.current_stream().synchronize()):7.1f} us")

ms = load("Index/masked_select.py")
fz = load("Fusion/fused_masked_select_add_gelu.py")
gen = torch.Generator(device="cuda").manual_seed(0)
print(f"{'n':>9} {'eager us':>9} {'kernel us':>9} {'speedup':>8} | {'eager us':>9} {'kernel us':>9} {'speedup':>8}  equal")
for n in [4096, 65536, 1048576, 4194304, 16777216]:
    a = torch.randn(n, device="cuda", generator=gen)
    m = torch.rand(n, device="cuda", generator=gen) > 0.5
    k = int(m.sum())
    o = torch.randn(k, device="cuda", generator=gen)
    same = torch.equal(ms.masked_select(a, m), torch.masked_select(a, m))
    close = torch.allclose(fz.fused_masked_select_add_gelu(a, m, o, alpha=0.5),
                           F.gelu(torch.masked_select(a, m) + 0.5 * o), atol=1e-5, rtol=1e-5)
    e1 = t(lambda: torch.masked_select(a, m))
    k1 = t(lambda: ms.masked_select(a, m))
    e2 = t(lambda: F.gelu(torch.masked_select(a, m) + 0.5 * o))
    k2 = t(lambda: fz.fused_masked_select_add_gelu(a, m, o, alpha=0.5))
    print(f"{n:>9} {e1:9.1f} {k1:9.1f} {e1 / k1:8.3f} | {e2:9.1f} {k2:9.1f} {e2 / k2:8.3f}  {same} {close}", flush=True)

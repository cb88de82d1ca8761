#!/usr/bin/env python3
"""How far compiled Triton's tl.cos / tl.sin (and libdevice's) stray from the float64 answer as
|x| grows, beside torch's float32 cos/sin on the same device, and a naive float32 range reduction
(the known gap Fusion/fused_cos_signbit__naive_range_reduction.py). Decides whether a wide-range
case (|x| in the thousands) can join a cosine task without failing honest tl.cos kernels.
usage: python3 tune/trig_range.py [DEVICE (cuda)]"""
import sys

import torch
import triton
import triton.language as tl

try:
    from triton.language.extra import libdevice
except ImportError:  # older layouts
    from triton.language.extra.cuda import libdevice


@triton.jit
def _trig(x_ptr, out_ptr, n, WHICH: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    if WHICH == 0:
        y = tl.cos(x)
    elif WHICH == 1:
        y = tl.sin(x)
    elif WHICH == 2:
        y = libdevice.cos(x)
    elif WHICH == 3:
        y = libdevice.sin(x)
    else:  # naive float32 range reduction, then tl.cos
        k = tl.floor(x * 0.15915494309189535 + 0.5)
        y = tl.cos(x - k * 6.283185307179586)
    tl.store(out_ptr + offs, y, mask=m)


def main() -> int:
    dev = sys.argv[1] if len(sys.argv) > 1 else "cuda"
    g = torch.Generator(device="cpu").manual_seed(0)
    print(f"device {torch.cuda.get_device_name() if dev == 'cuda' else dev}, triton {triton.__version__}")
    print(f"{'|x| up to':>10} {'tl.cos':>9} {'tl.sin':>9} {'ld.cos':>9} {'ld.sin':>9} {'naive':>9} "
          f"{'torch.cos':>9} {'torch.sin':>9}   (max abs error against float64)")
    for r in (10.0, 100.0, 1e3, 1e4, 1e5):
        x = ((torch.rand(1 << 20, generator=g, dtype=torch.float64) * 2 - 1) * r).float()
        x = torch.cat([x, torch.tensor([r, -r, 1e4, -1e4], dtype=torch.float32)])
        exact_c, exact_s = torch.cos(x.double()), torch.sin(x.double())
        xd = x.to(dev)
        errs = []
        for which, exact in ((0, exact_c), (1, exact_s), (2, exact_c), (3, exact_s), (4, exact_c)):
            out = torch.empty_like(xd)
            try:
                _trig[(triton.cdiv(xd.numel(), 1024),)](xd, out, xd.numel(), WHICH=which,
                                                        BLOCK=1024)
            except Exception:  # libdevice under the interpreter
                errs.append(float("nan"))
                continue
            errs.append((out.double().cpu() - exact).abs().max().item())
        errs.append((torch.cos(xd).double().cpu() - exact_c).abs().max().item())
        errs.append((torch.sin(xd).double().cpu() - exact_s).abs().max().item())
        print(f"{r:>10g} " + " ".join(f"{e:9.2e}" for e in errs))
    return 0


if __name__ == "__main__":
    sys.exit(main())

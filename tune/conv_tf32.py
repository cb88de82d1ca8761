#!/usr/bin/env python3
"""Would the public harness's float32 convolutions differ from kbx's? (docs/errata.md, "Float32
without TF32")

usage: tune/conv_tf32.py [SEEDS (3)]

kbx's workers turn TF32 off for cuDNN; the public harness keeps PyTorch's default (cuDNN's float32
convolutions may use TF32). For every case that mirrors a public call (not `kbx_only`) of the tasks
whose key names a convolution, this draws the case's inputs SEEDS times with kbx's own builder
(kbx_worker.values), evaluates kbx's reference with cuDNN TF32 off and on, and counts the draws
whose two results differ beyond the public float32 tolerance (rtol = atol = 1e-5): where they do,
a float32-exact Triton kernel fails the public harness and passes kbx. On the CPU there is no
TF32 and every count is 0 (the script still runs every case, as a check of itself).
"""
import importlib.util
import json
import pathlib
import sys

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
from kbx_worker.values import ValueBuilder  # noqa: E402 - after the path above

SUITE = ROOT / "suites" / "kernelbenchx"


def reference(task_dir: pathlib.Path):
    spec = importlib.util.spec_from_file_location(task_dir.name, task_dir / "reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def leaves(x):
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in leaves(v)]
    return []


def main() -> int:
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.backends.cuda.matmul.allow_tf32 = False
    print(f"device {torch.cuda.get_device_name() if device == 'cuda' else 'cpu'}, {seeds} draws")
    print(f"{'task':<48} {'draws':>5} {'raised':>6} {'differ':>6} {'max rel err':>12}")
    for path in sorted(SUITE.glob("*/*/task.json")):
        task = json.loads(path.read_text())
        if "conv" not in task["key"].lower():
            continue
        ref = reference(path.parent)
        fn = getattr(ref, task["entry"])
        draws = raised = differ = 0
        worst = 0.0
        for case in (c for c in task["cases"] if not c.get("kbx_only")):
            for seed in range(seeds):
                outs = []
                for tf32 in (False, True):
                    torch.backends.cudnn.allow_tf32 = tf32
                    try:  # the same draw both times, dropout masks included
                        args, kwargs = ValueBuilder(seed, device, ref).build_call(
                            case.get("args", []), case.get("kwargs", {}))
                        torch.manual_seed(seed)
                        outs.append([t.detach().double() for t in leaves(fn(*args, **kwargs))])
                    except Exception as e:  # noqa: BLE001 - a case that raises is not compared
                        outs.append(repr(e)[:60])
                draws += 1
                if isinstance(outs[0], str) or isinstance(outs[1], str):
                    raised += 1
                    continue
                bad = False
                for a, b in zip(*outs):
                    if a.numel() == 0:
                        continue
                    err = (a - b).abs()
                    bad |= bool((err > 1e-5 + 1e-5 * a.abs()).any())
                    worst = max(worst, float((err / a.abs().clamp_min(1e-30)).max()))
                differ += bad
        print(f"{task['key']:<48} {draws:>5} {raised:>6} {differ:>6} {worst:>12.2e}")
    torch.backends.cudnn.allow_tf32 = False
    return 0


if __name__ == "__main__":
    sys.exit(main())

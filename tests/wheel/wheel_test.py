#!/usr/bin/env python3
"""`pip install kbx`: builds the wheel, installs it into a fresh virtual environment with torch and
Triton, and evaluates examples on the CPU through the installed `kbx` command, the installed
binary alone (which must find its suite, worker and Python in the wheel), and the Python API
(kbx.suite, kbx.evaluate, kbx.load_run, to_pandas). Also checks that the binary needs nothing
beyond glibc.

The venv: created with nothing but torch, Triton and NumPy, pinned to the versions of --python
(the project's interpreter; pip takes local wheels where it is configured to), and kept in
WORK/venv between runs, since installing torch and Triton is most of the cost. Before each run any
kbx in it is uninstalled and `import kbx` must fail; the new wheel is then installed, so what is
tested is always this wheel on a clean torch + Triton. --fresh recreates the venv.
The wheel is built by tools/build_wheel.sh, its CMake build in --build-dir (default WORK/build; ctest
passes build-wheel/, the script's own folder; incremental, ccache when installed).

  wheel_test.py --python .venv/bin/python --work build-ci/wheel-test [--build-dir DIR] [--fresh] [--pandas]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
# What the self-contained binary may link: the glibc family and the dynamic loader.
GLIBC_LIBS = ("linux-vdso.so", "libc.so", "libm.so", "libdl.so", "libpthread.so", "librt.so",
              "ld-linux-x86-64.so", "ld-linux-aarch64.so")


class Failure(Exception):
    pass


def run(cmd: list, **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        raise Failure(f"{' '.join(map(str, cmd))} exited {proc.returncode}:\n"
                      f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


def step(name: str, t0: list) -> None:
    now = time.monotonic()
    print(f"wheel_test: {name} ({now - t0[0]:.0f} s)", flush=True)
    t0[0] = now


def build_wheel(python: str, work: pathlib.Path, build_dir: pathlib.Path) -> pathlib.Path:
    """tools/build_wheel.sh, with its CMake build in BUILD_DIR and the wheel in WORK/dist."""
    dist = work / "dist"
    shutil.rmtree(dist, ignore_errors=True)
    env = dict(os.environ, KBX_WHEEL_BUILD_DIR=str(build_dir), KBX_WHEEL_DIST=str(dist))
    print("wheel_test: " + run([ROOT / "tools" / "build_wheel.sh", python], env=env).stdout.splitlines()[-1])
    wheels = list(dist.glob("kbx-*.whl"))
    if len(wheels) != 1:
        raise Failure(f"expected one kbx wheel in {dist}, found {wheels}")
    return wheels[0]


def pins(python: str) -> list:
    """torch, triton and numpy at the project interpreter's versions (local labels such as +cpu
    dropped: `torch==2.13.0` also matches 2.13.0+cpu)."""
    code = "import torch, triton, numpy; print(torch.__version__, triton.__version__, numpy.__version__)"
    versions = run([python, "-c", code]).stdout.split()
    return [f"{name}=={v.split('+')[0]}" for name, v in zip(("torch", "triton", "numpy"), versions)]


def fresh_venv(python: str, work: pathlib.Path, fresh: bool) -> pathlib.Path:
    venv = work / "venv"
    want = " ".join(pins(python))
    stamp = venv / "kbx-test-pins.txt"
    if fresh or not stamp.is_file() or stamp.read_text() != want:
        shutil.rmtree(venv, ignore_errors=True)
        run([python, "-m", "venv", venv])  # no --system-site-packages: only what is installed here
        run([venv / "bin" / "python", "-m", "pip", "install", "-q", *want.split()])
        stamp.write_text(want)
    vpy = venv / "bin" / "python"
    run([vpy, "-m", "pip", "uninstall", "-q", "-y", "kbx", "pandas"])
    if subprocess.run([vpy, "-c", "import kbx"], capture_output=True, cwd=work).returncode == 0:
        raise Failure(f"{venv}: `import kbx` works before the wheel is installed")
    return venv


def clean_env(venv: pathlib.Path, cache: pathlib.Path, with_venv_on_path: bool) -> dict:
    """The environment of a user: no KBX_* or PYTHONPATH from the build, the venv's bin on PATH
    (as after `activate`) or not at all."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("KBX_") and k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and ".venv" not in p]
    if with_venv_on_path:
        path.insert(0, str(venv / "bin"))
    env["PATH"] = os.pathsep.join(path)
    env["KBX_CACHE_DIR"] = str(cache)
    return env


def installed_binary(venv: pathlib.Path) -> pathlib.Path:
    found = list((venv / "lib").glob("python3*/site-packages/kbx/_home/bin/kbx"))
    if len(found) != 1:
        raise Failure(f"no kbx/_home/bin/kbx in {venv}: {found}")
    return found[0]


def check_ldd(binary: pathlib.Path) -> str:
    out = run(["ldd", binary]).stdout
    extra = [line.strip() for line in out.splitlines()
             if line.strip() and not any(lib in line for lib in GLIBC_LIBS)]
    if extra:
        raise Failure(f"{binary} links more than glibc:\n" + "\n".join(extra))
    return out


def results_of(out: pathlib.Path) -> list:
    return json.loads((out / "kbx-results.json").read_text())["submissions"]


def expect_ok(out: pathlib.Path, task: str) -> None:
    subs = results_of(out)
    if len(subs) != 1 or subs[0]["file"] != task or subs[0]["outcome"] != "ok":
        raise Failure(f"{out}: expected {task} ok, got {[(s['file'], s['outcome'], s['detail']) for s in subs]}")


def cli_eval(venv: pathlib.Path, tmp: pathlib.Path) -> pathlib.Path:
    """`kbx` from the venv's bin on PATH: suite list, then an evaluation."""
    env = clean_env(venv, tmp / "cache", with_venv_on_path=True)
    if shutil.which("kbx", path=env["PATH"]) != str(venv / "bin" / "kbx"):
        raise Failure(f"kbx on PATH is {shutil.which('kbx', path=env['PATH'])}, not the venv's")
    tasks = json.loads(run(["kbx", "suite", "list", "--json"], env=env, cwd=tmp).stdout)
    if len(tasks) < 100:
        raise Failure(f"kbx suite list found {len(tasks)} tasks in the wheel's suite")
    out = tmp / "cli"
    proc = run(["kbx", "eval", ROOT / "examples/correct/Math/softmax.py", "-o", out, "--device", "cpu",
                "-j", "1"], env=env, cwd=tmp)
    if "site-packages/kbx/_home/suites/kernelbenchx" not in proc.stderr:
        raise Failure(f"kbx eval did not use the wheel's suite:\n{proc.stderr}")
    expect_ok(out, "Math/softmax.py")
    # The wheel's binary has no libcurl (docs/decisions/0006): generate must say so and stop.
    gen = subprocess.run(["kbx", "generate", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m",
                          "-o", tmp / "gen"], env=env, cwd=tmp, capture_output=True, text=True)
    if gen.returncode == 0 or "needs a kbx built with libcurl" not in gen.stderr:
        raise Failure(f"kbx generate without libcurl: exit {gen.returncode}, {gen.stderr}")
    return out


def binary_eval(venv: pathlib.Path, tmp: pathlib.Path) -> None:
    """The installed binary run by its path, the venv not on PATH and no KBX_PYTHON: it must find
    the venv's Python itself (src/cli/locate.cpp)."""
    env = clean_env(venv, tmp / "cache", with_venv_on_path=False)
    out = tmp / "binary"
    proc = run([installed_binary(venv), "eval", ROOT / "examples/correct/Activation/relu.py", "-o", out,
                "--device", "cpu", "-j", "1"], env=env, cwd=tmp)
    if f"worker ({venv}/bin/python3)" not in proc.stderr:
        raise Failure(f"the binary did not pick the venv's Python:\n{proc.stderr}")
    expect_ok(out, "Activation/relu.py")


API_CHECK = r"""
import json, pathlib, sys
import kbx
cli_run, examples = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
tasks = kbx.suite()
assert len(tasks) > 100 and all(isinstance(t, kbx.Task) for t in tasks), len(tasks)
assert kbx.task("Math/softmax.py")["entry"] == "softmax"
code = (examples / "correct/Reduce/sum.py").read_text()
r = kbx.evaluate("Reduce/sum.py", code, device="cpu")
assert isinstance(r, kbx.EvalResult) and r.ok and r.exe_ok and not r.perf_ok, r
assert r.speedup is None and r.speedup_interval is None and r.stages["total"] > 0, r
assert r.diagnostics and all(d.status == "ok" for d in r.diagnostics), r.diagnostics
wrong = (examples / "broken/wrong/Math/softmax.py").read_text()
w = kbx.evaluate("Math/softmax.py", wrong, device="cpu")
assert w.outcome == "incorrect" and not w.exe_ok and w.reason, w
assert any(d.status == "mismatch" and d.err_abs_max > 0 for d in w.diagnostics), w.diagnostics
run = kbx.load_run(cli_run)
assert len(run) == 1 and run[0]["outcome"] == "ok" and run.summary["total"] == 1, run
db = kbx.load_run(cli_run / "kbx.db")
assert db[0]["file"] == "Math/softmax.py" and db[0]["exe_ok"] is True, db[0]
try:
    run.to_pandas()
    has_pandas = True
except ImportError:
    has_pandas = False
print(json.dumps({"pandas": has_pandas, "outcome": r.outcome, "wrong": [w.outcome, w.reason],
                  "stages_ms": r.stages}))
"""

PANDAS_CHECK = r"""
import pathlib, sys
import kbx
df = kbx.load_run(pathlib.Path(sys.argv[1])).to_pandas()
assert list(df["outcome"]) == ["ok"] and df.loc[0, "file"] == "Math/softmax.py", df
print("pandas ok", df.shape)
"""


def api_checks(venv: pathlib.Path, tmp: pathlib.Path, cli_run: pathlib.Path, pandas: bool) -> None:
    env = clean_env(venv, tmp / "cache", with_venv_on_path=False)
    vpy = venv / "bin" / "python"
    out = run([vpy, "-c", API_CHECK, cli_run, ROOT / "examples"], env=env, cwd=tmp).stdout
    print(f"wheel_test: api {out.strip()}")
    if json.loads(out)["pandas"]:
        raise Failure("to_pandas worked without pandas installed")
    if pandas:
        run([vpy, "-m", "pip", "install", "-q", "pandas"])
        print("wheel_test: " + run([vpy, "-c", PANDAS_CHECK, cli_run], env=env, cwd=tmp).stdout.strip())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", required=True, help="the project's Python (builds the wheel; its torch, triton and numpy versions are pinned)")
    ap.add_argument("--work", required=True, type=pathlib.Path, help="folder for the build, dist and venv, kept between runs")
    ap.add_argument("--build-dir", type=pathlib.Path, help="the wheel's CMake build folder (default WORK/build)")
    ap.add_argument("--fresh", action="store_true", help="recreate the venv")
    ap.add_argument("--pandas", action="store_true", help="also install pandas and check to_pandas")
    a = ap.parse_args()
    a.work.mkdir(parents=True, exist_ok=True)
    work = a.work.resolve()
    t0 = [time.monotonic()]
    try:
        wheel = build_wheel(a.python, work, (a.build_dir or work / "build").resolve())
        step(f"built {wheel.name}, {wheel.stat().st_size / 2**20:.1f} MiB", t0)
        venv = fresh_venv(a.python, work, a.fresh)
        step("venv with torch, triton, numpy only", t0)
        run([venv / "bin" / "python", "-m", "pip", "install", "-q", wheel])
        print(check_ldd(installed_binary(venv)), end="")
        step("installed the wheel", t0)
        with tempfile.TemporaryDirectory(prefix="kbx-wheel-test-") as tmp_name:
            tmp = pathlib.Path(tmp_name)
            cli_run = cli_eval(venv, tmp)
            step("kbx command: suite list, eval examples/correct/Math/softmax.py, generate refused", t0)
            binary_eval(venv, tmp)
            step("installed binary by path: eval examples/correct/Activation/relu.py", t0)
            api_checks(venv, tmp, cli_run, a.pandas)
            step("Python API: suite, task, evaluate (ok and incorrect), load_run", t0)
    except Failure as e:
        print(f"wheel_test: FAILED: {e}", file=sys.stderr)
        return 1
    print("wheel_test: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Session 32's question after tune/host_cpus.py (one process moved across the CPUs: host speed of
blocking calls came in two levels about 1.4x apart, mostly but not always the same per CPU between
two passes 30 s apart; pinning timed processes to the four fastest did not steady eig or
spectral_norm_eig): is the slow level a property of the process, of the CPU, or of the moment?
Several fresh processes take turns on the same CPUs, round after round; each measures the same
calls there. Rows that stay apart on every CPU: the process. Columns: the CPU. Rounds: the time.
Prints the machine's CPU and NUMA layout first.
usage: python3 tune/host_pair.py [WORKERS (5)] [ROUNDS (4)] [CPUS (0,4,8,12)]"""

import os
import statistics
import subprocess
import sys
import time

CHILD = r'''
import os, statistics, sys, time
import torch
x = torch.randn(1 << 16, device="cuda"); mask = x > 0
h = torch.randn(96, 96)
def med(fn, n):
    for _ in range(10): fn()
    torch.cuda.synchronize(); t = []
    for _ in range(n):
        s = time.perf_counter(); fn(); torch.cuda.synchronize(); t.append(time.perf_counter() - s)
    return statistics.median(t) * 1e6
def py_loop():
    s = 0
    for i in range(20000): s += i
work = {"masked_select": (lambda: torch.masked_select(x, mask), 200),
        "launch_only": (lambda: x.mul(2.0), 200),
        "cpu_eigvals": (lambda: torch.linalg.eigvals(h), 20),
        "py_loop": (py_loop, 20)}
print("ready", flush=True)
for line in sys.stdin:
    cpu = int(line)
    os.sched_setaffinity(0, {cpu})
    out = [f"{med(fn, n):.1f}" for fn, n in work.values()]
    print(" ".join(out), flush=True)
'''


def sh(cmd: str) -> str:
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=10).stdout
    except Exception as e:  # the layout is context; the measurement goes on without it
        return f"({cmd}: {e})\n"


def main() -> None:
    workers = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    cpus = [int(c) for c in (sys.argv[3] if len(sys.argv) > 3 else "0,4,8,12").split(",")]
    print(sh("lscpu | grep -iE 'model name|socket|core|thread|numa|mhz'"), end="")
    print("nodes:", sh("ls /sys/devices/system/node | grep node | tr '\\n' ' '"))
    print(sh("for c in " + " ".join(map(str, cpus)) +
             "; do echo cpu$c siblings $(cat /sys/devices/system/cpu/cpu$c/topology/thread_siblings_list 2>/dev/null); done"), end="")
    procs = [subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True) for _ in range(workers)]
    for p in procs:
        assert p.stdout.readline().strip() == "ready"
    names = ["masked_select", "launch_only", "cpu_eigvals", "py_loop"]
    print("round cpu worker  " + "  ".join(f"{n:>13}" for n in names) + "   (median us a call)")
    table = {}
    t0 = time.time()
    for r in range(rounds):
        for c in cpus:
            for w, p in enumerate(procs):
                p.stdin.write(f"{c}\n")
                p.stdin.flush()
                vals = [float(v) for v in p.stdout.readline().split()]
                table[(r, c, w)] = vals
                print(f"{r:5d} {c:3d} {w:6d}  " + "  ".join(f"{v:13.1f}" for v in vals), flush=True)
    print(f"({time.time() - t0:.1f} s)")
    for i, n in enumerate(names):
        print(f"\n{n}: median over the other two axes, by worker / cpu / round")
        for axis, keys in (("worker", range(workers)), ("cpu", cpus), ("round", range(rounds))):
            pos = {"round": 0, "cpu": 1, "worker": 2}[axis]
            row = [statistics.median(v[i] for k, v in table.items() if k[pos] == key) for key in keys]
            print(f"  {axis:6s} " + " ".join(f"{v:7.1f}" for v in row))
    for p in procs:
        p.stdin.close()
        p.wait()


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# kbx serve's throughput on a GPU in one call (device tool or any CUDA machine): starts `kbx serve`
# on the GPU(s), warms the reference-output and Triton caches with the bundled correct examples
# (small tasks), then measures evaluations per second from concurrent clients (python/kbx_client.py):
#   perf off   every request a fresh evaluation (a unique comment appended, so the store cannot
#              answer it; Triton's cache still hits, its key is the kernel's own source)
#   perf on    the same with the perf stage (timing is exclusive per GPU: evaluations overlap only
#              outside their timed sections, docs/serve.md)
#   repeats    identical code, answered from the store (no evaluation)
# and prints a table. Target (issue 10): perf off >= 20 evaluations/s on one H200.
# Compiles are shared through kbx's compile cache (python/kbx_worker/compile_cache.py): after the
# warm-up the script waits until the harvests of the warm-up workers' claims have ended.
# usage: tools/h200_serve.sh   env: RESULTS (/tmp/kbx-serve-bench), JOBS (16), CLIENTS (64),
#        N_OFF (400), N_ON (48), N_REPEAT (1000), GPUS (0), COMPILE_CACHE (DIR or off; default
#        $RESULTS/compile)
set -uo pipefail
cd "$(dirname "$0")/.."
py="${KBX_PYTHON:-python3}"
results="${RESULTS:-/tmp/kbx-serve-bench}"
rm -rf "$results" && mkdir -p "$results"
export KBX_PYTHON="$py" KBX_CACHE_DIR="$results/cache" TRITON_CACHE_DIR="$results/triton"
tools/build_device.sh "$results/build.log" || exit 1
kbx="${KBX:-build-device/kbx}"
"$kbx" serve -o "$results/serve" --device cuda --gpus "${GPUS:-0}" -j "${JOBS:-16}" \
  --queue 4096 --listen 127.0.0.1:0 --compile-cache "${COMPILE_CACHE:-$results/compile}" \
  2>"$results/serve.log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
url=""
for _ in $(seq 600); do
  url="$(grep -o 'listening on http://[0-9.:]*' "$results/serve.log" | head -n 1 | cut -d' ' -f3)"
  [ -n "$url" ] && break
  kill -0 $pid 2>/dev/null || { cat "$results/serve.log"; exit 1; }
  sleep 0.5
done
[ -n "$url" ] || { echo "kbx serve did not start"; cat "$results/serve.log"; exit 1; }
echo "kbx serve at $url ($(nproc) cores, GPUs ${GPUS:-0}, ${JOBS:-16} evaluation threads)"
RESULTS_DIR="$results" PYTHONPATH=python "$py" - "$url" <<'PY'
import collections, concurrent.futures, os, pathlib, sys, time, uuid
from kbx_client import Client
url = sys.argv[1]
clients = int(os.environ.get("CLIENTS", "64"))
subs = [("/".join(p.parts[-2:]), p.read_text())
        for p in sorted(pathlib.Path("examples/correct").rglob("*.py"))]
c = Client(url, timeout=1800, retries=50)

def run(n, perf, unique):  # unique: a fresh evaluation per request; else the warm-up's verdicts
    def one(i):
        key, code = subs[i % len(subs)]
        if unique:
            code += f"\n# request {uuid.uuid4().hex}\n"
        t = time.time()
        v = c.evaluate(key, code, perf=perf)["verdict"]
        return time.time() - t, v
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        got = list(pool.map(one, range(n)))
    wall = time.time() - t0
    lat = sorted(x for x, _ in got)
    outcomes = collections.Counter(v["outcome"] for _, v in got)
    verdicts = collections.Counter(v["speedup_verdict"] for _, v in got)
    return n / wall, wall, lat[len(lat) // 2], lat[int(len(lat) * 0.95)], outcomes, verdicts

t0 = time.time()
for key, code in subs:  # warm the reference outputs, reference timings and the compile cache
    c.evaluate(key, code, perf=True)
zygote_log = pathlib.Path(os.environ["RESULTS_DIR"]) / "serve" / "work" / "zygote.log"
def harvests_done():  # the inbox is the zygote's private tmpfs: count its harvest lines instead
    text = zygote_log.read_text(errors="replace") if zygote_log.exists() else ""
    return sum(1 for line in text.splitlines() if line.startswith("kbx harvest"))
seen, still = -1, 0
while still < 10 and time.time() - t0 < 120:  # until no harvest has ended for 5 s
    n = harvests_done()
    seen, still = n, (still + 1 if n == seen else 0)
    time.sleep(0.5)
print(f"warm-up {len(subs)} submissions, harvested, in {time.time() - t0:.1f} s")
rows = [(name, *run(n, perf, unique)) for name, n, perf, unique in (
    ("perf off", int(os.environ.get("N_OFF", "400")), False, True),
    ("perf on", int(os.environ.get("N_ON", "48")), True, True),
    ("repeats (store)", int(os.environ.get("N_REPEAT", "1000")), True, False)) if n > 0]
print(f"{'mode':<16} {'evals/s':>8} {'n':>5} {'wall s':>7} {'p50 s':>6} {'p95 s':>6}  outcomes; speedup verdicts")
for name, rate, wall, p50, p95, outcomes, verdicts in rows:
    n = sum(outcomes.values())
    print(f"{name:<16} {rate:8.1f} {n:5d} {wall:7.1f} {p50:6.2f} {p95:6.2f}  {dict(outcomes)}; {dict(verdicts)}")
h = c.health()
print(f"health: {h['evaluated']} evaluated, {h['answered']} answered, queue {h['queue_depth']}/{h['queue_capacity']}, "
      f"{h['rejected_queue_full']} refused (full); target perf off >= 20/s: "
      f"{'met' if rows[0][1] >= 20 else 'NOT met'}")
logs = pathlib.Path(os.environ["RESULTS_DIR"]) / "serve" / "work"
harvests = [l for l in (logs / "zygote.log").read_text(errors="replace").splitlines()
            if l.startswith("kbx harvest")] if (logs / "zygote.log").exists() else []
print(f"compile cache: {len(harvests)} harvests; last: {harvests[-1][:300] if harvests else '-'}")
PY

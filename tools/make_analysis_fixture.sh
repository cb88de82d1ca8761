#!/usr/bin/env bash
# Regenerates tests/data/analysis/: small stores of real kbx runs (the test data of `kbx analyze`
# and `kbx report`, docs/analysis.md "The fixture"). Every run is made by the real kbx on the CPU
# (Triton's interpreter), the generated ones against tests/generate/fake_llm_server.py answering
# from recorded kernels (examples/, in a fixed order per task):
#   refine     kbx generate --method refine --rounds 3: relu and mse_loss correct at once, softmax
#              wrong then fixed (round 1), sum torch-only twice then fixed (round 2), SGD a syntax
#              error then fixed, fused_add_gelu crashing in all three rounds, abs refused (no code)
#   one-shot   kbx generate --method one-shot over the same tasks, other answers
#   examples   kbx eval of examples/correct and examples/broken (method examples)
#   model      kbx eval of some of tests/model_kernels (method model-kernels)
#   solutions  kbx eval of solutions/ for the same tasks (method expert): the --best-known run
# Extra run folders (say a run on an H200) are copied in as they are: each RUN's kbx.db becomes
# tests/data/analysis/<basename of RUN>/kbx.db; the tests accept one device or several.
# Usage: tools/make_analysis_fixture.sh [RUN_DIR...]   (KBX, KBX_PYTHON, KBX_JOBS: binary, Python, parallel jobs)
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
kbx="${KBX:-$root/build-ci/kbx}"
[ -x "$kbx" ] || kbx="$root/build/kbx"
python="${KBX_PYTHON:-$root/.venv/bin/python}"
jobs="${KBX_JOBS:-1}"
[ -x "$python" ] || python="$(command -v python3)"
dest="$root/tests/data/analysis"
work="$(mktemp -d)"
trap 'kill "${server_pid:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT
say() { printf 'fixture: %s\n' "$*" >&2; }

# copy_run RUN_DIR NAME: the store alone, compacted; the response cache's request and response
# bodies are emptied (the analyses never read them; the extracted text stays).
copy_run() {
  mkdir -p "$dest/$2"
  rm -f "$dest/$2/kbx.db"
  "$python" - "$1/kbx.db" "$dest/$2/kbx.db" <<'EOF'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
con.execute("VACUUM INTO ?", (sys.argv[2],))
con.close()
con = sqlite3.connect(sys.argv[2])
if con.execute("SELECT 1 FROM sqlite_master WHERE name = 'llm_responses'").fetchone():
    con.execute("UPDATE llm_responses SET request_json = '', response_json = ''")
    con.commit()
con.execute("PRAGMA page_size = 1024")
con.execute("VACUUM")
con.execute("PRAGMA journal_mode = WAL")  # as kbx opens it: reading the fixture leaves it unchanged
con.close()
EOF
  say "$2: $(du -k "$dest/$2/kbx.db" | cut -f1) KB"
}

if [ $# -gt 0 ]; then  # only add the given runs
  for run in "$@"; do
    [ -f "$run/kbx.db" ] || { say "$run holds no kbx.db"; exit 2; }
    copy_run "$run" "$(basename "$run")"
  done
  exit 0
fi

start_server() {  # start_server SCRIPT_JSON: sets port and server_pid
  "$python" tests/generate/fake_llm_server.py --log "$work/server.log" --script "$1" \
    > "$work/port" 2> "$work/server.err" &
  server_pid=$!
  for _ in $(seq 50); do
    grep -q '^port ' "$work/port" 2>/dev/null && break
    sleep 0.1
  done
  port="$(cut -d' ' -f2 "$work/port")"
}

stop_server() { kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=0; }

generate() {  # generate NAME SCRIPT_JSON ARGS...
  local name="$1" script="$2"
  shift 2
  start_server "$script"
  OPENAI_API_KEY=sk-fake "$kbx" generate --endpoint "http://127.0.0.1:$port/v1" \
    --model fake-coder -o "$work/$name" --device cpu --jobs "$jobs" --python "$python" \
    --cache-dir "$work/cache" --tasks "$tasks" "$@" > "$work/$name.log" 2>&1 || true
  stop_server
  copy_run "$work/$name" "$name"
}

tasks="Activation/relu,Math/softmax,Reduce/sum,Fusion/fused_add_gelu,Loss/mse_loss,Optimizer/SGD,Math/abs"
c=examples/correct
b=examples/broken
cat > "$work/refine.json" <<EOF
{"Activation/relu.py": ["$c/Activation/relu.py"],
 "Math/softmax.py": ["$b/wrong/Math/softmax.py", "$c/Math/softmax.py"],
 "Reduce/sum.py": ["$b/torch_only/Reduce/sum.py", "$b/torch_only/Reduce/sum.py", "$c/Reduce/sum.py"],
 "Fusion/fused_add_gelu.py": ["$b/crash/Fusion/fused_add_gelu.py"],
 "Loss/mse_loss.py": ["$c/Loss/mse_loss.py"],
 "Optimizer/SGD.py": ["$b/syntax/Activation/relu.py", "$c/Optimizer/SGD.py"],
 "Math/abs.py": ["refuse"]}
EOF
cat > "$work/one-shot.json" <<EOF
{"Activation/relu.py": ["$b/syntax/Activation/relu.py"],
 "Math/softmax.py": ["$b/wrong/Math/softmax.py"],
 "Reduce/sum.py": ["$c/Reduce/sum.py"],
 "Fusion/fused_add_gelu.py": ["$c/Fusion/fused_add_gelu.py"],
 "Loss/mse_loss.py": ["$c/Loss/mse_loss.py"],
 "Optimizer/SGD.py": ["$c/Optimizer/SGD.py"],
 "Math/abs.py": ["refuse"]}
EOF

rm -rf "$dest"
mkdir -p "$dest"
generate refine "$work/refine.json" --method refine --rounds 3
generate one-shot "$work/one-shot.json" --method one-shot

say "examples"
mkdir -p "$work/ex"
cp -r "$c" "$work/ex/correct"
cp -r "$b/wrong" "$b/syntax" "$b/torch_only" "$b/crash" "$work/ex/"
"$kbx" eval "$work/ex" -o "$work/examples" --device cpu --jobs "$jobs" --python "$python" \
  --cache-dir "$work/cache" --method examples --model hand-written > "$work/examples.log" 2>&1 || true
copy_run "$work/examples" examples

say "model kernels"
"$python" tests/model_kernels/build_jsonl.py "$work/model.jsonl" 'Activation/gelu*.py' \
  'Quantization/*.py' 'Reduce/mean*.py' 'Loss/cross_entropy*.py' 'Math/div*.py' >&2
"$kbx" eval "$work/model.jsonl" -o "$work/model" --device cpu --jobs "$jobs" --python "$python" \
  --cache-dir "$work/cache" --method model-kernels --model hand-written > "$work/model.log" 2>&1 || true
copy_run "$work/model" model

say "solutions"
mkdir -p "$work/sol"
for t in Math/softmax Reduce/sum Reduce/mean Fusion/fused_add_gelu Loss/mse_loss \
         Loss/cross_entropy Activation/gelu Quantization/matmul_w8a8; do
  mkdir -p "$work/sol/$(dirname "$t")"
  cp "solutions/$t.py" "$work/sol/$t.py"
done
"$kbx" eval "$work/sol" -o "$work/solutions" --device cpu --jobs "$jobs" --python "$python" \
  --cache-dir "$work/cache" --method expert --model kbx-solutions > "$work/solutions.log" 2>&1 || true
copy_run "$work/solutions" solutions
du -sh "$dest" >&2

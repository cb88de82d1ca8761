#!/usr/bin/env bash
# Builds the fuzz preset (clang, libFuzzer, ASan + UBSan) and runs a fuzz target on its corpus.
# Usage: tools/fuzz.sh TARGET SECONDS [libFuzzer flags...]
#        tools/fuzz.sh all SECONDS [flags...]      every target, SECONDS split evenly among them
# TARGET is submission, task or worker_reply (fuzz/README.md). New inputs go to
# build-fuzz/corpus/TARGET (the checked-in seeds in fuzz/corpus/TARGET are only read); a crash,
# leak, timeout (10 s on one input) or out-of-memory (2 GB) writes the input to
# build-fuzz/artifacts/ and exits non-zero. KBX_FUZZ_NO_BUILD=1 skips the build.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=(submission task worker_reply)
[ $# -ge 2 ] || { echo "usage: tools/fuzz.sh {${targets[*]// /|}|all} SECONDS [libFuzzer flags...]" >&2; exit 2; }
target="$1"
seconds="$2"
shift 2

if [ -z "${KBX_FUZZ_NO_BUILD:-}" ]; then
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz
fi

run_one() {  # name seconds [flags...]
  local name="$1" secs="$2"
  shift 2
  local bin="build-fuzz/fuzz/kbx_fuzz_$name"
  [ -x "$bin" ] || { echo "fuzz: no target '$name' ($bin); targets: ${targets[*]}" >&2; return 2; }
  mkdir -p "build-fuzz/corpus/$name" build-fuzz/artifacts
  echo "fuzz: $name for ${secs} s" >&2
  set +e
  UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" ASAN_OPTIONS="detect_leaks=1" \
    "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -dict=fuzz/json.dict -artifact_prefix="build-fuzz/artifacts/$name-" "$@" \
    "build-fuzz/corpus/$name" "fuzz/corpus/$name" 2>&1 | grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)|^\s*NEW_FUNC'
  local rc="${PIPESTATUS[0]}"
  set -e
  [ "$rc" -eq 0 ] || echo "fuzz: $name FAILED (exit $rc); the input is in build-fuzz/artifacts/" >&2
  return "$rc"
}

if [ "$target" = all ]; then
  per=$((seconds / ${#targets[@]}))
  for t in "${targets[@]}"; do
    run_one "$t" "$per" "$@"
  done
else
  run_one "$target" "$seconds" "$@"
fi

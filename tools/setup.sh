#!/usr/bin/env bash
# Installs what kbx needs and builds it: Debian/Ubuntu packages (when missing), a Python with torch
# and Triton (an existing one, or .venv from python/requirements.txt), then the CMake build.
# Usage: tools/setup.sh [release|dev|ci|fuzz]   (default release; the binary lands in build/kbx;
# ci and fuzz also install clang with libFuzzer; ci also headless Chromium)
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"

say() { printf 'setup: %s\n' "$*" >&2; }

# 1. System packages (headers and libraries kbx builds on).
install_missing() {  # installs those of the Debian packages "$@" that are not installed yet
  local missing=() p sudo=""
  if command -v dpkg-query >/dev/null; then
    for p in "$@"; do
      dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
  fi
  ((${#missing[@]})) || return 0
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  if command -v apt-get >/dev/null; then
    say "installing ${missing[*]}"
    $sudo apt-get update -qq || say "apt-get update failed; trying the install anyway"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    say "missing packages ${missing[*]} and no apt-get: install them with your package manager"
    exit 1
  fi
}
install_missing g++ cmake ninja-build pkg-config libfmt-dev nlohmann-json3-dev libcli11-dev \
  libsqlite3-dev libgtest-dev libgmock-dev libbenchmark-dev libeigen3-dev python3-venv \
  libcurl4-openssl-dev libcpp-httplib-dev libssl-dev zlib1g-dev libbrotli-dev

# 1b. For the fuzz preset (and ci, whose tests run it): clang and libFuzzer, the compiler-rt
# package of the installed clang's version (Debian 12: clang 14, libclang-rt-14-dev).
links_fuzzer() {
  printf 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }\n' |
    clang++ -x c++ -fsanitize=fuzzer -o /dev/null - >/dev/null 2>&1
}
if [ "$preset" = fuzz ] || [ "$preset" = ci ]; then
  command -v clang++ >/dev/null || install_missing clang
  if ! links_fuzzer; then
    major="$(clang++ --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n 1)"
    install_missing "libclang-rt-${major}-dev"
    links_fuzzer || { say "clang++ cannot link -fsanitize=fuzzer (install libFuzzer for clang $major)"; exit 1; }
  fi
fi

# 1c. For ci: a real single-node Slurm cluster for tests/slurm (kbx slurm's end-to-end test starts
# munged, slurmctld and slurmd on loopback itself; installing the packages starts nothing it needs).
if [ "$preset" = ci ]; then
  install_missing slurmctld slurmd slurm-client munge
fi
# 1d. For ci: headless Chromium, which the e2e case report/html loads `kbx report`'s page in (it
# checks the page statically without it). About 100 MB from Debian; a failed install only warns.
if [ "$preset" = ci ] && ! command -v chromium >/dev/null; then
  install_missing chromium || say "chromium did not install: report/html checks its page without a browser"
fi

# 2. Python with torch and triton: $KBX_PYTHON, else python3 if it has both, else .venv.
has_worker_deps() { "$1" -c 'import torch, triton, numpy' >/dev/null 2>&1; }
python="${KBX_PYTHON:-}"
if [ -z "$python" ]; then
  if [ -x .venv/bin/python ] && has_worker_deps .venv/bin/python; then
    python=.venv/bin/python
  elif has_worker_deps python3 && python3 -c 'import pytest' >/dev/null 2>&1; then
    python=python3
  else
    say "creating .venv with python/requirements.txt (torch, triton, numpy, pytest, radon)"
    python3 -m venv .venv
    .venv/bin/python -m pip install -q --upgrade pip 2>&1 | grep -v '^WARNING: Location' || true
    .venv/bin/python -m pip install -q -r python/requirements.txt 2>&1 | grep -v '^WARNING: Location' || true
    has_worker_deps .venv/bin/python || { say "torch/triton did not install into .venv"; exit 1; }
    python=.venv/bin/python
  fi
fi
# radon (code_quality and maintainability in metrics.json): into the chosen Python when missing; kbx
# exports "N/A" for both, with a note, where it is not there.
if ! "$python" -c 'import radon' >/dev/null 2>&1; then
  radon_pin="$(grep -E '^radon' python/requirements.txt | cut -d' ' -f1)"
  say "installing $radon_pin into $python"
  "$python" -m pip install -q "$radon_pin" 2>&1 | grep -v '^WARNING: Location' || true
  "$python" -c 'import radon' >/dev/null 2>&1 || say "radon did not install: metrics.json's code_quality and maintainability will be N/A"
fi
say "python: $python ($("$python" -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'))"

# 3. Build (the tests get the interpreter as an absolute path: ctest runs them from the build dir).
case "$python" in
  */*) python_abs="$(cd "$(dirname "$python")" && pwd)/$(basename "$python")" ;;
  *) python_abs="$(command -v "$python")" ;;
esac
cmake --preset "$preset" -DKBX_PYTHON="$python_abs" >/dev/null
cmake --build --preset "$preset"

#!/usr/bin/env bash
# Builds the kbx wheel into dist/ (pip install dist/kbx-*.whl): the self-contained kbx binary
# (SQLite, libstdc++ and libgcc static, no libcurl: `kbx generate` needs a source build), the suite,
# prompts and kbx_worker, and the Python package kbx. scikit-build-core runs the CMake project with
# pyproject.toml's settings; the CMake build stays in build-wheel/ (rebuilds are incremental) and goes
# through ccache when it is installed. pip fetches scikit-build-core into an isolated build env.
# usage: tools/build_wheel.sh [PYTHON]   (default: $KBX_PYTHON, else .venv/bin/python, else python3)
# $KBX_WHEEL_BUILD_DIR and $KBX_WHEEL_DIST move the CMake build and the wheel (tests/wheel does).
set -euo pipefail
cd "$(dirname "$0")/.."
python="${1:-${KBX_PYTHON:-}}"
if [ -z "$python" ]; then
  if [ -x .venv/bin/python ]; then python=.venv/bin/python; else python=python3; fi
fi
build_dir="${KBX_WHEEL_BUILD_DIR:-build-wheel}"
dist="${KBX_WHEEL_DIST:-dist}"
args=(-C "build-dir=$build_dir")
if command -v ccache >/dev/null; then
  args+=(-C cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
# CUPTI's headers for libkbx_cupti (the GPU kernel inventory): the toolkit's, else Triton's copy.
if [ ! -f /usr/local/cuda/include/cupti.h ] && [ -z "${CUDA_HOME:-}" ]; then
  inc=$("$python" -c 'import os, triton; print(os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "include"))' 2>/dev/null || true)
  if [ -n "$inc" ] && [ -f "$inc/cupti.h" ]; then
    args+=(-C "cmake.define.KBX_CUPTI_INCLUDE_DIR=$inc" -C "cmake.define.KBX_CUDA_INCLUDE_DIR=$inc")
  fi
fi
t0=$(date +%s)
rm -f "$dist"/kbx-*.whl
"$python" -m pip wheel . --no-deps -w "$dist" "${args[@]}"
wheel=$(ls "$dist"/kbx-*.whl)
echo "built $wheel ($(du -h "$wheel" | cut -f1)) in $(( $(date +%s) - t0 )) s"

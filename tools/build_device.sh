#!/usr/bin/env bash
# Builds a self-contained kbx (fmt header-only, SQLite and libstdc++ static; needs only glibc >= 2.36)
# into build-device/kbx, for a machine that lacks the build dependencies. Where the machine has no
# sqlite3.h (the H200), the SQLite header and static library carried in .device/sqlite are used;
# likewise Eigen's headers from .device/eigen3, and cpp-httplib's header-only httplib.h from
# .device/httplib (for `kbx serve`; without it the build has no serve). tools/device_bundle.sh fills
# .device from this machine's packages.
# Does nothing when build-device/kbx exists and is newer than every source file.
# usage: tools/build_device.sh [LOG]
set -euo pipefail
cd "$(dirname "$0")/.."
log="${1:-/tmp/kbx-build-device.log}"
if [ -x build-device/kbx ] && [ -z "$(find src CMakeLists.txt CMakePresets.json -newer build-device/kbx -print -quit)" ]; then
  exit 0
fi
extra=()
if [ -f .device/sqlite/sqlite3.h ] && [ ! -f /usr/include/sqlite3.h ]; then
  extra=(-DSQLite3_INCLUDE_DIR="$PWD/.device/sqlite" -DSQLite3_LIBRARY="$PWD/.device/sqlite/libsqlite3.a"
         -DKBX_SQLITE_STATIC="$PWD/.device/sqlite/libsqlite3.a")
fi
# Eigen's headers (header-only): a copy carried in .device/eigen3 where the machine has none.
if [ -f .device/eigen3/Eigen/Dense ] && [ ! -f /usr/include/eigen3/Eigen/Dense ]; then
  extra+=(-DKBX_EIGEN_INCLUDE_DIR="$PWD/.device/eigen3")
fi
# cpp-httplib for kbx serve: the self-contained build links no libcpp-httplib.so, so it always uses
# the carried single header (header-only) when there is one.
if [ -f .device/httplib/httplib.h ]; then
  extra+=(-DKBX_HTTPLIB_INCLUDE_DIR="$PWD/.device/httplib")
fi
# CUPTI's headers for libkbx_cupti (the kernel inventory): the toolkit's, else the copy Triton ships.
if [ ! -f /usr/local/cuda/include/cupti.h ] && [ -z "${CUDA_HOME:-}" ]; then
  inc=$("${KBX_PYTHON:-python3}" -c 'import os, triton; print(os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "include"))' 2>/dev/null || true)
  if [ -n "$inc" ] && [ -f "$inc/cupti.h" ]; then
    extra+=(-DKBX_CUPTI_INCLUDE_DIR="$inc" -DKBX_CUDA_INCLUDE_DIR="$inc")
  fi
fi
t0=$(date +%s)
cmake --preset device "${extra[@]}" >/dev/null
cmake --build --preset device -j "$(nproc)" >"$log" 2>&1 || { tail -30 "$log"; exit 1; }
echo "built build-device/kbx in $(( $(date +%s) - t0 )) s"

#!/usr/bin/env bash
# Builds a self-contained kbx (fmt header-only, SQLite and libstdc++ static; needs only glibc >= 2.36)
# into build-device/kbx, to carry to a machine that lacks the build dependencies (the H200 has no sqlite3.h).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset device >/dev/null
cmake --build --preset device
ldd build-device/kbx

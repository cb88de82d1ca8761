#!/usr/bin/env bash
# Fills .device/ (ignored by git; named in the device tool's `carry`) with what a GPU machine that
# lacks the build dependencies needs for tools/build_device.sh: SQLite's header and static library,
# and Eigen's headers, copied from this machine's Debian packages (tools/setup.sh installs them).
# usage: tools/device_bundle.sh
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .device/sqlite .device/eigen3
cp /usr/include/sqlite3.h /usr/include/sqlite3ext.h .device/sqlite/
cp "$(dpkg -L libsqlite3-dev | grep '/libsqlite3\.a$' | head -n 1)" .device/sqlite/
cp -r /usr/include/eigen3/Eigen .device/eigen3/
echo "device bundle: $(du -sh .device | cut -f1) in .device (carry it: [\".device\"])"

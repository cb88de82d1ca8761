#!/usr/bin/env bash
# Fills .device/ (ignored by git; named in the device tool's `carry`) with what a GPU machine that
# lacks the build dependencies needs for tools/build_device.sh: SQLite's header and static library,
# and Eigen's headers, copied from this machine's Debian packages (tools/setup.sh installs them);
# and cpp-httplib's single header for `kbx serve` (below).
# usage: tools/device_bundle.sh
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .device/sqlite .device/eigen3
cp /usr/include/sqlite3.h /usr/include/sqlite3ext.h .device/sqlite/
cp "$(dpkg -L libsqlite3-dev | grep '/libsqlite3\.a$' | head -n 1)" .device/sqlite/
cp -r /usr/include/eigen3/Eigen .device/eigen3/
# cpp-httplib (kbx serve): Debian splits it into a header of declarations and libcpp-httplib.so,
# which needs OpenSSL, zlib and Brotli and cannot go into a self-contained build. Upstream's
# httplib.h is header-only; it is in Debian's source package of the installed version, fetched
# once with apt-get source (a deb-src list of its own) and unpacked with Debian's patches applied.
if [ ! -f .device/httplib/httplib.h ]; then
  version="$(dpkg-query -W -f='${Version}' libcpp-httplib-dev)"
  codename="$(. /etc/os-release && echo "$VERSION_CODENAME")"
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/lists/partial"
  printf 'deb-src http://deb.debian.org/debian %s main\ndeb-src http://deb.debian.org/debian-security %s-security main\n' \
    "$codename" "$codename" >"$tmp/sources.list"
  apt_src=(-o Dir::Etc::SourceList="$tmp/sources.list" -o Dir::Etc::SourceParts=/dev/null
           -o Dir::State::Lists="$tmp/lists")
  apt-get "${apt_src[@]}" update -qq
  (cd "$tmp" && apt-get "${apt_src[@]}" source -qq "cpp-httplib=$version" >/dev/null 2>&1)
  header="$(find "$tmp" -maxdepth 2 -name httplib.h -path '*cpp-httplib*' | head -n 1)"
  [ -n "$header" ] && [ "$(wc -l <"$header")" -gt 5000 ] || { echo "device bundle: no header-only httplib.h in the source package of cpp-httplib $version" >&2; exit 1; }
  mkdir -p .device/httplib
  cp "$header" .device/httplib/httplib.h
fi
echo "device bundle: $(du -sh .device | cut -f1) in .device (carry it: [\".device\"])"

// Locating kbx's files and the default device.
#include "cli/locate.h"

#include <unistd.h>

#include <cstdlib>

namespace kbx::cli {
namespace {

namespace fs = std::filesystem;

bool is_home(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p / "python" / "kbx_worker", ec) && fs::is_directory(p / "suites", ec);
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : fallback;
}

// The interpreter of the Python installation a wheel put kbx into: a home at
// <prefix>/lib/pythonX.Y/site-packages/kbx/_home gives <prefix>/bin/python3, when that exists.
fs::path wheel_python(const fs::path& home) {
  fs::path site = home.parent_path().parent_path();
  bool in_wheel = home.filename() == "_home" && home.parent_path().filename() == "kbx" &&
                  (site.filename() == "site-packages" || site.filename() == "dist-packages");
  if (!in_wheel) {
    return {};
  }
  std::error_code ec;
  fs::path bin = site.parent_path().parent_path().parent_path() / "bin";
  for (const char* name : {"python3", "python"}) {
    if (fs::exists(bin / name, ec)) {
      return bin / name;
    }
  }
  return {};
}

}  // namespace

fs::path kbx_home() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (fs::path p = exe.parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path()) {
      if (is_home(p)) {
        return p;
      }
    }
  }
  return KBX_SOURCE_DIR;
}

fs::path default_suite_root() {
  return env_or("KBX_SUITE", (kbx_home() / "suites" / "kernelbenchx").string());
}

std::string default_python() {
  fs::path home = kbx_home();
  fs::path venv = home / ".venv" / "bin" / "python";
  std::error_code ec;
  if (fs::exists(venv, ec)) {
    return env_or("KBX_PYTHON", venv.string());
  }
  fs::path installed = wheel_python(home);
  return env_or("KBX_PYTHON", installed.empty() ? "python3" : installed.string());
}

fs::path default_cache_dir() {
  if (const char* v = std::getenv("KBX_CACHE_DIR"); v != nullptr && *v != '\0') {
    return v;
  }
  if (const char* v = std::getenv("XDG_CACHE_HOME"); v != nullptr && *v != '\0') {
    return fs::path(v) / "kbx";
  }
  return fs::path(env_or("HOME", "/tmp")) / ".cache" / "kbx";
}

std::string detect_device() {
  std::error_code ec;
  return fs::exists("/dev/nvidiactl", ec) || fs::exists("/dev/nvidia0", ec) ? "cuda" : "cpu";
}

}  // namespace kbx::cli

// Finding kbx's own files (suite, worker package, Python) from the binary's location.
#pragma once

#include <filesystem>
#include <string>

namespace kbx::cli {

/// The folder holding suites/ and python/: the nearest such folder above the binary (build/kbx in a
/// checkout, kbx/_home/bin/kbx in an installed wheel), else the source tree kbx was built from.
std::filesystem::path kbx_home();

/// --suite, else $KBX_SUITE, else <home>/suites/kernelbenchx.
std::filesystem::path default_suite_root();

/// $KBX_PYTHON, else <home>/.venv/bin/python if present, else the Python whose site-packages hold
/// an installed wheel's home (<prefix>/bin/python3), else "python3".
std::string default_python();

/// $KBX_CACHE_DIR, else $XDG_CACHE_HOME/kbx, else ~/.cache/kbx.
std::filesystem::path default_cache_dir();

/// "cuda" when an NVIDIA device node exists, else "cpu".
std::string detect_device();

}  // namespace kbx::cli

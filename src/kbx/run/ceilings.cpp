// Device ceilings: measured by a trusted Python step, cached per device fingerprint.
#include "kbx/run/ceilings.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "kbx/common/files.h"
#include "kbx/common/hash.h"

namespace kbx::run {

namespace fs = std::filesystem;

namespace {

std::string field(const Json& device, const char* name) {
  auto it = device.find(name);
  if (it == device.end() || it->is_null()) {
    return "";
  }
  return it->is_string() ? it->get<std::string>() : it->dump();
}

}  // namespace

std::string ceilings_key(const Json& device, const std::string& torch_version) {
  std::string id = fmt::format("ceilings-v1|{}|{}|{}|{}|{}|{}|{}", field(device, "kind"),
                               field(device, "name"), field(device, "uuid"),
                               field(device, "capability"), field(device, "driver"),
                               field(device, "torch_cuda"), torch_version);
  return sha256_hex(id).substr(0, 32);
}

fs::path ceilings_path(const fs::path& cache_dir, const Json& device,
                       const std::string& torch_version) {
  return cache_dir / "ceilings" / (ceilings_key(device, torch_version) + ".json");
}

std::optional<Json> read_ceilings(const fs::path& cache_dir, const Json& device,
                                  const std::string& torch_version) {
  fs::path path = ceilings_path(cache_dir, device, torch_version);
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    return std::nullopt;
  }
  try {
    Json j = Json::parse(read_file(path), nullptr, false);
    if (j.is_object() && j.value("copy_gbs", 0.0) > 0 && j.contains("matmul_tflops")) {
      return j;
    }
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

Result<Json> measure_ceilings(const PythonStep& step, const std::string& device, bool quick) {
  std::string pattern = (fs::temp_directory_path() / "kbx-ceilings-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    return Error(ErrorKind::io, "cannot create a folder under {}: {}",
                 fs::temp_directory_path().string(), std::strerror(errno));
  }
  fs::path scratch = pattern;
  std::vector<std::string> args{"--device", device};
  if (quick) {
    args.emplace_back("--quick");
  }
  std::string problem =
      run_python_step(step, "kbx_worker.ceilings", args, scratch / "out.json", scratch / "log.txt");
  Json j;
  if (problem.empty()) {
    j = Json::parse(read_file(scratch / "out.json"), nullptr, false);
  }
  std::error_code ec;
  fs::remove_all(scratch, ec);
  if (!problem.empty()) {
    return Error(ErrorKind::io, "measuring the ceilings of {} (python -m kbx_worker.ceilings): {}",
                 device, problem);
  }
  bool ok = j.is_object() && j.value("copy_gbs", 0.0) > 0 && j.contains("matmul_tflops") &&
            j["matmul_tflops"].is_object() && j.contains("device") && j["device"].is_object();
  if (ok) {
    for (const auto& [dtype, v] : j["matmul_tflops"].items()) {
      ok = ok && v.is_number() && v.get<double>() > 0;
    }
  }
  if (!ok) {
    return Error(ErrorKind::io,
                 "measuring the ceilings of {}: the step's reply is not a measurement "
                 "(copy_gbs, matmul_tflops, device): {}",
                 device, j.is_discarded() ? "not JSON" : j.dump().substr(0, 300));
  }
  return j;
}

fs::path write_ceilings(const fs::path& cache_dir, const Json& measured) {
  fs::path path = ceilings_path(cache_dir, measured.at("device"), measured.value("torch", ""));
  fs::create_directories(path.parent_path());
  write_file_atomic(path, measured.dump(2) + "\n");
  return path;
}

}  // namespace kbx::run

// A device's measured ceilings (copy bandwidth, matrix throughput per dtype), kept in the cache
// by `kbx calibrate` and attached to every later run on the same device (docs/metrics.md).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "kbx/common/json.h"
#include "kbx/common/result.h"
#include "kbx/run/python_step.h"

namespace kbx::run {

/// The cache key of a device's ceilings: what its peaks depend on (kind, name, UUID, compute
/// capability, driver, CUDA and torch versions), never its index or the worker's thread count.
/// `device` is a worker's device description (kbx_worker.env.describe_cuda / describe_cpu).
std::string ceilings_key(const Json& device, const std::string& torch_version);

/// cache_dir/ceilings/<key>.json.
std::filesystem::path ceilings_path(const std::filesystem::path& cache_dir, const Json& device,
                                    const std::string& torch_version);

/// The ceilings measured for this device, or nothing when `kbx calibrate` has not measured them
/// (or the file is unreadable: it is then ignored, and calibrate rewrites it).
std::optional<Json> read_ceilings(const std::filesystem::path& cache_dir, const Json& device,
                                  const std::string& torch_version);

/// Runs `python -m kbx_worker.ceilings --device DEVICE [--quick]` (DEVICE "cpu" or "cuda:N") and
/// returns its measurement, checked: copy_gbs > 0, matmul_tflops an object of positive numbers,
/// a device description. An error says what failed and shows the step's output.
Result<Json> measure_ceilings(const PythonStep& step, const std::string& device, bool quick);

/// Writes a measurement where read_ceilings finds it (atomically); returns the path.
std::filesystem::path write_ceilings(const std::filesystem::path& cache_dir, const Json& measured);

}  // namespace kbx::run

// measure_code_quality: one `python -m kbx_worker.code_quality IN OUT` over every submission.
#include "kbx/run/code_quality.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "kbx/common/files.h"
#include "kbx/run/python_step.h"

namespace kbx::run {
namespace {

namespace fs = std::filesystem;

Json failed(const std::string& why) {
  return Json{{"radon", nullptr},
              {"note", "code quality not measured: " + why},
              {"results", Json::object()}};
}

Json run_step(const CodeQualityStep& step, const fs::path& in, const fs::path& out,
              const fs::path& log) {
  std::string problem = run_python_step(PythonStep{step.python, step.worker_path, step.timeout},
                                        "kbx_worker.code_quality", {in.string(), out.string()},
                                        log, log);
  if (!problem.empty()) {
    return failed("python -m kbx_worker.code_quality: " + problem);
  }
  Json reply = Json::parse(read_file(out), nullptr, false);
  if (reply.is_discarded() || !reply.is_object()) {
    return failed("its reply is not a JSON object");
  }
  return reply;
}

}  // namespace

Json measure_code_quality(const CodeQualityStep& step, const report::ReportModel& model) {
  Json sources = Json::object();
  for (const auto& row : model.rows) {
    sources[row.submission_id] = row.code;
  }
  std::string pattern = (fs::temp_directory_path() / "kbx-code-quality-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    return failed(fmt::format("cannot create a folder under {}: {}",
                              fs::temp_directory_path().string(), std::strerror(errno)));
  }
  fs::path scratch = pattern;
  Json reply;
  try {
    write_file_atomic(scratch / "in.json", Json{{"sources", sources}}.dump(
                                               -1, ' ', false, Json::error_handler_t::replace));
    reply = run_step(step, scratch / "in.json", scratch / "out.json", scratch / "log.txt");
  } catch (const std::exception& e) {
    reply = failed(e.what());
  }
  std::error_code ec;
  fs::remove_all(scratch, ec);
  return reply;
}

}  // namespace kbx::run

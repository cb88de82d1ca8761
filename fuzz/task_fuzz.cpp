// libFuzzer target: a task.json (suite::parse_task_json), then what a run derives from a loaded
// task: its resolved cases and workloads, its precision contracts and the worker's case requests.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kbx/compare/tolerance.h"
#include "kbx/run/replies.h"
#include "kbx/suite/suite.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto task = kbx::suite::parse_task_json(text, "suites/fuzz/Math/softmax", "Math/softmax.py");
  if (!task) {
    return 0;
  }
  auto cases = kbx::suite::resolve_cases(*task, 7);
  auto workloads = kbx::suite::resolve_workloads(*task, 7);
  if (cases.size() < task->cases.size() || workloads.size() != task->workloads.size()) {
    __builtin_trap();  // one call per case (and a recheck), one per workload
  }
  (void)kbx::compare::parse_contract(task->precision);
  if (!task->kernelbenchx_precision.is_null()) {
    (void)kbx::compare::parse_contract(task->kernelbenchx_precision);
  }
  (void)kbx::run::cases_json(*task, cases, /*for_reference=*/true);
  (void)kbx::run::cases_json(*task, workloads, /*for_reference=*/false, /*all_arguments=*/false);
  (void)kbx::run::calls_json(workloads);
  return 0;
}

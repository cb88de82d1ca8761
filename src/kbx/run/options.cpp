// RunOptions serialisation.
#include "kbx/run/options.h"

namespace kbx::run {

Json TimingSettings::to_json() const {
  Json j{{"warmup_ms", warmup_ms},     {"warmup_min_calls", warmup_min_calls},
         {"min_samples", min_samples}, {"max_samples", max_samples},
         {"budget_ms", budget_ms},     {"ci_target", ci_target},
         {"ci_budget_ms", ci_budget_ms}, {"ci_max_samples", ci_max_samples},
         {"flush_l2", flush_l2},
         {"spin_up_ms", spin_up_ms}};
  if (do_bench) {
    j["do_bench"] = true;  // only when asked: the timing cache's key stays as it was otherwise
  }
  return j;
}

Json RunOptions::identity() const {
  Json j{{"device", device},
         {"seed", seed},
         {"require_triton", require_triton},
         {"perf", perf},
         {"rules", rules},
         {"suite_root", suite_root.string()}};
  if (!labels.empty()) {  // a resume may leave them out; it may not change them
    j["labels"] = labels;
  }
  if (perf_scale != 1) {  // runs made before the option existed ran the full workloads
    j["perf_scale"] = perf_scale;
  }
  if (reference_timing != "session") {  // runs made before the choice existed timed per session
    j["reference_timing"] = reference_timing;
  }
  if (shard.active()) {  // a shard's split depends on the selection and the suite's tasks
    j["shard"] = shard.label();
    j["tasks"] = tasks_pattern;
  }
  return j;
}

}  // namespace kbx::run

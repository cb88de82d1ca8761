// RunOptions serialisation.
#include "kbx/run/options.h"

#include <algorithm>

#include "kbx/common/strings.h"

namespace kbx::run {

Result<std::vector<std::string>> parse_baselines(const std::string& list) {
  std::vector<std::string> out{baseline_eager};
  for (const auto& part : split(list, ',')) {
    std::string name(trim(part));
    if (name != baseline_eager && name != baseline_compile) {
      return Error(ErrorKind::usage,
                   "--baseline takes eager, compile or eager,compile (got '{}')", list);
    }
    if (std::find(out.begin(), out.end(), name) == out.end()) {
      out.push_back(name);
    }
  }
  return out;
}

bool RunOptions::compile_baseline() const {
  return std::find(baselines.begin(), baselines.end(), baseline_compile) != baselines.end();
}

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
  if (graph) {  // likewise
    j["graph"] = true;
    j["graph_max_ms"] = graph_max_ms;
  }
  if (fast_cpus) {  // likewise
    j["fast_cpus"] = true;
  }
  if (spread_cpus) {  // likewise
    j["spread_cpus"] = true;
  }
  if (long_call_samples != TimingSettings{}.long_call_samples) {  // likewise
    j["long_call_samples"] = long_call_samples;
  }
  if (short_call_budget_ms != TimingSettings{}.short_call_budget_ms) {  // likewise
    j["short_call_budget_ms"] = short_call_budget_ms;
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
  if (baselines.size() > 1) {  // runs made before the choice existed had eager alone
    j["baselines"] = baselines;
  }
  if (!timing_cpus.empty()) {  // timed on other CPUs: a resume keeps the same ones
    j["timing_cpus"] = timing_cpus;
  }
  if (timing.fast_cpus) {  // timed on the fastest CPUs: a resume keeps it
    j["fast_cpus"] = true;
  }
  if (timing.spread_cpus && device == "cuda" && perf) {  // samples spread over the CPUs: a
    j["spread_cpus"] = true;  // resume keeps it (a run that times nothing has no CPUs to spread)
  }
  if (fail_fast) {  // cases stopped at the first failure: a resume may not mix the two
    j["fail_fast"] = true;
  }
  if (timing.graph) {  // graph figures beside eager: a resume may not add or drop them
    j["graph_max_ms"] = timing.graph_max_ms;
  }
  if (device == "cuda" && perf && cuda_connections != 0) {  // timed with that many hardware
    j["cuda_connections"] = cuda_connections;  // queues: a resume keeps the same
  }
  if (shard.active()) {  // a shard's split depends on the selection and the suite's tasks
    j["shard"] = shard.label();
    j["tasks"] = tasks_pattern;
  }
  return j;
}

}  // namespace kbx::run

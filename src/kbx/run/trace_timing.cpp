#include "kbx/run/trace_timing.h"

#include <fmt/format.h>

#include <algorithm>

#include "kbx/stats/summary.h"

namespace kbx::run {

void trace_time_request(Trace* trace, const std::string& lane, const std::string& name,
                        const Json& args, Trace::Clock::time_point begin,
                        Trace::Clock::time_point end,
                        const std::vector<store::TimingRecord>& timings) {
  if (trace == nullptr) {
    return;
  }
  auto put = [&](std::string span, std::string category, Trace::Clock::time_point b,
                 Trace::Clock::time_point e, Json a) {
    b = std::min(b, end);
    e = std::clamp(e, b, end);
    if (lane.empty()) {
      trace->span(std::move(span), std::move(category), b, e, std::move(a));
    } else {
      trace->span_on(lane, std::move(span), std::move(category), b, e, std::move(a));
    }
  };
  put(name, "timing", begin, end, args);
  auto at = begin;
  auto advance = [&](double ms) {
    return at + std::chrono::duration_cast<Trace::Clock::duration>(
                    std::chrono::duration<double, std::milli>(ms));
  };
  for (const auto& t : timings) {  // the request's setup came before every workload
    for (const auto& [phase, ms] : t.phase_ms) {
      if (phase == "setup") {
        put("setup", "phase", at, advance(ms), Json::object());
        at = advance(ms);
      }
    }
  }
  std::vector<std::pair<int, double>> inventory;
  for (const auto& t : timings) {
    double total = 0;
    for (const auto& [phase, ms] : t.phase_ms) {
      if (phase == "setup") {
        continue;
      }
      if (phase == "inventory") {
        inventory.emplace_back(t.workload, ms);
      } else {
        total += ms;
      }
    }
    if (total <= 0) {
      continue;
    }
    auto workload_begin = at;
    Json workload_args{{"samples", t.samples_ms.size()}, {"warmup_calls", t.warmup_calls}};
    if (!t.samples_ms.empty()) {  // the median and clock per workload, for both sides
      workload_args["median_ms"] = stats::summarize(t.samples_ms).median;
    }
    if (t.gpu_mhz) {
      workload_args["gpu_mhz"] = *t.gpu_mhz;
    }
    put(fmt::format("workload {}", t.workload), "workload", at, advance(total),
        std::move(workload_args));
    for (const auto& [phase, ms] : t.phase_ms) {
      if (phase != "setup" && phase != "inventory") {
        put(phase, "phase", at, advance(ms), Json::object());
        at = advance(ms);
      }
    }
    at = std::max(at, workload_begin);
  }
  for (const auto& [workload, ms] : inventory) {
    put(fmt::format("inventory {}", workload), "phase", at, advance(ms), Json::object());
    at = advance(ms);
  }
}

}  // namespace kbx::run

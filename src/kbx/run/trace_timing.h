// How a time request spent its wall time, drawn into a `kbx eval --trace` timeline.
#pragma once

#include <string>
#include <vector>

#include "kbx/common/trace.h"
#include "kbx/store/records.h"

namespace kbx::run {

/// A span `name` from `begin` to `end` for one time request, and inside it, laid end to end from
/// `begin`, each workload's phases as the worker reported them (TimingRecord::phase_ms: the
/// request's setup, then per workload its inputs, warm-up, samples and brackets, then the
/// inventory calls of every workload): the worker's own account, informative only. Each workload's
/// span carries its sample count, warm-up calls, median (stats::summarize's, as the report's) and, where the worker read it, the GPU's clock (`gpu_mhz`). On `lane`, or
/// on the calling thread's lane when `lane` is empty. Does nothing without a trace.
void trace_time_request(Trace* trace, const std::string& lane, const std::string& name,
                        const Json& args, Trace::Clock::time_point begin,
                        Trace::Clock::time_point end,
                        const std::vector<store::TimingRecord>& timings);

}  // namespace kbx::run

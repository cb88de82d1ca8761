// Task helpers: entry names, seeds and resolved calls.
#include "kbx/suite/task.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "kbx/common/hash.h"

namespace kbx::suite {

std::string Task::stem() const {
  std::string name = key.substr(key.rfind('/') + 1);
  if (name.ends_with(".py")) {
    name.resize(name.size() - 3);
  }
  return name;
}

std::vector<std::string> Task::entry_names() const { return {entry, stem(), "kernel_function"}; }

std::uint64_t derive_seed(const std::string& key, const std::string& what, std::uint64_t base_seed) {
  return fnv1a64(fmt::format("{}|{}|{}", key, what, base_seed)) & 0x7FFFFFFFFFFFFFFFULL;
}

std::vector<ResolvedCall> resolve_cases(const Task& task, std::uint64_t base_seed) {
  std::vector<ResolvedCall> calls;
  calls.reserve(task.cases.size());
  for (std::size_t i = 0; i < task.cases.size(); ++i) {
    const auto& c = task.cases[i];
    calls.push_back({static_cast<int>(i), c.name, derive_seed(task.key, "case|" + c.name, base_seed),
                     c.args, c.kwargs, c.raises, task.then, c.then_calls});
  }
  // The recheck: the first case that returns, called again last with fresh values of the same
  // shapes. A kernel that caches results by shape or by address, or that behaves differently
  // after its first call, returns stale values here.
  auto first_returning = std::find_if(task.cases.begin(), task.cases.end(),
                                      [](const TestCase& c) { return c.raises.empty(); });
  if (task.recheck && first_returning != task.cases.end()) {
    const TestCase& c = *first_returning;
    calls.push_back({static_cast<int>(calls.size()), c.name + "/recheck",
                     derive_seed(task.key, "recheck|" + c.name, base_seed), c.args, c.kwargs, {},
                     task.then, c.then_calls});
  }
  return calls;
}

std::size_t calls_per_request(const Task& task) {
  if (task.draws <= 1) {
    return std::numeric_limits<std::size_t>::max();
  }
  return std::max<std::size_t>(1, task.cases.size() / static_cast<std::size_t>(task.draws));
}

std::vector<std::pair<std::size_t, std::size_t>> request_ranges(const Task& task, std::size_t count) {
  const std::size_t per_request = calls_per_request(task);
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t begin = 0; begin < count;) {
    std::size_t end = begin + std::min(per_request, count - begin);
    out.emplace_back(begin, end);
    begin = end;
  }
  return out;
}

std::vector<ResolvedCall> resolve_workloads(const Task& task, std::uint64_t base_seed) {
  std::vector<ResolvedCall> calls;
  calls.reserve(task.workloads.size());
  for (const auto& w : task.workloads) {
    calls.push_back({w.index, fmt::format("perf/{}", w.index),
                     derive_seed(task.key, fmt::format("perf|{}", w.index), base_seed), w.args,
                     w.kwargs, {}, task.then});
  }
  return calls;
}

}  // namespace kbx::suite

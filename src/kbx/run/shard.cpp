// The shard split: a deterministic longest-processing-time-first greedy over expected costs.
#include "kbx/run/shard.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "kbx/common/hash.h"
#include "kbx/common/strings.h"

namespace kbx::run {
namespace {

// The cost model's constants, in rough seconds on a GPU: a module's import and first compile,
// one test case, one timed perf workload.
constexpr double load_cost = 4.0;
constexpr double case_cost = 0.5;
constexpr double workload_cost = 1.5;

/// Items placed together, with their expected cost (the task's once, plus each item's).
struct Chunk {
  std::vector<std::size_t> members;
  double cost = 0;
};

/// Splits one task's items (in id order) into as few contiguous chunks as keep each at or below
/// `target` on average (a task larger than a shard's fair share is spread; others stay whole).
void split_group(const std::vector<ShardItem>& items, const std::vector<std::size_t>& members,
                 double target, std::vector<Chunk>& out) {
  double cost = items[members.front()].task_cost;
  for (std::size_t i : members) {
    cost += items[i].cost;
  }
  std::size_t k = 1;
  if (target > 0 && cost > target) {
    k = std::min(members.size(), static_cast<std::size_t>(std::ceil(cost / target)));
  }
  for (std::size_t c = 0; c < k; ++c) {
    Chunk chunk;
    chunk.cost = items[members.front()].task_cost;
    for (std::size_t m = c * members.size() / k; m < (c + 1) * members.size() / k; ++m) {
      chunk.members.push_back(members[m]);
      chunk.cost += items[members[m]].cost;
    }
    out.push_back(std::move(chunk));
  }
}

}  // namespace

std::string Shard::label() const { return std::to_string(index) + "/" + std::to_string(count); }

Result<Shard> parse_shard(std::string_view text) {
  auto slash = text.find('/');
  Shard s;
  if (slash == std::string_view::npos || !parse_int(text.substr(0, slash), s.index) ||
      !parse_int(text.substr(slash + 1), s.count) || s.count < 1 || s.count > max_shards ||
      s.index < 1 || s.index > s.count) {
    return Error(ErrorKind::usage,
                 "--shard takes I/N with 1 <= I <= N <= {}, e.g. 2/3 for the second of three "
                 "(got '{}')",
                 max_shards, text);
  }
  return s;
}

std::string suite_fingerprint(const std::vector<suite::Task>& tasks) {
  std::string text;
  for (const auto& t : tasks) {
    text += t.key + " " + t.version + "\n";
  }
  return sha256_hex(text).substr(0, 32);
}

double submission_cost(const suite::Task& task, bool timed) {
  double cost = load_cost + case_cost * static_cast<double>(task.cases.size());
  if (timed) {
    cost += workload_cost * static_cast<double>(task.workloads.size());
  }
  return cost;
}

double task_setup_cost(const suite::Task& task, bool timed) {
  double cost = case_cost * static_cast<double>(task.cases.size());
  if (timed) {
    cost += workload_cost * static_cast<double>(task.workloads.size());
  }
  return cost;
}

std::vector<int> assign_shards(const std::vector<ShardItem>& items, int count) {
  KBX_CHECK(count >= 1) << "assign_shards with " << count << " shards";
  // Group by task (each group's items in id order), so a task's references are paid once.
  std::map<std::string, std::vector<std::size_t>> groups;
  double total = 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    auto& g = groups[items[i].task_key];
    total += items[i].cost + (g.empty() ? items[i].task_cost : 0.0);
    g.push_back(i);
  }
  const double target = total / count;
  std::vector<Chunk> chunks;
  for (auto& [key, members] : groups) {
    std::sort(members.begin(), members.end(),
              [&](std::size_t a, std::size_t b) { return items[a].id < items[b].id; });
    split_group(items, members, target, chunks);
  }
  std::sort(chunks.begin(), chunks.end(), [&](const Chunk& a, const Chunk& b) {
    if (a.cost != b.cost) {
      return a.cost > b.cost;
    }
    return items[a.members.front()].id < items[b.members.front()].id;
  });
  std::vector<double> load(static_cast<std::size_t>(count), 0.0);
  std::vector<int> out(items.size(), 0);
  for (const Chunk& c : chunks) {
    auto best = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[best] += c.cost;
    for (std::size_t i : c.members) {
      out[i] = static_cast<int>(best) + 1;
    }
  }
  return out;
}

}  // namespace kbx::run

// Sharding a run: a deterministic split of the planned submissions over N processes (kbx eval
// --shard).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kbx/common/result.h"
#include "kbx/suite/task.h"

namespace kbx::run {

/// One shard of a run: shard `index` of `count` (1-based, like Slurm's array task ids). A
/// default Shard (count 0) means "the whole run".
struct Shard {
  int index = 0;
  int count = 0;

  [[nodiscard]] bool active() const { return count > 0; }

  /// "2/3".
  [[nodiscard]] std::string label() const;
};

/// A fingerprint of the suite's tasks (sha256 over every key and version, in key order): shards
/// made against different suites split differently, so a merge compares it.
std::string suite_fingerprint(const std::vector<suite::Task>& tasks);

/// The largest N `--shard I/N` accepts.
constexpr int max_shards = 10'000;

/// Parses "I/N" (1 <= I <= N <= max_shards). Errors (kind usage) quote the text.
Result<Shard> parse_shard(std::string_view text);

/// One unit of work to place on a shard: a submission, the task it belongs to and its costs.
struct ShardItem {
  std::string id;  ///< the submission id (ties are broken by it, so the split is stable)
  std::string task_key;
  double cost = 0;       ///< expected cost of evaluating this submission (arbitrary units)
  double task_cost = 0;  ///< paid once per task and shard: references computed, timed, cached
};

/// Expected cost of evaluating one submission of `task`: a fixed load, its test cases, and its
/// perf workloads when they are timed. A model, not a measurement: every shard computes the same.
double submission_cost(const suite::Task& task, bool timed);
/// Expected once-per-task cost on a shard (computing the reference outputs; timing the reference).
double task_setup_cost(const suite::Task& task, bool timed);

/// Assigns every item to one of `count` shards (the result's i-th entry is item i's shard,
/// 1..count), balancing the expected cost. A task's items stay together (its references are then
/// computed and timed on one shard) unless the task costs more than a shard's fair share, when it
/// is cut into that many contiguous pieces (items in id order). The pieces are placed longest
/// first (ties by their first id), each on the least loaded shard (ties: the lower one). Depends
/// only on the items as a set, so N processes that read the same SOURCE and suite compute the same
/// split and cover every item exactly once.
std::vector<int> assign_shards(const std::vector<ShardItem>& items, int count);

}  // namespace kbx::run

// kbx merge: one store and one set of exports from many runs (shards of one split, or runs of
// different submissions), refusing runs that were judged differently unless told to combine them.
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kbx/common/json.h"
#include "kbx/report/report_model.h"

namespace kbx::cluster {

/// What a merge needs to know about one source run, read from its store.
struct RunInfo {
  std::filesystem::path db_path;
  std::string name;              ///< as the user named it (the -o folder)
  std::string label;             ///< how the merged store labels it ("shard 2/3", a folder name)
  Json config = Json::object();  ///< its run_config (judging options, shard, suite fingerprint)
  std::set<std::string> device_models;               ///< "NVIDIA H200", "cpu (Intel Xeon ...)"
  std::map<std::string, std::string> task_versions;  ///< task key -> version, as the run saw it
  std::map<std::string, std::string> evaluated;      ///< submission id -> "task key (origin)"
  int pending = 0;                                   ///< submissions in the store without a verdict
};

/// Reads a run's store (an -o folder or its kbx.db). Throws Error(usage) when it holds none.
RunInfo read_run_info(const std::string& run);

/// A difference between runs that --combine accepts, each field named once.
struct Difference {
  std::string field;    ///< "device", "seed", "labels", "device model", ...
  std::string details;  ///< "'a' has 1, 'b' has 2"
};

/// Checks that `runs` can be merged into one store. Always refused (Error usage, naming the field
/// and the runs): a submission evaluated in two runs, a task seen at two versions, shards of
/// different splits or the same shard twice; unless `partial`, a missing shard or submissions
/// without a verdict. Judging options, rules, suite and device model must agree too; the fields
/// that differ are returned when `combine`, else the first is refused naming --combine.
std::vector<Difference> check_mergeable(const std::vector<RunInfo>& runs, bool combine,
                                        bool partial);

/// The merged store's run_config: the runs' common options (without "shard"), each combined field
/// as {"combined": [value per run]} (labels: each differing label as "v1|v2"), and
/// "merged_from": [{"run", "label", "shard"}].
Json merged_config(const std::vector<RunInfo>& runs, const std::vector<Difference>& combined);

struct MergeOptions {
  std::vector<std::string> runs;  ///< -o folders of `kbx eval` runs, or their kbx.db files
  std::filesystem::path out;      ///< a folder without a kbx.db
  bool combine = false;
  bool partial = false;
  std::vector<std::string> argv;
  std::string python = "python3";     ///< runs the code-quality step (radon) for the exports
  std::filesystem::path worker_path;  ///< the folder holding the kbx_worker package
};

struct MergeSummary {
  int runs = 0;
  int evaluations = 0;
  std::vector<Difference> combined;
  report::ReportModel model;  ///< the merged store's report, as the exports were written from it
};

/// Merges: checks (check_mergeable), takes each source's and the output's folder lock, copies every
/// source's rows into `out`/kbx.db (store::Database::import_rows, each session labelled with its
/// source), records merged_config(), and writes metrics.json and summary.json as `kbx eval` does.
/// Throws kbx::Error for anything that ends the command.
MergeSummary merge_runs(const MergeOptions& options);

}  // namespace kbx::cluster

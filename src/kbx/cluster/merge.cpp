// kbx merge: reading the source runs, checking they belong together, copying, exporting.
#include "kbx/cluster/merge.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "kbx/common/error.h"
#include "kbx/common/folder_lock.h"
#include "kbx/report/exports.h"
#include "kbx/report/report_model.h"
#include "kbx/run/code_quality.h"
#include "kbx/run/shard.h"
#include "kbx/store/database.h"

namespace kbx::cluster {
namespace {

namespace fs = std::filesystem;

/// "cuda:1 NVIDIA H200" -> "NVIDIA H200"; other labels stay whole.
std::string device_model(const std::string& device) {
  if (device.rfind("cuda:", 0) == 0) {
    auto space = device.find(' ');
    return space == std::string::npos ? device : device.substr(space + 1);
  }
  return device;
}

fs::path db_path_of(const std::string& run) {
  std::error_code ec;
  fs::path p(run);
  if (fs::is_regular_file(p, ec)) {
    return p;
  }
  if (fs::exists(p / "kbx.db", ec)) {
    return p / "kbx.db";
  }
  throw Error(ErrorKind::usage, "'{}' holds no kbx.db; pass the -o folder of a `kbx eval` run",
              run);
}

/// Options that differ between shards of one split by design, or that only locate files.
bool compared_field(const std::string& key, const RunInfo& a, const RunInfo& b) {
  if (key == "shard") {
    return false;
  }
  if (key == "suite_root") {  // a path; where both have the suite's fingerprint, that decides
    return !(a.config.contains("suite_version") && b.config.contains("suite_version"));
  }
  return true;
}

std::string show(const Json& config, const std::string& key) {
  return config.contains(key) ? config[key].dump() : std::string("(not set)");
}

void check_shards(const std::vector<RunInfo>& runs, bool partial) {
  std::map<int, std::string> seen;
  int count = 0;
  for (const auto& r : runs) {
    if (!r.config.contains("shard")) {
      continue;
    }
    auto shard = run::parse_shard(r.config["shard"].get<std::string>());
    if (!shard) {
      throw Error(ErrorKind::store, "'{}': its run_config names shard {}, which is not I/N", r.name,
                  r.config["shard"].dump());
    }
    if (count != 0 && shard->count != count) {
      throw Error(ErrorKind::usage,
                  "'{}' is shard {} but another run is a shard of {}: shards of different splits "
                  "overlap; merge the shards of one split",
                  r.name, shard->label(), count);
    }
    count = shard->count;
    if (auto [it, fresh] = seen.emplace(shard->index, r.name); !fresh) {
      throw Error(ErrorKind::usage, "'{}' and '{}' are both shard {}: pass each shard once",
                  it->second, r.name, shard->label());
    }
  }
  std::vector<int> missing;
  for (int i = 1; count > 0 && i <= count; ++i) {
    if (seen.count(i) == 0) {
      missing.push_back(i);
    }
  }
  if (!missing.empty() && !partial) {
    throw Error(ErrorKind::usage,
                "shard{} {} of {} {} missing: pass every shard's run, or --partial to merge what "
                "is there",
                missing.size() == 1 ? "" : "s", fmt::join(missing, ", "), count,
                missing.size() == 1 ? "is" : "are");
  }
}

void check_pending(const std::vector<RunInfo>& runs, bool partial) {
  for (const auto& r : runs) {
    if (r.pending > 0 && !partial) {
      throw Error(ErrorKind::usage,
                  "'{}' has {} submission{} without a verdict (the run was interrupted or is still "
                  "going): finish it with the same `kbx eval` command, or pass --partial",
                  r.name, r.pending, r.pending == 1 ? "" : "s");
    }
  }
}

void check_coverage(const std::vector<RunInfo>& runs) {
  std::map<std::string, const RunInfo*> owner;
  std::map<std::string, std::pair<std::string, const RunInfo*>> task_version;
  for (const auto& r : runs) {
    for (const auto& [id, what] : r.evaluated) {
      if (auto [it, fresh] = owner.emplace(id, &r); !fresh) {
        throw Error(ErrorKind::usage,
                    "submission {} ({}) is evaluated in both '{}' and '{}': the runs overlap; "
                    "merge the shards of one split, or runs of different submissions",
                    id.substr(0, 12), what, it->second->name, r.name);
      }
    }
    for (const auto& [key, version] : r.task_versions) {
      auto [it, fresh] = task_version.emplace(key, std::make_pair(version, &r));
      if (!fresh && it->second.first != version) {
        throw Error(ErrorKind::usage,
                    "task {} has version {} in '{}' but {} in '{}': the suites differ, and one "
                    "store holds one version of a task; re-run one of them on the other's suite",
                    key, it->second.first.substr(0, 12), it->second.second->name,
                    version.substr(0, 12), r.name);
      }
    }
  }
}

std::string join_names(const std::set<std::string>& s) {
  return s.empty() ? "none" : fmt::format("{}", fmt::join(s, ", "));
}

std::vector<Difference> differences(const std::vector<RunInfo>& runs) {
  std::vector<Difference> out;
  auto note = [&](const std::string& field, const std::string& details) {
    for (const auto& d : out) {
      if (d.field == field) {
        return;
      }
    }
    out.push_back({field, details});
  };
  const RunInfo& first = runs.front();
  for (std::size_t i = 1; i < runs.size(); ++i) {
    const RunInfo& r = runs[i];
    std::set<std::string> keys;
    for (const auto& [k, v] : first.config.items()) {
      keys.insert(k);
    }
    for (const auto& [k, v] : r.config.items()) {
      keys.insert(k);
    }
    for (const auto& key : keys) {
      if (compared_field(key, first, r) && show(first.config, key) != show(r.config, key)) {
        note(key, fmt::format("'{}' has {}, '{}' has {}", first.name, show(first.config, key),
                              r.name, show(r.config, key)));
      }
    }
    if (!first.device_models.empty() && !r.device_models.empty() &&
        first.device_models != r.device_models) {
      note("device model",
           fmt::format("'{}' ran on {}, '{}' on {}", first.name, join_names(first.device_models),
                       r.name, join_names(r.device_models)));
    }
  }
  return out;
}

/// Each run's label: "shard I/N" for a shard, else its folder's name (made unique with "#k").
void assign_labels(std::vector<RunInfo>& runs) {
  std::map<std::string, int> used;
  for (auto& r : runs) {
    if (r.config.contains("shard")) {
      r.label = "shard " + r.config["shard"].get<std::string>();
    } else {
      fs::path p(r.name);
      std::string base = p.filename() == "kbx.db"
                             ? p.parent_path().filename().string()
                             : fs::path(r.name).lexically_normal().filename().string();
      if (base.empty()) {
        base = fs::path(r.name).lexically_normal().parent_path().filename().string();
      }
      r.label = base.empty() ? r.name : base;
    }
    if (int n = ++used[r.label]; n > 1) {
      r.label += fmt::format("#{}", n);
    }
  }
}

}  // namespace

RunInfo read_run_info(const std::string& run) {
  RunInfo info;
  info.name = run;
  info.db_path = db_path_of(run);
  auto db = store::Database::open(info.db_path);
  info.config = db->run_config().value_or(Json::object());
  for (const auto& t : db->tasks()) {
    info.task_versions[t.key] = t.version;
  }
  std::map<std::string, std::string> what;
  for (const auto& s : db->submissions()) {
    what[s.id] = fmt::format("{}, {}", s.task_key, s.origin);
  }
  for (const auto& e : db->evaluations()) {
    info.evaluated[e.submission_id] = what[e.submission_id];
    info.device_models.insert(device_model(e.device));
  }
  for (const auto& [id, w] : what) {
    info.pending += info.evaluated.count(id) == 0 ? 1 : 0;
  }
  return info;
}

std::vector<Difference> check_mergeable(const std::vector<RunInfo>& runs, bool combine,
                                        bool partial) {
  if (runs.empty()) {
    throw Error(ErrorKind::usage, "merge needs one or more runs (the -o folders of `kbx eval`)");
  }
  check_coverage(runs);
  check_shards(runs, partial);
  check_pending(runs, partial);
  auto diffs = differences(runs);
  if (!diffs.empty() && !combine) {
    throw Error(ErrorKind::usage,
                "the runs were judged differently: {} differs ({}); merge runs made with the same "
                "options, or pass --combine to merge them anyway, each source labelled",
                diffs.front().field, diffs.front().details);
  }
  return diffs;
}

Json merged_config(const std::vector<RunInfo>& runs, const std::vector<Difference>& combined) {
  Json out = runs.front().config;
  out.erase("shard");
  for (const auto& d : combined) {
    if (d.field == "device model") {
      continue;  // not an option: each evaluation keeps its device
    }
    Json values = Json::array();
    for (const auto& r : runs) {
      values.push_back(r.config.value(d.field, Json()));
    }
    out[d.field] = Json{{"combined", values}};
  }
  if (out.contains("labels") && out["labels"].contains("combined")) {
    Json labels = Json::object();  // stays {name: string} for the reports; differing ones joined
    for (const auto& r : runs) {
      const Json run_labels = r.config.value("labels", Json::object());
      for (const auto& [k, v] : run_labels.items()) {
        std::string text = v.get<std::string>();
        std::string have = labels.value(k, std::string());
        if (have.empty()) {
          labels[k] = text;
        } else if (("|" + have + "|").find("|" + text + "|") == std::string::npos) {
          labels[k] = have + "|" + text;
        }
      }
    }
    out["labels"] = labels;
  }
  Json sources = Json::array();
  for (const auto& r : runs) {
    sources.push_back(
        {{"run", r.name}, {"label", r.label}, {"shard", r.config.value("shard", "")}});
  }
  out["merged_from"] = sources;
  return out;
}

MergeSummary merge_runs(const MergeOptions& options) {
  std::error_code ec;
  if (fs::exists(options.out / "kbx.db", ec)) {
    throw Error(ErrorKind::usage, "'{}' already holds a kbx.db; merge into a new folder",
                options.out.string());
  }
  std::vector<FolderLock> locks;  // no source may change while it is read and copied
  std::vector<RunInfo> runs;
  std::map<fs::path, std::string> given;
  for (const auto& run : options.runs) {
    fs::path folder = db_path_of(run).parent_path();
    auto canonical = fs::weakly_canonical(fs::absolute(folder), ec);
    if (auto [it, fresh] = given.emplace(canonical, run); !fresh) {
      throw Error(ErrorKind::usage, "'{}' and '{}' are the same run: pass each run once",
                  it->second, run);
    }
    locks.push_back(FolderLock::acquire(folder.empty() ? fs::path(".") : folder, options.argv));
    runs.push_back(read_run_info(run));
  }
  assign_labels(runs);
  MergeSummary summary;
  summary.combined = check_mergeable(runs, options.combine, options.partial);
  summary.runs = static_cast<int>(runs.size());
  fs::create_directories(options.out);
  locks.push_back(FolderLock::acquire(options.out, options.argv));
  auto db = store::Database::open(options.out / "kbx.db");
  for (const auto& r : runs) {
    summary.evaluations += db->import_rows(
        r.db_path,
        Json{{"run", r.name}, {"label", r.label}, {"shard", r.config.value("shard", "")}});
  }
  db->set_run_config(merged_config(runs, summary.combined));
  summary.model = report::build_report_model(*db);  // the same exports as one run's
  run::CodeQualityStep quality{options.python, options.worker_path};
  report::attach_code_quality(summary.model, run::measure_code_quality(quality, summary.model));
  report::write_exports(summary.model, options.out);
  return summary;
}

}  // namespace kbx::cluster

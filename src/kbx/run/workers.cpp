// Workers: zygote, warm pool, references and contracts of one session (see workers.h).
#include "kbx/run/workers.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <thread>

#include "kbx/common/version.h"
#include "kbx/run/ceilings.h"
#include "kbx/sandbox/gpu_lock.h"

namespace kbx::run {
namespace {

namespace fs = std::filesystem;

/// libkbx_cupti.so, the GPU kernel inventory the workers load: $KBX_CUPTI_LIBRARY (empty turns
/// the inventory off), else the one built beside the kbx binary, else none.
fs::path cupti_library() {
  if (const char* v = std::getenv("KBX_CUPTI_LIBRARY"); v != nullptr) {
    return v;
  }
  std::error_code ec;
  fs::path beside = fs::read_symlink("/proc/self/exe", ec).parent_path() / "libkbx_cupti.so";
  return !ec && fs::exists(beside, ec) ? beside : fs::path();
}

std::string hostname() {
  char buf[256] = {};
  gethostname(buf, sizeof(buf) - 1);
  return buf;
}

}  // namespace

Workers::Workers(const RunOptions& options, store::Database& db, std::int64_t session_id)
    : options_(options), db_(db), session_id_(session_id) {
  fs::path work = options_.out_dir / "work";
  fs::create_directories(work / "logs");
  sandbox::ZygoteConfig zc;
  zc.python = options_.python;
  zc.worker_path = options_.worker_path;
  zc.log_path = work / "zygote.log";
  if (options_.device == "cpu") {
    zc.env.emplace_back("TRITON_INTERPRET", "1");
  }
  zc.env.emplace_back("CUDA_DEVICE_ORDER", "PCI_BUS_ID");
  if (options_.device == "cuda" && options_.cuda_connections > 0) {
    zc.env.emplace_back("CUDA_DEVICE_MAX_CONNECTIONS", std::to_string(options_.cuda_connections));
  }
  compile_cache_ = make_compile_cache_root();
  if (!compile_cache_.empty()) {
    // The zygote mounts a size-limited tmpfs there for the workers' claims (sandbox.py).
    zc.env.emplace_back("KBX_COMPILE_INBOX", (compile_cache_ / "inbox").string());
  }
  if (auto cupti = cupti_library(); options_.device == "cuda" && !cupti.empty()) {
    zc.env.emplace_back("KBX_CUPTI_LIBRARY", cupti.string());
  }
  zygote_ = sandbox::Zygote::start(zc);
  sandbox::PoolConfig pc;
  pc.device = options_.device;
  pc.gpus = options_.gpus;
  pc.spares_per_gpu = std::max(1, (options_.jobs + static_cast<int>(options_.gpus.size()) - 1) /
                                      static_cast<int>(options_.gpus.size()));
  pc.threads = options_.threads_per_worker;
  pc.start_hold = options_.worker_start_hold;
  // Every evaluation takes a fresh worker, so worker starts bound evaluations per second; CUDA's
  // initialisation contends across processes, so more starters than half the cores do not help
  // (docs/perf.md, kbx serve).
  const int cores = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  pc.starters_per_gpu = std::max(4, cores / (2 * static_cast<int>(options_.gpus.size())));
  pc.log_dir = work / "logs";
  pc.sandbox = sandbox_config();
  pc.trace = options_.trace;
  pool_ = std::make_unique<sandbox::WorkerPool>(*zygote_, pc);
  references_ = std::make_unique<ReferenceService>(*pool_, options_,
                                                   zygote_->env().value("torch", "unknown"),
                                                   zygote_->env().value("triton", "unknown"));
  record_environment();
}

Workers::~Workers() = default;

/// The candidates' sandbox (docs/security.md): a private scratch mounted at one empty folder,
/// the run's folder and the reference cache hidden, an own uid when kbx is root, and limits.
Json Workers::sandbox_config() const {
  if (!options_.sandbox) {
    return nullptr;
  }
  fs::path scratch = fs::temp_directory_path() / "kbx-scratch";
  fs::create_directories(scratch);
  fs::permissions(scratch, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  // Hidden: the run's folder and the reference cache (made now, so workers forked before the
  // first reference output is written hide it too). A folder that holds what a candidate must
  // import (the worker package, the suite) is narrowed to its work/ subfolder (the logs); its
  // store stays readable there, and Landlock still forbids writing it.
  fs::create_directories(options_.cache_dir);
  auto canonical = [](const fs::path& p) {
    std::error_code ec;
    fs::path abs = fs::weakly_canonical(fs::absolute(p), ec);
    return ec ? fs::absolute(p) : abs;
  };
  auto contains = [](const fs::path& dir, const fs::path& inner) {
    auto rel = inner.lexically_relative(dir);
    return !rel.empty() && *rel.begin() != "..";
  };
  Json hide = Json::array();
  for (const auto& p : {options_.out_dir, options_.cache_dir}) {
    fs::path dir = canonical(p);
    if (contains(dir, canonical(options_.worker_path)) ||
        contains(dir, canonical(options_.suite_root))) {
      dir /= "work";
    }
    hide.push_back(dir.string());
  }
  const std::int64_t stage_seconds =
      options_.load_timeout_s + options_.cases_timeout_s + options_.perf_timeout_s;
  Json limits{{"cpu_seconds", 2 * stage_seconds},
              {"file_bytes", std::int64_t{1} << 30},
              {"open_files", 4096},
              {"processes", 256},  // threads count too (pids cgroup); torch needs a few dozen
              {"address_space_bytes", std::int64_t{16} << 30}};
  Json config{{"scratch_root", scratch.string()},
              {"hide", hide},
              {"uid", geteuid() == 0},
              {"limits", limits}};
  if (!compile_cache_.empty()) {
    config["compile_cache"] = compile_cache_.string();
  }
  return config;
}

/// Where candidates share compiled kernels (docs/security.md, "Compile cache"), made now, or
/// empty: only on CUDA (the interpreter compiles nothing). A folder inside one hidden from
/// candidates (the run's, the reference cache) is useless to them (their report says "read only
/// (no inbox could be made)").
fs::path Workers::make_compile_cache_root() const {
  if (options_.device != "cuda" || options_.compile_cache == "off") {
    return {};
  }
  fs::path root = options_.compile_cache.empty()
                      ? fs::temp_directory_path() / "kbx-compile-cache"
                      : fs::absolute(options_.compile_cache);
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec) {
    return {};  // the workers' sandbox report says the cache is off
  }
  fs::permissions(root, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec, ec);
  return fs::weakly_canonical(root, ec);
}

/// What the sandbox of this run enforces, from a candidate worker that is started and dropped.
Json Workers::sandbox_report() {
  if (!options_.sandbox) {
    return Json{{"all", "off: --no-sandbox"}};
  }
  auto probe = pool_->acquire(options_.gpus.front());
  Json report =
      probe->ready_info().value("sandbox", Json{{"all", "off: the worker reported none"}});
  probe->kill();
  return report;
}

void Workers::record_environment() {
  Json env = zygote_->env();
  env["sandbox"] = sandbox_report();
  env["kbx_version"] = kbx::version();
  env["kbx_commit"] = kbx::git_commit();
  env["host"] = hostname();
  Json devices = Json::array();
  for (int gpu : options_.gpus) {
    Json d = references_->device_info(gpu);
    if (auto ceilings = read_ceilings(options_.cache_dir, d, env.value("torch", ""))) {
      d["ceilings"] = Json{{"name", d.value("name", "")},
                           {"copy_gbs", (*ceilings)["copy_gbs"]},
                           {"matmul_tflops", (*ceilings)["matmul_tflops"]},
                           {"method", ceilings->value("method", "")}};
    }
    if (options_.device == "cuda" && options_.timing.flush_l2) {
      const Json& l2 = d.contains("l2_cache_bytes") ? d["l2_cache_bytes"] : Json();
      l2_flush_bytes_[gpu] = l2.is_number() && l2.get<double>() > 0 ? l2.get<double>() : 0.0;
    }
    labels_[gpu] = options_.device == "cuda"
                       ? fmt::format("cuda:{} {}", gpu, d.value("name", "unknown GPU"))
                       : fmt::format("cpu ({})", d.value("name", "unknown CPU"));
    devices.push_back(d);
  }
  env["devices"] = devices;
  env["device"] = options_.device;
  db_.set_session_env(session_id_, env);
}

const compare::Contract* Workers::contract_for(const suite::Task& task, std::string& error) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = contracts_.find(task.key);
  if (it == contracts_.end()) {
    const bool public_rules = options_.rules == "kernelbenchx";
    auto parsed = compare::parse_contract(public_rules && !task.kernelbenchx_precision.is_null()
                                              ? task.kernelbenchx_precision
                                              : task.precision);
    if (parsed && public_rules) {
      parsed->error_bound_k.reset();  // the public tolerance table has no error bounds
    }
    if (parsed) {  // the public harness compares values only
      parsed->requires_grad = task.compare_requires_grad && !public_rules;
    }
    if (!parsed) {
      error = fmt::format("{}: {}", (task.dir / "task.json").string(), parsed.error().what());
      return nullptr;
    }
    it = contracts_.emplace(task.key, std::move(parsed).value()).first;
  }
  return &it->second;
}

EvaluationResult Workers::evaluate(const RunOptions& options, const submit::Submission& submission,
                                   const std::string& submission_id, const suite::Task& task,
                                   int gpu) {
  std::string contract_error;
  const auto* contract = contract_for(task, contract_error);
  if (contract == nullptr) {
    EvaluationResult result;
    result.record.submission_id = submission_id;
    result.record.session_id = session_id_;
    result.record.outcome = "skipped";
    result.record.reason = "contract_error";
    result.record.detail = contract_error;
    return result;
  }
  EvalContext ctx{options,     *zygote_, *pool_,           *references_, pool_->gpu_lock(gpu),
                  gpu,         session_id_, labels_.at(gpu), &live_};
  if (auto it = l2_flush_bytes_.find(gpu); it != l2_flush_bytes_.end()) {
    ctx.l2_flush_bytes = it->second;
  }
  return run::evaluate(ctx, submission, submission_id, task, *contract);
}

void Workers::ensure_reference_timed(const suite::Task& task, int gpu) {
  const std::string key = fmt::format("{}@{}", task.key, gpu);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (timed_.count(key) != 0) {
      return;
    }
  }
  sandbox::ExclusiveGpuHold hold(pool_->gpu_lock(gpu));
  auto frozen = live_.freeze_others(0);  // no candidate thread runs beside the reference
  if (!options_.reference_per_submission()) {
    bool fresh = false;
    auto timings = references_->timings(task, gpu, fresh);
    if (timings && fresh) {
      db_.save_reference_timings(session_id_, task.key, timings.value(), labels_.at(gpu));
    }
  }
  if (options_.compile_baseline()) {
    time_baseline(task, gpu, baseline_compile);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  timed_[key] = true;
}

std::string Workers::time_baseline(const suite::Task& task, int gpu, const std::string& baseline) {
  bool fresh = false;
  auto timings = references_->timings(task, gpu, fresh, baseline);
  std::vector<store::TimingRecord> stored =
      timings ? timings.value()
              : failed_timings(task,
                               fmt::format("torch.compile baseline: {}", timings.error().what()));
  db_.save_baseline_timings(session_id_, task.key, baseline, stored, labels_.at(gpu));
  return first_timing_failure(stored);
}

}  // namespace kbx::run

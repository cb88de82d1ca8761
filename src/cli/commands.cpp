// kbx's command line: parsing, the one catch-all, and the `suite`, `eval` and `summary` commands.
#include "cli/commands.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <ctime>
#include <cstdio>
#include <map>
#include <set>
#include <thread>

#include "cli/locate.h"
#include "cli/progress.h"
#include "kbx/cluster/merge.h"
#include "kbx/cluster/slurm.h"
#include "kbx/common/error.h"
#include "kbx/common/files.h"
#include "kbx/common/folder_lock.h"
#include "kbx/common/strings.h"
#include "kbx/common/version.h"
#include "kbx/gen/generate.h"
#include "kbx/gen/store_cache.h"
#include "kbx/llm/curl_transport.h"
#include "kbx/report/analyze.h"
#include "kbx/report/best_known.h"
#include "kbx/report/compare.h"
#include "kbx/report/exports.h"
#include "kbx/report/html_report.h"
#include "kbx/report/iterations.h"
#include "kbx/report/markdown_report.h"
#include "kbx/report/report_model.h"
#include "kbx/report/taxonomy.h"
#include "kbx/report/utilisation.h"
#include "kbx/run/ceilings.h"
#include "kbx/run/runner.h"
#include "kbx/run/suite_check.h"
#include "kbx/run/timer_check.h"
#include "kbx/serve/auth.h"
#include "kbx/serve/http_server.h"
#include "kbx/serve/service.h"
#include "kbx/sandbox/cpu_affinity.h"
#include "kbx/sandbox/protocol.h"
#include "kbx/store/database.h"
#include "kbx/suite/suite.h"
#include "kbx/suite/task_json.h"

namespace kbx::cli {
namespace {

namespace fs = std::filesystem;

std::atomic<bool> g_stop{false};

extern "C" void on_signal(int /*sig*/) { g_stop.store(true); }

int exit_code_for(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::usage:
    case ErrorKind::input: return 2;
    case ErrorKind::suite: return 3;
    case ErrorKind::io:
    case ErrorKind::store: return 4;
    case ErrorKind::protocol:
    case ErrorKind::worker: return 5;
    case ErrorKind::busy: return 75;  // EX_TEMPFAIL: another kbx writes the folder; try later
    case ErrorKind::internal: return 70;
  }
  return 70;
}

bool use_color(std::FILE* f) { return isatty(fileno(f)) != 0 && std::getenv("NO_COLOR") == nullptr; }

/// Loads the suite; tasks that fail to load are reported, the others stay usable.
suite::Suite load_suite_or_throw(const fs::path& root) {
  auto s = suite::load_suite(root);
  for (const auto& e : s.errors) {
    fmt::print(stderr, "kbx: warning: task skipped: {}\n", e.what());
  }
  if (s.tasks.empty()) {
    throw Error(ErrorKind::suite, "no tasks could be loaded from '{}'", root.string());
  }
  return s;
}

// ---- kbx suite ----------------------------------------------------------------------------

struct SuiteArgs {
  std::string root;
  std::string category;
  bool json = false;
  std::string key;
};

int cmd_suite_list(const SuiteArgs& a) {
  auto s = load_suite_or_throw(a.root);
  std::vector<const suite::Task*> tasks;
  for (const auto& t : s.tasks) {
    if (a.category.empty() || t.category == a.category) {
      tasks.push_back(&t);
    }
  }
  if (tasks.empty() && !a.category.empty()) {
    throw Error(ErrorKind::usage, "no tasks in category '{}'", a.category);
  }
  if (a.json) {
    Json out = Json::array();
    for (const auto* t : tasks) {
      out.push_back(suite::task_summary_json(*t));
    }
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  fmt::print("{:<52} {:>4} {:>6} {:>6}  {}\n", "TASK", "DIFF", "CASES", "PERF", "DTYPES");
  for (const auto* t : tasks) {
    fmt::print("{:<52} {:>4} {:>6} {:>6}  {}\n", t->key, t->difficulty, t->cases.size(),
               t->workloads.size(), fmt::join(t->dtypes, ","));
  }
  std::set<std::string> categories;
  for (const auto* t : tasks) {
    categories.insert(t->category);
  }
  fmt::print("{} tasks in {} categories in {}\n", tasks.size(), categories.size(), s.root.string());
  return 0;
}

std::string human(double v) {
  const char* units[] = {"", "K", "M", "G", "T", "P"};
  int u = 0;
  while (std::abs(v) >= 1000 && u < 5) {
    v /= 1000;
    ++u;
  }
  return fmt::format("{:.3g}{}", v, units[u]);
}

int cmd_suite_show(const SuiteArgs& a) {
  auto s = load_suite_or_throw(a.root);
  const suite::Task* t = s.find(a.key);
  if (t == nullptr) {
    if (const auto* by_name = s.find_by_name(a.key)) {
      t = by_name;
    } else {
      throw Error(ErrorKind::usage, "{}", s.unknown_key_message(a.key));
    }
  }
  if (a.json) {
    Json j = suite::task_detail_json(*t);
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  fmt::print("{}  ({}, difficulty {})\n\n  {}\n\n", t->key, t->category, t->difficulty, t->description);
  fmt::print("signature   {}\n", t->signature);
  auto names = t->entry_names();
  fmt::print("entry       {} (also accepted: {})\n", t->entry,
             fmt::join(names.begin() + 1, names.end(), ", "));
  fmt::print("precision   {}{}\n", t->precision.dump(),
             t->compare_requires_grad ? "; requires_grad compared" : "");
  fmt::print("dtypes      {}\n", fmt::join(t->dtypes, ", "));
  if (!t->mutated_args.empty()) {
    fmt::print("in place    arguments {} are outputs too\n", fmt::join(t->mutated_args, ", "));
  }
  if (!t->then.empty()) {
    fmt::print("then        {}() of the result, called after every call\n", t->then);
  }
  fmt::print("version     {}\n", t->version.substr(0, 12));
  fmt::print("folder      {}\n", t->dir.string());
  if (!t->notes.empty()) {
    fmt::print("notes       {}\n", t->notes);
  }
  auto own = std::count_if(t->cases.begin(), t->cases.end(),
                           [](const suite::TestCase& c) { return c.kbx_only; });
  fmt::print("\ncases ({}; {} kbx_only, not run under --rules kernelbenchx):\n", t->cases.size(),
             own);
  for (const auto& c : t->cases) {
    fmt::print("  {:<32} {}args={} kwargs={}{}\n", c.name, c.kbx_only ? "[kbx_only] " : "",
               c.args.dump(), c.kwargs.dump(),
               c.then_calls != 1 ? fmt::format(" then_calls={}", c.then_calls) : "");
  }
  if (!t->workloads.empty()) {
    fmt::print("\nperf workloads ({}); bytes = {}; flops = {}\n", t->workloads.size(), t->bytes_model, t->flops_model);
    for (const auto& w : t->workloads) {
      fmt::print("  {:>3}  {:<40} {:>10}B {:>10}FLOP\n", w.index, w.params.dump(), human(w.bytes), human(w.flops));
    }
  }
  return 0;
}

// ---- kbx eval -----------------------------------------------------------------------------

/// The sampling flags of `kbx eval` and `kbx calibrate` (docs/metrics.md, "Adaptive sampling").
/// Both take them: the reference timing cache's keys hash the settings, so calibrate must time
/// the references as the evals that read its cache will ask.
struct SamplingArgs {
  double ci_target = stats::kMedianCiTarget;
  double ci_budget_ms = run::TimingSettings{}.ci_budget_ms;
  double warmup_ms = run::TimingSettings{}.warmup_ms;
  double sample_budget_ms = run::TimingSettings{}.budget_ms;
  int max_samples = run::TimingSettings{}.max_samples;
  int long_call_samples = run::TimingSettings{}.long_call_samples;
  double short_call_budget_ms = run::TimingSettings{}.short_call_budget_ms;
  std::string timing_cpus = "spread";  ///< --timing-cpus any|fast|spread|LIST
  int cuda_connections = run::RunOptions{}.cuda_connections;  ///< --cuda-connections N

  void apply(run::TimingSettings& t) const {
    t.ci_target = ci_target;
    t.ci_budget_ms = ci_budget_ms;
    t.warmup_ms = warmup_ms;
    t.budget_ms = sample_budget_ms;
    t.max_samples = max_samples;
    t.long_call_samples = long_call_samples;
    t.short_call_budget_ms = short_call_budget_ms;
  }
};

void add_sampling_options(CLI::App* cmd, SamplingArgs& s) {
  cmd->add_option("--ci-target", s.ci_target,
                  "Adaptive sampling: sample a workload until the 95% interval of its median is "
                  "within this fraction of it (0: the planned samples only)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--ci-budget-ms", s.ci_budget_ms,
                  "Adaptive sampling: wall time (ms) a workload's sampling may take before it "
                  "stops short of --ci-target")
      ->check(CLI::Range(1.0, 60000.0))
      ->capture_default_str();
  cmd->add_option("--warmup-ms", s.warmup_ms,
                  "Warm-up: each workload is called (at least twice) until this much wall time "
                  "(ms) has passed, before its samples")
      ->check(CLI::Range(0.0, 10000.0))
      ->capture_default_str();
  cmd->add_option("--sample-budget-ms", s.sample_budget_ms,
                  "First round of samples: as many as fill this much time (ms) at the workload's "
                  "fastest warm-up call, within 10 and --max-samples; adaptive rounds follow")
      ->check(CLI::Range(0.1, 60000.0))
      ->capture_default_str();
  cmd->add_option("--max-samples", s.max_samples, "First round of samples: at most this many")
      ->check(CLI::Range(run::TimingSettings{}.min_samples, run::TimingSettings{}.ci_max_samples))
      ->capture_default_str();
  cmd->add_option("--long-call-samples", s.long_call_samples,
                  "First round of samples of a GPU-bound call too long for 10 samples in 50 ms: "
                  "what fills 50 ms, but at least this many (calls that wait for the host keep 5)")
      ->check(CLI::Range(1, run::TimingSettings{}.long_call_samples))
      ->capture_default_str();
  cmd->add_option("--short-call-budget-ms", s.short_call_budget_ms,
                  "Adaptive sampling: the wall time (ms) a GPU-bound call under 20 us may take "
                  "before it stops short of --ci-target (0: --ci-budget-ms, as for every call)")
      ->check(CLI::Range(0.0, 60000.0))
      ->capture_default_str();
  cmd->add_option("--timing-cpus", s.timing_cpus,
                  "Where each process being timed (candidate or reference worker) runs while it "
                  "is timed: 'spread' runs each sample of a call that includes host work on the "
                  "next of its CPUs; 'any' where the system puts it; 'fast' measures the CPUs it "
                  "may use and runs on the fastest; a list like 0-3 pins it to those")
      ->capture_default_str();
  cmd->add_option("--cuda-connections", s.cuda_connections,
                  "CUDA_DEVICE_MAX_CONNECTIONS for every worker: the hardware queues each CUDA "
                  "context gets (the driver's default is 8). 1 halves what creating contexts "
                  "side by side costs, the part of a worker's start no timing may overlap; a "
                  "process's streams then share one queue. 0: as kbx's environment has it")
      ->check(CLI::Range(0, 32))
      ->capture_default_str();
}

struct EvalArgs {
  std::string source;
  std::string out;
  std::string gpus = "0";
  std::string device = "auto";
  std::string tasks;
  int jobs = 0;
  std::string suite_root;
  std::string python;
  std::string cache_dir;
  std::string compile_cache;  ///< --compile-cache DIR|off
  bool no_require_triton = false;
  bool no_perf = false;
  bool no_sandbox = false;
  bool fail_fast = false;
  std::uint64_t seed = 0;
  std::string rules = "kbx";
  int timeout_s = 0;
  int perf_timeout_s = 600;
  std::string method;
  std::string model;
  int round = -1;
  std::vector<std::string> labels;  ///< KEY=VALUE
  std::string reference_timing = "session";
  std::string worker_start_hold = "shared";
  std::string baseline = "eager";  ///< --baseline eager|compile|eager,compile
  std::string shard;  ///< I/N
  bool do_bench = false;  ///< `kbx doctor --timing` only: references also timed by do_bench
  SamplingArgs sampling;
  double perf_scale = 1;
  std::string trace;  ///< --trace FILE: the run's timeline (common/trace.h)
  bool graph = false;  ///< CUDA-graph mode (docs/metrics.md)
  double graph_max_ms = run::TimingSettings{}.graph_max_ms;
};

/// The suite a run evaluates against: its root's tasks, with the perf workloads shrunk by
/// --perf-scale (suite::apply_perf_scale; a no-op at 1) and the cases its rule set runs
/// (suite::apply_rules: under kernelbenchx those that mirror the public tests' calls).
suite::Suite load_run_suite(const run::RunOptions& options) {
  auto s = load_suite_or_throw(options.suite_root);
  for (suite::Task& task : s.tasks) {
    suite::apply_perf_scale(task, options.perf_scale);
    suite::apply_rules(task, options.rules);
  }
  return s;
}

/// The run's labels from --method, --model, --round and --label KEY=VALUE, checked.
std::map<std::string, std::string> parse_labels(const EvalArgs& a) {
  std::map<std::string, std::string> out;
  auto add = [&](const std::string& key, const std::string& value, const std::string& flag) {
    bool key_ok = !key.empty() && key.size() <= 32 && std::islower(static_cast<unsigned char>(key[0]));
    for (char ch : key) {
      key_ok = key_ok && (std::islower(static_cast<unsigned char>(ch)) ||
                          std::isdigit(static_cast<unsigned char>(ch)) || ch == '_');
    }
    if (!key_ok) {
      throw Error(ErrorKind::usage,
                  "{}: a label's name is 1-32 characters of a-z, 0-9 and _, starting with a letter "
                  "(got '{}')", flag, key);
    }
    bool value_ok = !value.empty() && value.size() <= 200;
    for (char ch : value) {
      value_ok = value_ok && static_cast<unsigned char>(ch) >= 0x20 && ch != 0x7f;
    }
    if (!value_ok) {
      throw Error(ErrorKind::usage,
                  "{}: label '{}' needs a value of 1-200 printable characters", flag, key);
    }
    if (auto it = out.find(key); it != out.end() && it->second != value) {
      throw Error(ErrorKind::usage, "{}: label '{}' is given twice ('{}' and '{}')", flag, key,
                  it->second, value);
    }
    out[key] = value;
  };
  if (!a.method.empty()) {
    add("method", a.method, "--method");
  }
  if (!a.model.empty()) {
    add("model", a.model, "--model");
  }
  if (a.round >= 0) {
    add("round", std::to_string(a.round), "--round");
  }
  for (const auto& label : a.labels) {
    auto eq = label.find('=');
    if (eq == std::string::npos) {
      throw Error(ErrorKind::usage, "--label takes KEY=VALUE (got '{}')", label);
    }
    add(label.substr(0, eq), label.substr(eq + 1), "--label");
  }
  return out;
}

std::vector<int> parse_gpus(const std::string& list) {
  std::vector<int> out;
  for (const auto& part : split(list, ',')) {
    std::string p(trim(part));
    try {
      std::size_t used = 0;
      int v = std::stoi(p, &used);
      if (used != p.size() || v < 0) {
        throw std::invalid_argument(p);
      }
      out.push_back(v);
    } catch (const std::exception&) {
      throw Error(ErrorKind::usage, "--gpus takes device indices like 0,1 (got '{}')", list);
    }
  }
  return out;
}

// The folder holding the kbx_worker package: $KBX_WORKER_PATH, else kbx's own python/.
fs::path worker_path() {
  if (const char* wp = std::getenv("KBX_WORKER_PATH"); wp != nullptr && *wp != '\0') {
    return wp;
  }
  return kbx_home() / "python";
}

/// `--timing-cpus any|fast|spread|LIST` into the options, one of them: 'spread' (the default) has
/// the worker move to the next CPU before each sample that includes host work; 'any' leaves the
/// timed process where the system puts it; 'fast' is the worker's choice of the fastest CPUs; a
/// list pins the timed process there. A bad list throws the usage error parse_cpu_list() gives.
void apply_timing_cpus(const std::string& value, run::RunOptions& o) {
  o.timing.spread_cpus = value == "spread";
  if (value == "spread" || value == "any") {
    return;
  }
  if (value == "fast") {
    o.timing.fast_cpus = true;
    return;
  }
  auto cpus = sandbox::parse_cpu_list(value);
  if (!cpus) {
    throw cpus.error();
  }
  o.timing_cpus = cpus.value();
}

run::RunOptions eval_options(const EvalArgs& a, const std::vector<std::string>& argv) {
  run::RunOptions o;
  o.source = a.source;
  o.out_dir = a.out;
  o.suite_root = a.suite_root.empty() ? default_suite_root() : fs::path(a.suite_root);
  o.worker_path = worker_path();
  o.python = a.python.empty() ? default_python() : a.python;
  o.cache_dir = a.cache_dir.empty() ? default_cache_dir() : fs::path(a.cache_dir);
  o.compile_cache = a.compile_cache;
  o.device = a.device == "auto" ? detect_device() : a.device;
  o.gpus = o.device == "cuda" ? parse_gpus(a.gpus) : std::vector<int>{0};
  int cores = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  o.jobs = a.jobs > 0 ? a.jobs : (o.device == "cuda" ? std::min(8, std::max(2, cores / 2)) : cores);
  o.threads_per_worker = o.device == "cuda" ? 2 : std::max(1, cores / o.jobs);
  o.tasks_pattern = a.tasks;
  o.require_triton = !a.no_require_triton;
  o.perf = !a.no_perf;
  o.sandbox = !a.no_sandbox;
  o.fail_fast = a.fail_fast;
  o.seed = a.seed;
  o.rules = a.rules;
  o.labels = parse_labels(a);
  o.reference_timing = a.reference_timing;
  o.worker_start_hold = a.worker_start_hold == "shared";
  auto baselines = run::parse_baselines(a.baseline);
  if (!baselines) {
    throw baselines.error();
  }
  o.baselines = baselines.value();
  o.timing.do_bench = a.do_bench;
  a.sampling.apply(o.timing);
  o.cuda_connections = a.sampling.cuda_connections;
  apply_timing_cpus(a.sampling.timing_cpus, o);
  o.timing.graph = a.graph;
  o.timing.graph_max_ms = a.graph_max_ms;
  o.perf_scale = a.perf_scale;
  if (o.rules == "kernelbenchx") {
    o.require_triton = false;  // the public harness has no Triton requirement
  }
  if (a.timeout_s > 0) {
    o.load_timeout_s = a.timeout_s;
    o.cases_timeout_s = a.timeout_s;
  }
  o.perf_timeout_s = a.perf_timeout_s;
  o.argv = argv;
  if (!a.shard.empty()) {
    auto shard = run::parse_shard(a.shard);
    if (!shard) {
      throw shard.error();
    }
    o.shard = shard.value();
  }
  return o;
}

/// Runs `run` (a run_eval or run_suite_check) with `--trace FILE`: a Trace in `slot` while it runs
/// (none without the flag), written to FILE when it returns or throws (what was traced until the
/// failure), after the progress line is finished.
template <typename Fn>
auto traced_run(const std::string& path, Trace*& slot, TerminalProgress& progress, Fn&& run) {
  std::unique_ptr<Trace> trace;
  if (!path.empty()) {
    trace = std::make_unique<Trace>();
    slot = trace.get();
  }
  auto finish = [&] {
    progress.finish();
    slot = nullptr;
    if (trace != nullptr) {
      trace->write(path);
      fmt::print(stderr, "kbx: trace of {} spans written to {} (open it in https://ui.perfetto.dev "
                 "or chrome://tracing)\n", trace->size(), path);
    }
  };
  try {
    auto result = run();
    finish();
    return result;
  } catch (...) {
    finish();
    throw;
  }
}

int cmd_eval(const EvalArgs& a, const std::vector<std::string>& argv) {
  auto options = eval_options(a, argv);
  // One writer per folder, taken before anything is read or written (docs/architecture.md).
  auto lock = FolderLock::acquire(options.out_dir, argv);
  auto s = load_run_suite(options);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  sandbox::set_cancel_flag(&g_stop);
  TerminalProgress progress(stderr, isatty(fileno(stderr)) != 0, use_color(stderr));
  fmt::print(stderr, "kbx: device {}{}, {} jobs, suite {}\n", options.device,
             options.device == "cuda" ? fmt::format(" (GPUs {})", fmt::join(options.gpus, ",")) : "",
             options.jobs, options.suite_root.string());
  auto summary = traced_run(a.trace, options.trace, progress,
                            [&] { return run::run_eval(options, s, progress, g_stop); });
  auto db = store::Database::open(options.out_dir / "kbx.db");
  auto model = report::build_report_model(*db);
  fmt::print("{}", report::render_terminal_summary(model, use_color(stdout)));
  fmt::print(
      "results: {} (kbx.db, metrics.json, summary.json, kbx-results.json, kbx-results.csv)\n",
      options.out_dir.string());
  if (summary.interrupted) {
    fmt::print(stderr, "kbx: interrupted; run the same command again to resume\n");
    return 130;
  }
  return summary.input_problems > 0 ? 1 : 0;
}

// ---- kbx calibrate ------------------------------------------------------------------------

struct CalibrateArgs {
  std::string device = "auto";
  std::string gpus = "0";
  std::string tasks;
  std::string out;
  std::string cache_dir;
  std::string python;
  std::string suite_root;
  int jobs = 0;
  bool no_timings = false;
  bool quick = false;
  std::string baseline = "eager";
  bool graph = false;  ///< cache the CUDA-graph mode's reference timings (eval --graph's key)
  double graph_max_ms = run::TimingSettings{}.graph_max_ms;
  SamplingArgs sampling;  ///< the settings the references are cached under
};

// The suite's references as a KernelBench-X JSONL beside `out` (<out>.references.jsonl), and the
// eval of them into `out` (calibrate's and doctor's self-check runs): no Triton requirement,
// labelled purpose=PURPOSE. Callers add the device and their own settings.
EvalArgs reference_self_check(const std::string& suite_root, const fs::path& out,
                              const std::string& purpose) {
  auto s = load_suite_or_throw(suite_root.empty() ? default_suite_root() : fs::path(suite_root));
  fs::path source = out.string() + ".references.jsonl";
  std::string lines;
  for (const auto& task : s.tasks) {
    Json line{{"file", task.key}, {"predict", read_file(task.dir / "reference.py")}};
    lines += line.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
  }
  if (source.has_parent_path()) {
    fs::create_directories(source.parent_path());
  }
  write_file_atomic(source, lines);
  EvalArgs e;
  e.source = source.string();
  e.out = out.string();
  e.suite_root = suite_root;
  e.no_require_triton = true;
  e.labels = {"purpose=" + purpose};
  return e;
}

// The ceilings of every device: measured, written to the cache, printed as a table.
void calibrate_ceilings(const CalibrateArgs& c, const std::string& device,
                        const std::vector<int>& gpus, const fs::path& cache_dir) {
  run::PythonStep step{c.python.empty() ? default_python() : c.python, worker_path(),
                       std::chrono::seconds(900)};
  fmt::print("{:<28} {:>10}  {}\n", "device", "copy GB/s", "matmul TFLOP/s");
  for (int gpu : gpus) {
    std::string which = device == "cuda" ? fmt::format("cuda:{}", gpu) : "cpu";
    fmt::print(stderr, "kbx: measuring the ceilings of {} ...\n", which);
    auto measured = run::measure_ceilings(step, which, c.quick);
    if (!measured) {
      throw measured.error();
    }
    fs::path path = run::write_ceilings(cache_dir, measured.value());
    std::vector<std::string> rates;
    for (const auto& [dtype, v] : measured.value()["matmul_tflops"].items()) {
      rates.push_back(fmt::format("{} {:.4g}", dtype, v.get<double>()));
    }
    std::string name = measured.value()["device"].value("name", which);
    fmt::print("{:<28} {:>10.1f}  {}\n", (which + " " + name).substr(0, 28),
               measured.value()["copy_gbs"].get<double>(), fmt::join(rates, ", "));
    fmt::print(stderr, "kbx: wrote {}\n", path.string());
  }
}

int cmd_calibrate(const CalibrateArgs& c, const std::vector<std::string>& argv) {
  std::string device = c.device == "auto" ? detect_device() : c.device;
  if (device != "cpu" && device != "cuda") {
    throw Error(ErrorKind::usage, "--device takes auto, cpu or cuda (got '{}')", c.device);
  }
  std::vector<int> gpus = device == "cuda" ? parse_gpus(c.gpus) : std::vector<int>{0};
  fs::path cache_dir = c.cache_dir.empty() ? default_cache_dir() : fs::path(c.cache_dir);
  calibrate_ceilings(c, device, gpus, cache_dir);
  if (c.no_timings) {
    return 0;
  }
  if (device != "cuda") {
    fmt::print("reference timings: none on the CPU (perf runs on CUDA devices); ceilings only\n");
    return 0;
  }
  // The references as submissions, evaluated with --reference-timing cached: every reference
  // timing lands in the cache, and the run is the timer's self-check.
  fs::path out = c.out.empty() ? cache_dir / "calibrate" / fmt::format("{}", std::time(nullptr))
                               : fs::path(c.out);
  EvalArgs e = reference_self_check(c.suite_root, out, "calibrate");
  e.device = device;
  e.gpus = c.gpus;
  e.tasks = c.tasks;
  e.jobs = c.jobs;
  e.cache_dir = cache_dir.string();
  e.python = c.python;
  e.reference_timing = "cached";
  e.baseline = c.baseline;
  e.graph = c.graph;
  e.graph_max_ms = c.graph_max_ms;
  e.sampling = c.sampling;
  fmt::print(stderr, "kbx: timing the references into the cache (the run is the self-check): {}\n",
             out.string());
  return cmd_eval(e, argv);
}

// ---- kbx doctor --timing ------------------------------------------------------------------

struct DoctorArgs {
  bool timing = false;
  std::string gpus = "0";
  std::string tasks;
  std::string out;
  std::string cache_dir;
  std::string python;
  std::string suite_root;
  double tolerance = 0.03;
  double min_us = 50;
  int top = 20;
};

int cmd_doctor(const DoctorArgs& d, const std::vector<std::string>& argv) {
  if (!d.timing) {
    throw Error(ErrorKind::usage, "kbx doctor: say what to check (--timing)");
  }
  if (detect_device() != "cuda") {
    throw Error(ErrorKind::usage,
                "kbx doctor --timing compares GPU timers and needs a CUDA device; none is visible "
                "here (check nvidia-smi and CUDA_VISIBLE_DEVICES)");
  }
  fs::path out = d.out.empty() ? fs::temp_directory_path() /
                                     fmt::format("kbx-doctor-{}", std::time(nullptr))
                               : fs::path(d.out);
  EvalArgs e = reference_self_check(d.suite_root, out, "doctor-timing");
  e.device = "cuda";
  e.gpus = d.gpus;
  e.tasks = d.tasks;
  e.cache_dir = d.cache_dir;
  e.python = d.python;
  e.do_bench = true;
  fmt::print(stderr, "kbx: timing the references with kbx's timer and with do_bench: {}\n",
             out.string());
  int rc = cmd_eval(e, argv);
  if (rc != 0 && rc != 1) {
    return rc;
  }
  fs::path check = out / "timer-check.jsonl";
  std::error_code ec;
  if (!fs::is_regular_file(check, ec)) {
    throw Error(ErrorKind::io, "{} was not written: no reference was timed (see {})",
                check.string(), (out / "kbx-results.json").string());
  }
  auto rows = run::parse_timer_check(read_file(check));
  if (!rows) {
    throw rows.error();
  }
  auto verdict = run::judge_timer_check(std::move(rows).value(), d.tolerance, d.min_us / 1e3);
  fmt::print("{}", run::render_timer_check(verdict, d.tolerance, d.min_us / 1e3, d.top));
  return verdict.ok() ? 0 : 1;
}

// ---- kbx generate -------------------------------------------------------------------------

struct GenerateArgs {
  std::string endpoint;
  std::string api = "openai";
  std::string api_key_env;
  std::string method = "one-shot";
  int rounds = 0;      ///< 0: the method's default
  int candidates = 0;  ///< 0: the method's default
  double temperature = -1;  ///< < 0: the method's default
  int max_tokens = 4096;
  int concurrency = 4;
  int request_timeout_s = 300;
  int retries = 5;
  int backoff_ms = 1000;
  int max_wait_s = 60;
  double price_in = 0;
  double price_out = 0;
  std::string prompts;
};

gen::GenerateOptions generate_options(const GenerateArgs& g, const EvalArgs& e,
                                      const std::vector<std::string>& argv) {
  gen::GenerateOptions o;
  auto method = gen::parse_method(g.method);
  if (!method) {
    throw Error(ErrorKind::usage, "--method: unknown method '{}' (one-shot, best-of-k, refine, agents)",
                g.method);
  }
  o.method = *method;
  const bool chains = o.method == gen::Method::refine || o.method == gen::Method::agents;
  if (!chains && g.rounds > 1) {
    throw Error(ErrorKind::usage, "--rounds {}: {} makes one round; use --method refine or agents "
                "for more", g.rounds, g.method);
  }
  o.rounds = g.rounds > 0 ? g.rounds : (chains ? 3 : 1);
  const bool many = o.method == gen::Method::best_of_k || o.method == gen::Method::agents;
  o.candidates = g.candidates > 0 ? g.candidates : (many ? 4 : 1);
  if (o.candidates > 64 || o.rounds > 100) {
    throw Error(ErrorKind::usage, "--candidates is at most 64 and --rounds at most 100 (got {} and {})",
                o.candidates, o.rounds);
  }
  if (g.temperature >= 0) {
    o.temperature = g.temperature;
    o.temperature_max = std::max(1.0, g.temperature);
  } else {
    o.temperature = o.method == gen::Method::agents ? 0.2 : (o.candidates > 1 ? 0.8 : 0.0);
  }
  o.max_tokens = g.max_tokens;
  o.model = e.model;
  fs::path prompts = g.prompts.empty() ? kbx_home() / "prompts" / "v1" : fs::path(g.prompts);
  o.prompts = gen::load_templates(prompts);
  EvalArgs labelled = e;
  labelled.method = g.method;
  o.run = eval_options(labelled, argv);
  return o;
}

llm::ClientOptions client_options(const GenerateArgs& g) {
  llm::ClientOptions c;
  auto api = llm::parse_api(g.api);
  if (!api) {
    throw Error(ErrorKind::usage, "--api: unknown API '{}' (openai, anthropic)", g.api);
  }
  c.endpoint.api = *api;
  c.endpoint.base_url = g.endpoint;
  if (g.endpoint.rfind("http://", 0) != 0 && g.endpoint.rfind("https://", 0) != 0) {
    throw Error(ErrorKind::usage, "--endpoint takes an http:// or https:// base URL, e.g. "
                "http://localhost:8000/v1 (got '{}')", g.endpoint);
  }
  std::string key_env = !g.api_key_env.empty() ? g.api_key_env
                        : *api == llm::Api::openai ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY";
  if (const char* key = std::getenv(key_env.c_str()); key != nullptr) {
    c.endpoint.api_key = key;
  } else if (!g.api_key_env.empty()) {
    throw Error(ErrorKind::usage, "--api-key-env {}: that environment variable is not set", key_env);
  }
  c.retry.max_attempts = std::max(0, g.retries) + 1;
  c.retry.base_ms = std::max(0, g.backoff_ms);
  c.retry.max_wait_ms = std::int64_t{std::max(0, g.max_wait_s)} * 1000;
  c.timeout_ms = std::max(1, g.request_timeout_s) * 1000;
  c.concurrency = std::max(1, g.concurrency);
  c.prices = {g.price_in, g.price_out};
  return c;
}

int cmd_generate(const GenerateArgs& g, const EvalArgs& e, const std::vector<std::string>& argv) {
  if (!llm::CurlTransport::available()) {
    throw Error(ErrorKind::usage, "kbx generate needs a kbx built with libcurl; this one was built "
                "without it (self-contained, as the pip wheel is, or libcurl4-openssl-dev missing at "
                "configure time): build kbx from source with tools/setup.sh for generate");
  }
  auto options = generate_options(g, e, argv);
  auto client_opts = client_options(g);
  auto lock = FolderLock::acquire(options.run.out_dir, argv);
  auto s = load_run_suite(options.run);
  std::vector<const suite::Task*> tasks;
  for (const auto& t : s.tasks) {
    if (run::task_selected(e.tasks, t.key)) {
      tasks.push_back(&t);
    }
  }
  if (tasks.empty()) {
    throw Error(ErrorKind::usage, "--tasks '{}' matches no task (see `kbx suite list`)", e.tasks);
  }
  fs::create_directories(options.run.out_dir);
  auto db = store::Database::open(options.run.out_dir / "kbx.db");
  run::check_identity(*db, options.run, s);  // before any request: a mismatch costs no tokens
  gen::StoreCache cache(*db);
  llm::CurlTransport transport(&g_stop);
  llm::SystemClock clock;
  client_opts.cancel = &g_stop;
  llm::Client client(client_opts, transport, clock, &cache);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  sandbox::set_cancel_flag(&g_stop);
  TerminalProgress progress(stderr, isatty(fileno(stderr)) != 0, use_color(stderr));
  fmt::print(stderr, "kbx: generate {} with {} ({} at {}): {} task{}, {} candidate{}, {} round{}; "
             "evaluating on {}\n", g.method, options.model, g.api, g.endpoint, tasks.size(),
             tasks.size() == 1 ? "" : "s", options.candidates, options.candidates == 1 ? "" : "s",
             options.rounds, options.rounds == 1 ? "" : "s", options.run.device);
  auto summary = gen::run_generate(options, s, tasks, client, *db, progress, g_stop);
  progress.finish();
  auto model = report::build_report_model(*db);
  fmt::print("{}", report::render_terminal_summary(model, use_color(stdout)));
  auto spent = db->llm_response_totals();
  fmt::print("generate: {} round{}, {} candidate{} ({} with code, {} without, {} requests failed); "
             "{}/{} tasks have a correct kernel\n",
             summary.rounds_run, summary.rounds_run == 1 ? "" : "s", summary.candidates,
             summary.candidates == 1 ? "" : "s", summary.with_code, summary.no_code,
             summary.request_failed, summary.tasks_correct, summary.tasks);
  fmt::print("tokens: this invocation {} in / {} out, ${:.4f}, {} HTTP requests, {} answers from "
             "the cache; the run in all {} answers, {} in / {} out, ${:.4f}\n",
             summary.usage.tokens_in, summary.usage.tokens_out, summary.usage.cost_usd,
             summary.usage.requests, summary.usage.cache_hits, spent.attempts, spent.tokens_in,
             spent.tokens_out, spent.cost_usd);
  fmt::print("results: {} (kbx.db, metrics.json, summary.json)\n", options.run.out_dir.string());
  if (summary.interrupted) {
    fmt::print(stderr, "kbx: interrupted; run the same command again to resume\n");
    return 130;
  }
  return summary.request_failed > 0 ? 1 : 0;
}

// ---- kbx serve ----------------------------------------------------------------------------

struct ServeArgs {
  std::string listen = "127.0.0.1:8765";
  std::string token_env;
  int queue = 64;
  int wait_s = 900;
  int threads = 0;  ///< 0: queue + jobs + 32
  std::size_t max_code_bytes = 256U << 10;
  bool perf = true;
};

/// HOST:PORT (an IPv6 host in brackets) -> host and port.
std::pair<std::string, int> parse_listen(const std::string& listen) {
  auto colon = listen.rfind(':');
  std::string host = colon == std::string::npos ? "" : listen.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  int port = -1;
  try {
    std::size_t used = 0;
    std::string p = colon == std::string::npos ? "" : listen.substr(colon + 1);
    port = std::stoi(p, &used);
    port = used == p.size() ? port : -1;
  } catch (const std::exception&) {
    port = -1;
  }
  if (host.empty() || port < 0 || port > 65535) {
    throw Error(ErrorKind::usage,
                "--listen takes HOST:PORT, e.g. 127.0.0.1:8765 (port 0: any free one; got '{}')",
                listen);
  }
  return {host, port};
}

/// The bearer token from the variable --token-env names; required off loopback.
std::string serve_token(const ServeArgs& s, const std::string& host) {
  std::string token;
  if (!s.token_env.empty()) {
    const char* v = std::getenv(s.token_env.c_str());
    if (v == nullptr || *v == '\0') {
      throw Error(ErrorKind::usage, "--token-env {}: that environment variable is not set or empty",
                  s.token_env);
    }
    token = v;
  }
  if (token.empty() && !serve::is_loopback(host)) {
    throw Error(ErrorKind::usage,
                "--listen {}: other machines can reach that address, so kbx serve needs a bearer "
                "token: put one in an environment variable and name it with --token-env NAME",
                host);
  }
  return token;
}

int cmd_serve(const ServeArgs& s, const EvalArgs& e, const std::vector<std::string>& argv) {
  if (!serve::http_available()) {
    throw Error(ErrorKind::usage,
                "this kbx was built without cpp-httplib, so it has no `kbx serve`; install "
                "libcpp-httplib-dev (tools/setup.sh does) or carry .device/httplib "
                "(tools/device_bundle.sh) and rebuild");
  }
  auto [host, port] = parse_listen(s.listen);
  serve::HttpOptions http{host, port, serve_token(s, host), 0};
  serve::ServiceOptions options;
  options.run = eval_options(e, argv);
  options.run.perf = s.perf;
  options.queue_capacity = static_cast<std::size_t>(std::max(1, s.queue));
  options.wait_s = std::max(1, s.wait_s);
  options.limits.code_bytes_max = s.max_code_bytes;
  options.cancel = &g_stop;
  options.limits.body_bytes_max = std::max<std::size_t>(1U << 20, 2 * s.max_code_bytes + 65536);
  http.threads = s.threads > 0 ? s.threads : s.queue + options.run.jobs + 32;
  auto lock = FolderLock::acquire(options.run.out_dir, argv);
  auto suite = load_run_suite(options.run);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  sandbox::set_cancel_flag(&g_stop);
  fmt::print(stderr, "kbx serve: device {}{}, {} evaluation threads, queue {}, perf {}; starting "
             "workers ...\n", options.run.device,
             options.run.device == "cuda" ? fmt::format(" (GPUs {})", fmt::join(options.run.gpus, ","))
                                          : "",
             options.run.jobs, options.queue_capacity, options.run.perf ? "on" : "off");
  serve::EvaluationService service(options, suite, argv);
  serve::serve_http(service, http, g_stop, [&](int bound) {
    fmt::print(stderr, "kbx serve: listening on http://{}:{}{} (store {})\n", host, bound,
               http.token.empty() ? "" : ", bearer token required",
               (options.run.out_dir / "kbx.db").string());
    std::fflush(stderr);
  });
  fmt::print(stderr, "kbx serve: stopped\n");
  return 0;
}

// ---- kbx suite check ----------------------------------------------------------------------

struct CheckArgs {
  std::vector<std::string> tasks;  ///< globs over task keys; empty: every task
  int seeds = 3;
  std::string controls;
  std::string cases;  ///< --cases: globs over case names; empty: every case
  bool no_output_cache = false;
  int reference_workers = 0;
};

int cmd_suite_check(const EvalArgs& e, const CheckArgs& c, const std::vector<std::string>& argv) {
  run::CheckOptions options;
  options.run = eval_options(e, argv);
  options.run.perf = options.run.perf && options.run.device == "cuda";
  options.seeds = std::max(1, c.seeds);
  options.run.cache_reference_outputs = !c.no_output_cache;
  options.run.reference_workers = c.reference_workers;
  for (const auto& name : split(c.controls, ',')) {
    std::string n(trim(name));
    if (n.empty()) {
      continue;
    }
    const auto& known = run::control_names();
    if (std::find(known.begin(), known.end(), n) == known.end()) {
      throw Error(ErrorKind::usage, "unknown control '{}' (known: {})", n, fmt::join(known, ", "));
    }
    options.controls.push_back(n);
  }
  auto lock = FolderLock::acquire(options.run.out_dir, argv);
  auto s = load_run_suite(options.run);
  std::vector<const suite::Task*> tasks;
  std::string patterns = fmt::format("{}", fmt::join(c.tasks, ","));
  for (auto& t : s.tasks) {
    if (run::task_selected(patterns, t.key) && suite::select_cases(t, c.cases)) {
      tasks.push_back(&t);
    }
  }
  if (tasks.empty()) {
    throw Error(ErrorKind::usage, "no task matches '{}'{} (see `kbx suite list` and `kbx suite show`)",
                patterns, c.cases.empty() ? "" : fmt::format(" with a case matching '{}'", c.cases));
  }
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  sandbox::set_cancel_flag(&g_stop);
  TerminalProgress progress(stderr, isatty(fileno(stderr)) != 0, use_color(stderr));
  fmt::print(stderr, "kbx: checking {} tasks on {} with {} input draws per case\n", tasks.size(),
             options.run.device, options.seeds);
  auto report = traced_run(e.trace, options.run.trace, progress, [&] {
    return run::run_suite_check(options, s, tasks, progress, g_stop);
  });
  std::map<std::string, int> failures_by_task;
  for (const auto& r : report.results) {
    if (!r.as_expected()) {
      ++failures_by_task[r.task_key];
      fmt::print("UNEXPECTED {} control '{}': {} ({}), expected {}: {}\n", r.task_key, r.control,
                 r.outcome, r.reason, r.must_pass ? "ok" : "a failing verdict",
                 r.detail.substr(0, 300));
    }
  }
  fmt::print("suite check: {} tasks, {} controls, {} as expected, {} unexpected in {} tasks\n",
             report.tasks, report.results.size(), report.results.size() - report.unexpected(),
             report.unexpected(), failures_by_task.size());
  if (g_stop.load()) {
    return 130;
  }
  return report.unexpected() > 0 || static_cast<int>(report.results.size()) == 0 ? 1 : 0;
}

// ---- kbx summary --------------------------------------------------------------------------

/// The store of the run in folder `out`, for commands that only read it (no lock: they show what
/// is stored so far); a clear error when there is none yet, or none at all.
fs::path run_store(const std::string& out) {
  fs::path db_path = fs::path(out) / "kbx.db";
  std::error_code ec;
  if (!fs::exists(db_path, ec)) {
    auto holder = FolderLock::recorded_holder(out);
    if (holder && (::kill(holder->pid, 0) == 0 || errno == EPERM)) {
      throw Error(ErrorKind::busy,
                  "'{}' holds no kbx.db yet: kbx (pid {}) is starting a run there; try again in a "
                  "moment",
                  out, holder->pid);
    }
    throw Error(ErrorKind::usage, "'{}' holds no kbx.db; pass the -o folder of a `kbx eval` run", out);
  }
  return db_path;
}

int cmd_summary(const std::string& out, bool json) {
  auto db = store::Database::open(run_store(out));
  auto model = report::build_report_model(*db);
  if (json) {
    // Input-error messages and origins come from the user's bytes: never let them end the command.
    fmt::print("{}\n",
               report::kbx_summary_json(model).dump(2, ' ', false, Json::error_handler_t::replace));
  } else {
    fmt::print("{}", report::render_terminal_summary(model, use_color(stdout)));
  }
  return 0;
}

// ---- kbx compare --------------------------------------------------------------------------

/// Each run's store (an -o folder or its kbx.db), read into a report model.
std::vector<report::NamedRun> load_runs(const std::vector<std::string>& runs) {
  std::vector<report::NamedRun> named;
  for (const auto& run : runs) {
    std::error_code ec;
    auto db = store::Database::open(fs::is_regular_file(run, ec) ? fs::path(run) : run_store(run));
    named.push_back({run, report::build_report_model(*db)});
  }
  return named;
}

int cmd_compare(const std::vector<std::string>& runs, bool json, int top) {
  if (runs.size() < 2) {
    throw Error(ErrorKind::usage, "compare needs two or more runs (the -o folders of `kbx eval`)");
  }
  auto named = load_runs(runs);
  auto comparison = report::compare_runs(named);
  if (json) {
    fmt::print("{}\n", report::comparison_json(comparison)
                           .dump(2, ' ', false, Json::error_handler_t::replace));
  } else {
    fmt::print("{}", report::render_comparison(comparison, top));
  }
  return 0;
}

// ---- kbx report ---------------------------------------------------------------------------

/// Options of `kbx report` beyond the runs.
struct ReportArgs {
  std::string out;         ///< -o: .html (or .md: Markdown)
  std::string markdown;    ///< --markdown FILE
  std::string best_known;  ///< --best-known RUN
};

void write_report_file(const std::string& out, const std::string& text, const char* what,
                       std::size_t runs) {
  fs::path path(out);
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    throw Error(ErrorKind::usage,
                "-o '{}' is a folder; pass the {} file to write, e.g. {}/report.{}", out, what, out,
                std::string(what) == "HTML" ? "html" : "md");
  }
  if (path.has_parent_path()) {
    fs::create_directories(path.parent_path(), ec);
  }
  write_file_atomic(path, text);
  fmt::print("report: {} ({} run{}, {} KiB, {})\n", path.string(), runs, runs == 1 ? "" : "s",
             (text.size() + 1023) / 1024,
             std::string(what) == "HTML" ? "self-contained" : "Markdown");
}

bool is_markdown_path(const std::string& out) {
  auto ext = fs::path(out).extension().string();
  return ext == ".md" || ext == ".markdown";
}

int cmd_report(const std::vector<std::string>& runs, const ReportArgs& a) {
  if (a.out.empty() && a.markdown.empty()) {
    throw Error(ErrorKind::usage, "report writes -o FILE.html (or .md) and/or --markdown FILE.md");
  }
  auto named = load_runs(runs);
  std::optional<report::NamedRun> best;
  report::HtmlOptions options;
  if (!a.best_known.empty()) {
    best = std::move(load_runs({a.best_known}).front());
    options.best_known = &*best;
  }
  std::string generator = "kbx " + kbx::version_string();
  if (!a.out.empty()) {
    if (is_markdown_path(a.out)) {
      write_report_file(a.out, report::render_markdown_report(named, generator, options),
                        "Markdown", named.size());
    } else {
      write_report_file(a.out, report::render_html_report(named, generator, options), "HTML",
                        named.size());
    }
  }
  if (!a.markdown.empty()) {
    write_report_file(a.markdown, report::render_markdown_report(named, generator, options),
                      "Markdown", named.size());
  }
  return 0;
}

// ---- kbx analyze --------------------------------------------------------------------------

/// Options of `kbx analyze` beyond the runs, --by and --deviance.
struct AnalyzeArgs {
  bool json = false;
  bool csv = false;
  std::string csv_dir;     ///< --csv-dir: every table as a CSV file
  std::string best_known;  ///< --best-known RUN
  double peak_gbs = 0;     ///< 0: none
  double peak_tflops = 0;  ///< 0: none
};

/// The analyses beyond the grouped table: iterations, failure taxonomy, utilisation, across
/// devices, best known.
struct Extras {
  std::vector<report::Iterations> iterations;
  report::Taxonomy taxonomy;
  std::vector<report::UtilisationGroup> utilisation;
  report::Peaks peaks;
  std::vector<report::DeviceComparison> devices;
  std::optional<report::BestKnown> best;
};

Extras analyze_extras(const std::vector<report::NamedRun>& named, const AnalyzeArgs& a) {
  Extras x;
  x.iterations = report::iterations(named);
  x.taxonomy = report::failure_taxonomy(named);
  x.utilisation = report::utilisation(named);
  auto peak = [](double v) { return v > 0 ? std::optional<double>(v) : std::nullopt; };
  x.peaks = {peak(a.peak_gbs), peak(a.peak_tflops)};
  if (!x.peaks.gbs) {
    x.peaks.gbs = report::shared_copy_gbs(named);
  }
  x.devices = report::compare_devices(named);
  if (!a.best_known.empty()) {
    x.best = report::best_known(load_runs({a.best_known}).front(), named);
  }
  return x;
}

void add_extras_json(Json& j, const Extras& x) {
  j["iterations"] = report::iterations_json(x.iterations);
  j["failure_taxonomy"] = report::taxonomy_json(x.taxonomy);
  j["utilisation"] = report::utilisation_json(x.utilisation, x.peaks);
  j["cross_device"] = Json::array();
  for (const auto& d : x.devices) {
    j["cross_device"].push_back(
        Json{{"labels", d.labels}, {"comparison", report::comparison_json(d.comparison)}});
  }
  j["best_known"] = x.best ? report::best_known_json(*x.best) : Json(nullptr);
}

void print_extras(const Extras& x) {
  if (!x.iterations.empty()) {
    fmt::print("\n{}", report::render_iterations(x.iterations));
  }
  fmt::print("\n{}", report::render_taxonomy(x.taxonomy));
  fmt::print("\n{}", report::render_utilisation(x.utilisation, x.peaks));
  for (const auto& d : x.devices) {
    fmt::print("\nAcross devices, {}:\n{}", d.labels, report::render_comparison(d.comparison, 10));
  }
  if (x.best) {
    fmt::print("\n{}", report::render_best_known(*x.best));
  }
}

std::string cross_device_csv(const std::vector<report::DeviceComparison>& devices) {
  std::string out = "labels,task,spread,outcome_changed,verdict_changed\n";
  for (const auto& d : devices) {
    for (const auto& row : d.comparison.rows) {
      out += fmt::format("\"{}\",\"{}\",{},{},{}\n", d.labels, row.task,
                         row.spread ? fmt::format("{:.6g}", *row.spread) : "",
                         row.outcome_changed ? 1 : 0, row.verdict_changed ? 1 : 0);
    }
  }
  return out;
}

void write_csv_dir(const std::string& dir, const report::Analysis& analysis, const Extras& x) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    throw Error(ErrorKind::io, "--csv-dir '{}': cannot create it: {}", dir, ec.message());
  }
  std::vector<std::pair<std::string, std::string>> files{
      {"groups.csv", report::analysis_csv(analysis)},
      {"iterations.csv", report::iterations_csv(x.iterations)},
      {"failure_taxonomy.csv", report::taxonomy_csv(x.taxonomy)},
      {"utilisation.csv", report::utilisation_csv(x.utilisation, x.peaks)},
      {"cross_device.csv", cross_device_csv(x.devices)}};
  if (x.best) {
    files.emplace_back("best_known.csv", report::best_known_csv(*x.best));
  }
  for (const auto& [name, text] : files) {
    write_file_atomic(fs::path(dir) / name, text);
  }
  fmt::print(stderr, "analyze: wrote {} CSV files to {}\n", files.size(), dir);
}

int cmd_analyze(const std::vector<std::string>& runs, const std::string& by,
                const std::string& deviance, const AnalyzeArgs& args) {
  const bool json = args.json;
  const bool csv = args.csv;
  if (json && csv) {
    throw Error(ErrorKind::usage, "analyze prints --json or --csv, not both");
  }
  std::vector<std::string> pair;
  for (const auto& d : split(deviance, ',')) {
    if (std::string t(trim(d)); !t.empty()) {
      pair.push_back(t);
    }
  }
  if (!deviance.empty() && pair.size() != 2) {
    throw Error(ErrorKind::usage, "--deviance takes two dimensions, e.g. category,method (got '{}')",
                deviance);
  }
  if (!pair.empty() && csv) {
    throw Error(ErrorKind::usage, "--deviance prints as text or --json, not --csv");
  }
  auto named = load_runs(runs);
  std::optional<stats::DevianceDecomposition> decomposition;
  if (!pair.empty()) {
    auto d = report::exe_deviance(named, pair[0], pair[1]);
    if (!d) {
      throw Error(d.error().kind() == ErrorKind::usage ? ErrorKind::usage : ErrorKind::input,
                  "--deviance {},{}: {}", pair[0], pair[1], d.error().what());
    }
    decomposition = d.value();
  }
  std::vector<std::string> dims;
  for (const auto& d : split(by, ',')) {
    if (std::string t(trim(d)); !t.empty()) {
      dims.push_back(t);
    }
  }
  auto analysis = report::analyze_runs(named, dims);
  Extras extras = analyze_extras(named, args);
  if (!args.csv_dir.empty()) {
    write_csv_dir(args.csv_dir, analysis, extras);
  }
  if (json) {
    Json j = report::analysis_json(analysis);
    if (decomposition) {
      j["deviance"] = report::deviance_json(*decomposition);
    }
    add_extras_json(j, extras);
    fmt::print("{}\n", j.dump(2, ' ', false, Json::error_handler_t::replace));
  } else if (csv) {
    fmt::print("{}", report::analysis_csv(analysis));
  } else {
    fmt::print("{}", report::render_analysis(analysis));
    if (decomposition) {
      fmt::print("{}", report::render_deviance(*decomposition));
    }
    print_extras(extras);
  }
  return 0;
}

// ---- kbx merge ----------------------------------------------------------------------------

int cmd_merge(cluster::MergeOptions options) {
  auto summary = cluster::merge_runs(options);
  for (const auto& d : summary.combined) {
    fmt::print(stderr,
               "kbx: combined runs that differ in {} ({}); each session records its source\n",
               d.field, d.details);
  }
  fmt::print("{}", report::render_terminal_summary(summary.model, use_color(stdout)));
  fmt::print("merged {} runs ({} evaluations) into {} (kbx.db, metrics.json, summary.json, "
             "kbx-results.json, kbx-results.csv)\n",
             summary.runs, summary.evaluations, options.out.string());
  return 0;
}

// ---- kbx slurm ----------------------------------------------------------------------------

struct SlurmArgs {
  std::string source;
  std::string out;
  int shards = 0;
  std::string partition;
  int gpus_per_shard = 0;
  std::string time_limit;
  std::string account;
  bool dry_run = false;
  int retries = 2;
  double poll_s = 10;
  std::vector<std::string> eval_args;
};

int cmd_slurm(const SlurmArgs& a, const std::vector<std::string>& argv) {
  cluster::SlurmOptions o;
  std::error_code ec;
  o.source = fs::absolute(a.source, ec).lexically_normal().string();
  o.out = fs::absolute(a.out, ec).lexically_normal();
  o.shards = a.shards;
  o.partition = a.partition;
  o.gpus_per_shard = a.gpus_per_shard;
  o.time_limit = a.time_limit;
  o.account = a.account;
  o.retries = a.retries;
  o.poll_s = a.poll_s;
  o.eval_args = a.eval_args;
  o.argv = argv;
  o.kbx = fs::read_symlink("/proc/self/exe", ec);
  cluster::check_eval_args(o.eval_args);
  if (a.dry_run) {
    fmt::print("{}", cluster::sbatch_script(o));
    return 0;
  }
  if (!fs::exists(o.source, ec)) {
    throw Error(ErrorKind::usage, "SOURCE '{}' does not exist", a.source);
  }
  if (fs::exists(o.out / "kbx.db", ec)) {
    throw Error(ErrorKind::usage, "'{}' already holds a merged kbx.db; use a new -o folder", a.out);
  }
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  cluster::SystemCommandRunner commands;
  auto shards = cluster::run_slurm_array(
      o, commands, [](const std::string& line) { fmt::print(stderr, "kbx slurm: {}\n", line); },
      g_stop);
  if (g_stop.load()) {
    fmt::print(stderr,
               "kbx slurm: stopped following; the jobs keep running (squeue), and each "
               "shard's folder under {}/shards resumes\n",
               o.out.string());
    return 130;
  }
  std::vector<std::string> failed;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    if (shards[i].state != "done") {
      failed.push_back(fmt::format("{} ({})", i + 1, shards[i].last_failure));
    }
  }
  if (!failed.empty()) {
    throw Error(ErrorKind::worker,
                "shard{} {} did not finish after {} resubmissions; see {}/slurm/logs, then run "
                "`kbx merge` on the shards under {}/shards (--partial for what is there)",
                failed.size() == 1 ? "" : "s", fmt::join(failed, ", "), o.retries, o.out.string(),
                o.out.string());
  }
  cluster::MergeOptions m;
  for (int i = 1; i <= o.shards; ++i) {
    m.runs.push_back((o.out / "shards" / std::to_string(i)).string());
  }
  m.out = o.out;
  m.argv = argv;
  return cmd_merge(m);
}

// ---- parsing ------------------------------------------------------------------------------

int run_cli(int argc, char** argv) {
  CLI::App app{"kbx: evaluates KernelBench-X submissions (Triton kernels): call, exe, perf", "kbx"};
  app.set_version_flag("--version", "kbx " + kbx::version_string());
  app.require_subcommand(1);
  app.footer("Start with `kbx suite list`, then `kbx eval SOURCE -o OUT`. Docs: docs/cli.md");

  SuiteArgs suite_args;
  auto* suite_cmd = app.add_subcommand("suite", "List and show the suite's tasks");
  suite_cmd->require_subcommand(1);
  auto* list_cmd = suite_cmd->add_subcommand("list", "List tasks");
  list_cmd->add_option("--category", suite_args.category, "Only this category (e.g. Fusion)");
  list_cmd->add_flag("--json", suite_args.json, "Print JSON");
  list_cmd->add_option("--suite", suite_args.root, "Suite folder (default: the bundled suites/kernelbenchx)");
  auto* show_cmd = suite_cmd->add_subcommand("show", "Show one task: description, cases, perf workloads");
  show_cmd->add_option("key", suite_args.key, "Task key, e.g. Math/softmax.py (or its name)")->required();
  show_cmd->add_flag("--json", suite_args.json, "Print JSON");
  show_cmd->add_option("--suite", suite_args.root, "Suite folder (default: the bundled suites/kernelbenchx)");

  EvalArgs ce;
  CheckArgs check_args;
  ce.out = "runs/suite-check";
  auto* check_cmd = suite_cmd->add_subcommand(
      "check", "Run each task's controls: eager PyTorch must pass, wrong answers must fail");
  check_cmd->add_option("tasks", check_args.tasks, "Task globs, e.g. 'Math/*' Reduce/sum (default: all)");
  check_cmd->add_option("-o,--out", ce.out, "Output folder (resumable)")->capture_default_str();
  check_cmd->add_option("--seeds", check_args.seeds, "Input draws per case")->capture_default_str();
  check_cmd->add_option("--seed", ce.seed, "Base seed for the input draws (each base gives other draws)")
      ->capture_default_str();
  check_cmd->add_option("--controls", check_args.controls,
                        "Only these controls: eager,zeros,first_input,noise,float16,bfloat16,upstream");
  check_cmd->add_option("--cases", check_args.cases,
                        "Only the cases whose names match these comma-separated globs, without the "
                        "recheck (a task's new cases alone); tasks with none are left out");
  check_cmd->add_option("--device", ce.device, "cuda, cpu or auto")
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}))->capture_default_str();
  check_cmd->add_option("-j,--jobs", ce.jobs, "Evaluations in flight");
  check_cmd->add_flag("--no-perf", ce.no_perf, "Skip the perf stage on a GPU");
  check_cmd->add_flag("--no-sandbox", ce.no_sandbox, "Run the controls unconfined (debugging only)");
  check_cmd->add_option("--timeout", ce.timeout_s, "Seconds allowed for each of the load and test-case stages");
  check_cmd->add_option("--suite", ce.suite_root, "Suite folder (default: the bundled suites/kernelbenchx)");
  check_cmd->add_option("--python", ce.python, "Python with torch and triton");
  check_cmd->add_option("--cache-dir", ce.cache_dir, "Reference-output cache (default: ~/.cache/kbx)");
  check_cmd->add_flag("--no-output-cache", check_args.no_output_cache,
                      "Keep the reference outputs in memory only, not in the cache dir (many draws "
                      "that no later run asks for again: tools/eager_seeds.sh)");
  check_cmd
      ->add_option("--reference-workers", check_args.reference_workers,
                   "Trusted reference workers per GPU computing the cases' expected outputs and "
                   "timing the references, each task's on one of them (default: the jobs per "
                   "GPU, at most 4; 1 on the CPU)")
      ->check(CLI::Range(1, 64));
  check_cmd
      ->add_option("--trace", ce.trace,
                   "Write the check's timeline to FILE (Chrome trace-event JSON, as `kbx eval --trace`)")
      ->option_text("FILE");

  EvalArgs e;
  auto* eval_cmd = app.add_subcommand("eval", "Evaluate a submission source; resumes an existing -o folder");
  eval_cmd->add_option("source", e.source, "A .jsonl file, a .py file named after a task, or a folder of them")->required();
  eval_cmd
      ->add_option(
          "-o,--out", e.out,
          "Output folder (kbx.db, metrics.json, summary.json, kbx-results.json, kbx-results.csv)")
      ->required();
  eval_cmd->add_option("--device", e.device, "cuda, cpu (Triton interpreter, no perf) or auto")
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}))->capture_default_str();
  eval_cmd->add_option("--gpus", e.gpus, "CUDA device indices to use, e.g. 0,1")->capture_default_str();
  eval_cmd->add_option("--tasks", e.tasks, "Only tasks matching these comma-separated globs, e.g. 'Math/*,Reduce/sum'");
  eval_cmd->add_option("-j,--jobs", e.jobs, "Evaluations in flight (default: cores on cpu, min(8, cores/2) on cuda)");
  eval_cmd->add_flag("--no-require-triton", e.no_require_triton, "Accept submissions that launch no Triton kernel (self-checks of references)");
  eval_cmd->add_flag("--no-perf", e.no_perf, "Skip the perf stage");
  eval_cmd->add_flag("--no-sandbox", e.no_sandbox,
                     "Run candidates unconfined (debugging only; the run records it)");
  eval_cmd->add_flag("--fail-fast", e.fail_fast,
                     "Stop each submission's cases at the first that fails (the rest recorded "
                     "not_run): the same pass/fail, sooner where many kernels fail; the outcome "
                     "names that case's failure");
  eval_cmd->add_option("--seed", e.seed, "Base seed for test inputs")->capture_default_str();
  eval_cmd->add_option("--method", e.method, "Label: the generation method (e.g. one-shot, reflexion)");
  eval_cmd->add_option("--model", e.model, "Label: the model that wrote the submissions");
  eval_cmd->add_option("--round", e.round, "Label: the repair round (0, 1, ...)")->check(CLI::NonNegativeNumber);
  eval_cmd->add_option("--reference-timing", e.reference_timing,
                       "session: each reference timed once per session, before any candidate; "
                       "adjacent: per submission, in its GPU slot right after it; interleaved: "
                       "as adjacent, in two rounds (candidate, reference, candidate in a fresh "
                       "process, reference), the rounds' samples pooled; cached: as "
                       "session, but kept in the cache dir per GPU, driver, torch, kbx and task "
                       "version and reused by later runs (kbx calibrate fills it)")
      ->check(CLI::IsMember({"session", "adjacent", "interleaved", "cached"}))
      ->capture_default_str();
  add_sampling_options(eval_cmd, e.sampling);
  eval_cmd
      ->add_option("--worker-start-hold", e.worker_start_hold,
                   "shared: each candidate worker holds the GPU lock shared while it creates its "
                   "CUDA context, so no timing run overlaps that (it slowed large workloads' "
                   "samples by up to 1.7x on an H100: docs/perf.md); the rest of its start runs "
                   "beside timing; none: starts take no hold (faster, noisier)")
      ->check(CLI::IsMember({"none", "shared"}))
      ->capture_default_str();
  eval_cmd
      ->add_option("--trace", e.trace,
                   "Write the run's timeline to FILE (Chrome trace-event JSON, for "
                   "https://ui.perfetto.dev or chrome://tracing): each thread's stages, the GPU's "
                   "exclusive holds, and where each timing request spent its time")
      ->option_text("FILE");
  eval_cmd
      ->add_option("--perf-scale", e.perf_scale,
                   "Shrink every perf workload to about this fraction of its bytes (0 < S <= 1), "
                   "for a GPU with less memory; recorded with the run, and speedups are then not "
                   "comparable with full-size runs")
      ->check(CLI::Range(1e-6, 1.0))
      ->capture_default_str();
  eval_cmd->add_option("--baseline", e.baseline,
                       "Baselines timed live on the same GPU: eager (PyTorch, always) or "
                       "eager,compile (also torch.compile of each reference, default mode; "
                       "speedups against both)")
      ->check(CLI::IsMember({"eager", "compile", "eager,compile"}))
      ->capture_default_str();
  auto* eval_graph =
      eval_cmd->add_flag("--graph", e.graph,
                         "CUDA-graph mode: also time each workload whose eager median is below "
                         "--graph-max-ms as replays of a CUDA graph (candidate and reference), "
                         "reported beside the eager figures, never mixed into them");
  eval_cmd
      ->add_option("--graph-max-ms", e.graph_max_ms,
                   "CUDA-graph mode: capture workloads whose eager median sample is below this "
                   "(ms)")
      ->check(CLI::Range(1e-6, 1e6))
      ->needs(eval_graph)
      ->capture_default_str();
  eval_cmd->add_option("--label", e.labels, "Label KEY=VALUE (repeatable); labels are part of the run, kept on resume");
  eval_cmd->add_option("--rules", e.rules,
                       "kbx (strict, default) or kernelbenchx (the public harness's rules, kbx's references)")
      ->check(CLI::IsMember({"kbx", "kernelbenchx"}))->capture_default_str();
  eval_cmd->add_option("--timeout", e.timeout_s, "Seconds allowed for each of the load and test-case stages (default 120 and 300)");
  eval_cmd->add_option("--perf-timeout", e.perf_timeout_s, "Seconds allowed for the perf stage")->capture_default_str();
  eval_cmd->add_option("--suite", e.suite_root, "Suite folder (default: the bundled suites/kernelbenchx)");
  eval_cmd->add_option("--python", e.python, "Python with torch and triton (default: .venv/bin/python, an installed wheel's own Python, else python3)");
  eval_cmd->add_option("--cache-dir", e.cache_dir, "Reference-output cache (default: ~/.cache/kbx)");
  eval_cmd->add_option("--compile-cache", e.compile_cache,
                       "Folder of compiled kernels candidates share on CUDA, filled only by kbx's "
                       "own recompiles of what they compiled (default: kbx-compile-cache in the "
                       "temporary folder; off: none)");
  eval_cmd->add_option("--shard", e.shard,
                       "Evaluate only shard I of N (e.g. 2/3): a deterministic split balanced by "
                       "expected cost; `kbx merge` joins the shards");

  cluster::MergeOptions merge_args;
  std::string merge_out;
  auto* merge_cmd = app.add_subcommand(
      "merge",
      "Join runs (shards of one split, or runs of other submissions) into one store and exports");
  merge_cmd->add_option("runs", merge_args.runs, "-o folders of `kbx eval` runs (or their kbx.db)")
      ->required();
  merge_cmd
      ->add_option("-o,--out", merge_out, "New output folder (kbx.db, metrics.json, summary.json)")
      ->required();
  merge_cmd->add_flag("--combine", merge_args.combine,
                      "Merge runs judged with different options, suites or GPU models; each "
                      "session records its source");
  merge_cmd->add_flag(
      "--partial", merge_args.partial,
      "Merge even when shards are missing or runs have submissions without a verdict");

  SlurmArgs sl;
  auto* slurm_cmd = app.add_subcommand(
      "slurm",
      "Evaluate SOURCE as a Slurm array job (a shard per task), resubmit failed shards, merge");
  slurm_cmd->add_option("source", sl.source, "A .jsonl file, a .py file or a folder (as for eval)")
      ->required();
  slurm_cmd->add_option("eval_args", sl.eval_args,
                        "After --: more `kbx eval` flags for every shard (e.g. -- --device cpu)");
  slurm_cmd
      ->add_option(
          "-o,--out", sl.out,
          "Output folder: the merged run; shards in OUT/shards/I, script and logs in OUT/slurm")
      ->required();
  slurm_cmd->add_option("--shards", sl.shards, "Number of shards (array tasks)")
      ->required()
      ->check(CLI::Range(1, run::max_shards));
  slurm_cmd->add_option("--partition", sl.partition, "sbatch --partition");
  slurm_cmd->add_option("--gpus-per-shard", sl.gpus_per_shard, "GPUs per array task (--gres=gpu:G)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  slurm_cmd->add_option("--time", sl.time_limit, "sbatch --time per shard, e.g. 2:00:00");
  slurm_cmd->add_option("--account", sl.account, "sbatch --account");
  slurm_cmd->add_option("--retries", sl.retries, "Resubmissions per failed or killed shard")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  slurm_cmd->add_option("--poll", sl.poll_s, "Seconds between squeue polls")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  slurm_cmd->add_flag("--dry-run", sl.dry_run, "Print the sbatch script and submit nothing");

  EvalArgs ge;
  GenerateArgs ga;
  auto* gen_cmd = app.add_subcommand(
      "generate", "Ask a model for kernels (one-shot, best-of-k, refine, agents), evaluating as it goes; resumes");
  gen_cmd->add_option("--endpoint", ga.endpoint,
                      "Base URL of the API, e.g. http://localhost:8000/v1 or https://api.anthropic.com/v1")
      ->required();
  gen_cmd->add_option("--api", ga.api, "openai (chat completions: vLLM, SGLang, Ollama, llama.cpp, hosted) or anthropic (messages)")
      ->check(CLI::IsMember({"openai", "anthropic"}))->capture_default_str();
  gen_cmd->add_option("--model", ge.model, "The model name the endpoint knows")->required();
  gen_cmd->add_option("--api-key-env", ga.api_key_env,
                      "Environment variable holding the key (default OPENAI_API_KEY or ANTHROPIC_API_KEY; unset: no key)");
  gen_cmd->add_option("--method", ga.method, "one-shot, best-of-k, refine or agents")
      ->check(CLI::IsMember({"one-shot", "best-of-k", "refine", "agents"}))->capture_default_str();
  gen_cmd->add_option("--rounds", ga.rounds, "Rounds (refine, agents; default 3; agents add one optimise round)")
      ->check(CLI::PositiveNumber);
  gen_cmd->add_option("--candidates", ga.candidates, "Candidates (chains, workers) per task (default 4 for best-of-k and agents, else 1)")
      ->check(CLI::PositiveNumber);
  gen_cmd->add_option("--tasks", ge.tasks, "Only tasks matching these comma-separated globs, e.g. 'Math/*,Reduce/sum' (default: all)");
  gen_cmd->add_option("-o,--out", ge.out, "Output folder (kbx.db with answers and verdicts, metrics.json, summary.json)")->required();
  gen_cmd->add_option("--temperature", ga.temperature,
                      "Sampling temperature (default 0, or 0.8 with several candidates; agents spread 0.2 to 1)");
  gen_cmd->add_option("--max-tokens", ga.max_tokens, "Most tokens per answer")->capture_default_str();
  gen_cmd->add_option("--concurrency", ga.concurrency, "Requests in flight at once")->capture_default_str();
  gen_cmd->add_option("--request-timeout", ga.request_timeout_s, "Seconds allowed for one request")->capture_default_str();
  gen_cmd->add_option("--retries", ga.retries, "Retries of a request on 429, 5xx, timeouts and malformed answers")->capture_default_str();
  gen_cmd->add_option("--backoff-ms", ga.backoff_ms, "First retry's wait, doubled each retry (Retry-After wins)")->capture_default_str();
  gen_cmd->add_option("--max-wait", ga.max_wait_s, "Longest single wait before a retry, in seconds")->capture_default_str();
  gen_cmd->add_option("--price-in", ga.price_in, "Dollars per million input tokens (for the cost)")->capture_default_str();
  gen_cmd->add_option("--price-out", ga.price_out, "Dollars per million output tokens")->capture_default_str();
  gen_cmd->add_option("--prompts", ga.prompts, "Prompt templates folder (default: the bundled prompts/v1)");
  gen_cmd->add_option("--device", ge.device, "cuda, cpu (Triton interpreter, no perf) or auto")
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}))->capture_default_str();
  gen_cmd->add_option("--gpus", ge.gpus, "CUDA device indices to use, e.g. 0,1")->capture_default_str();
  gen_cmd->add_option("-j,--jobs", ge.jobs, "Evaluations in flight");
  gen_cmd->add_flag("--no-perf", ge.no_perf, "Skip the perf stage");
  gen_cmd->add_option("--seed", ge.seed, "Base seed for test inputs")->capture_default_str();
  gen_cmd->add_option("--label", ge.labels, "Label KEY=VALUE for the run (repeatable)");
  gen_cmd->add_option("--timeout", ge.timeout_s, "Seconds allowed for each of the load and test-case stages");
  gen_cmd->add_option("--suite", ge.suite_root, "Suite folder (default: the bundled suites/kernelbenchx)");
  gen_cmd->add_option("--python", ge.python, "Python with torch and triton");
  gen_cmd->add_option("--cache-dir", ge.cache_dir, "Reference-output cache (default: ~/.cache/kbx)");

  DoctorArgs doc;
  auto* doc_cmd = app.add_subcommand(
      "doctor", "Check kbx's own measurement on this machine (--timing: its timer against do_bench)");
  doc_cmd->add_flag("--timing", doc.timing,
                    "Time the references with kbx's timer and triton.testing.do_bench, compare medians");
  doc_cmd->add_option("--gpus", doc.gpus, "GPU indices, e.g. 0,1")->capture_default_str();
  doc_cmd->add_option("--tasks", doc.tasks, "Only tasks matching these globs");
  doc_cmd->add_option("-o,--out", doc.out, "Folder of the run (default: under $TMPDIR)");
  doc_cmd->add_option("--tolerance", doc.tolerance, "Largest relative difference of the medians")
      ->capture_default_str();
  doc_cmd->add_option("--min-us", doc.min_us, "Judge only workloads at least this long (µs)")
      ->capture_default_str();
  doc_cmd->add_option("--top", doc.top, "Workloads to list, largest difference first (-1: all)")
      ->capture_default_str();
  doc_cmd->add_option("--suite", doc.suite_root, "Suite folder (default: the bundled suites/kernelbenchx)");
  doc_cmd->add_option("--python", doc.python, "Python with torch and triton");
  doc_cmd->add_option("--cache-dir", doc.cache_dir, "Cache folder (default: ~/.cache/kbx)");

  CalibrateArgs cal;
  auto* cal_cmd = app.add_subcommand(
      "calibrate",
      "Measure the device's ceilings (copy bandwidth, matmul throughput per dtype) and cache every "
      "reference's timing");
  cal_cmd->add_option("--device", cal.device, "auto, cpu or cuda")->capture_default_str();
  cal_cmd->add_option("--gpus", cal.gpus, "GPU indices, e.g. 0,1")->capture_default_str();
  cal_cmd->add_option("--tasks", cal.tasks, "Only tasks matching these globs (reference timings)");
  cal_cmd->add_option("-o,--out", cal.out,
                      "Folder of the references' self-check run (default: under the cache dir)");
  cal_cmd->add_option("-j,--jobs", cal.jobs, "Evaluations in flight");
  cal_cmd->add_flag("--no-timings", cal.no_timings, "Only the ceilings; time no reference");
  cal_cmd->add_flag("--quick", cal.quick, "Smaller ceiling measurements (tests; less exact)");
  cal_cmd->add_option("--baseline", cal.baseline,
                      "Baselines to cache timings of: eager, or eager,compile (torch.compile too)")
      ->check(CLI::IsMember({"eager", "compile", "eager,compile"}))
      ->capture_default_str();
  auto* cal_graph =
      cal_cmd->add_flag("--graph", cal.graph,
                        "Also time the references in CUDA-graph mode (the cache entries `kbx eval "
                        "--graph` reads)");
  cal_cmd
      ->add_option("--graph-max-ms", cal.graph_max_ms,
                   "CUDA-graph mode's threshold, as for kbx eval (ms)")
      ->check(CLI::Range(1e-6, 1e6))
      ->needs(cal_graph)
      ->capture_default_str();
  add_sampling_options(cal_cmd, cal.sampling);
  cal_cmd->add_option("--suite", cal.suite_root, "Suite folder (default: the bundled suites/kernelbenchx)");
  cal_cmd->add_option("--python", cal.python, "Python with torch and triton");
  cal_cmd->add_option("--cache-dir", cal.cache_dir, "Cache folder (default: ~/.cache/kbx)");
  EvalArgs se;
  ServeArgs sa;
  auto* serve_cmd = app.add_subcommand(
      "serve", "Evaluate submissions sent over HTTP (JSON): a local service for training loops and dashboards");
  serve_cmd->add_option("-o,--out", se.out, "Output folder: kbx.db with every request and verdict")->required();
  serve_cmd->add_option("--listen", sa.listen, "HOST:PORT to listen on (port 0: any free one); "
                        "an address other than loopback needs --token-env")->capture_default_str();
  serve_cmd->add_option("--token-env", sa.token_env,
                        "Environment variable holding the bearer token every request must send");
  serve_cmd->add_option("--queue", sa.queue, "Evaluations waiting at most; beyond it 429 with Retry-After")
      ->check(CLI::PositiveNumber)->capture_default_str();
  serve_cmd->add_option("--wait", sa.wait_s, "Seconds a request waits for its verdict before 504 (the evaluation goes on)")
      ->check(CLI::PositiveNumber)->capture_default_str();
  serve_cmd->add_option("--max-code-bytes", sa.max_code_bytes, "Largest accepted \"code\" (413 beyond)")
      ->capture_default_str();
  serve_cmd->add_option("--http-threads", sa.threads, "Connections handled at once (default: queue + jobs + 32)");
  serve_cmd->add_flag("--perf,!--no-perf", sa.perf,
                      "Run the perf stage (CUDA only; default on) unless a request says \"perf\": false");
  serve_cmd->add_option("--device", se.device, "cuda, cpu (Triton interpreter, no perf) or auto")
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}))->capture_default_str();
  serve_cmd->add_option("--gpus", se.gpus, "CUDA device indices to spread evaluations over, e.g. 0,1")->capture_default_str();
  serve_cmd->add_option("-j,--jobs", se.jobs, "Evaluations in flight (default: cores on cpu, min(8, cores/2) on cuda)");
  serve_cmd->add_option("--timeout", se.timeout_s, "Seconds allowed for each of the load and test-case stages (default 120 and 300)");
  serve_cmd->add_option("--perf-timeout", se.perf_timeout_s, "Seconds allowed for the perf stage")->capture_default_str();
  serve_cmd->add_option("--reference-timing", se.reference_timing,
                        "session: each task's reference timed once per server session, on first use; "
                        "adjacent: per submission, in its GPU slot; interleaved: as adjacent, in two "
                        "rounds, the candidate's second in a fresh process; cached: as session, kept in the cache dir")
      ->check(CLI::IsMember({"session", "adjacent", "interleaved", "cached"}))->capture_default_str();
  serve_cmd->add_option("--baseline", se.baseline,
                        "eager (always) or eager,compile (also torch.compile of each reference)")
      ->check(CLI::IsMember({"eager", "compile", "eager,compile"}))->capture_default_str();
  serve_cmd->add_option("--rules", se.rules, "kbx (strict, default) or kernelbenchx")
      ->check(CLI::IsMember({"kbx", "kernelbenchx"}))->capture_default_str();
  serve_cmd->add_option("--seed", se.seed, "Base seed for test inputs")->capture_default_str();
  serve_cmd->add_flag("--no-sandbox", se.no_sandbox, "Run candidates unconfined (debugging only; recorded)");
  serve_cmd->add_option("--suite", se.suite_root, "Suite folder (default: the bundled suites/kernelbenchx)");
  serve_cmd->add_option("--python", se.python, "Python with torch and triton");
  serve_cmd->add_option("--cache-dir", se.cache_dir, "Reference-output cache (default: ~/.cache/kbx)");
  serve_cmd->add_option("--compile-cache", se.compile_cache,
                       "Folder of compiled kernels candidates share on CUDA, filled only by kbx's "
                       "own recompiles of what they compiled (default: kbx-compile-cache in the "
                       "temporary folder; off: none)");

  std::string summary_out;
  bool summary_json_flag = false;
  auto* summary_cmd = app.add_subcommand("summary", "Print the summary of a finished or running eval");
  summary_cmd->add_option("out", summary_out, "The -o folder of a `kbx eval` run")->required();
  summary_cmd->add_flag("--json", summary_json_flag,
                        "Print kbx's summary (kbx-results.json's \"summary\": every submission, "
                        "rates as fractions)");

  std::vector<std::string> compare_runs;
  bool compare_json = false;
  int compare_top = 20;
  auto* compare_cmd = app.add_subcommand(
      "compare", "Join runs by task (other GPUs, dates or settings): speedup spreads and changed verdicts");
  compare_cmd->add_option("runs", compare_runs, "Two or more -o folders of `kbx eval` runs (or their kbx.db)")
      ->required();
  compare_cmd->add_flag("--json", compare_json, "Print every task as JSON");
  compare_cmd->add_option("--top", compare_top, "Tasks to list, largest spread first (-1: all)")
      ->capture_default_str();

  std::vector<std::string> analyze_runs;
  std::string analyze_by = "category";
  AnalyzeArgs analyze_args;
  auto* analyze_cmd = app.add_subcommand(
      "analyze", "Pass rates, speedups and fast_p over runs, grouped by labels, device, category");
  analyze_cmd->add_option("runs", analyze_runs, "-o folders of `kbx eval` runs (or their kbx.db)")
      ->required();
  analyze_cmd->add_option("--by", analyze_by,
                          "Comma-separated dimensions: category, task, run, device, or a label "
                          "(method, model, round, ...); empty: one group")
      ->capture_default_str();
  std::string analyze_deviance;
  analyze_cmd->add_option("--deviance", analyze_deviance,
                          "Two dimensions, e.g. category,method: the share of the deviance of exe "
                          "success each explains (logit GLM) and likelihood-ratio tests");
  analyze_cmd->add_flag("--json", analyze_args.json, "Print JSON (every analysis)");
  analyze_cmd->add_flag("--csv", analyze_args.csv, "Print the grouped table as CSV");
  analyze_cmd->add_option("--csv-dir", analyze_args.csv_dir,
                          "Write every table as CSV into this folder (groups, iterations, "
                          "failure_taxonomy, utilisation, cross_device, best_known)");
  analyze_cmd->add_option("--best-known", analyze_args.best_known,
                          "A run of kbx's expert kernels (solutions/): its speedup per task beside "
                          "the runs'");
  analyze_cmd->add_option("--peak-gbs", analyze_args.peak_gbs,
                          "The device's peak bandwidth in GB/s: utilisation as a share of it (default: the copy bandwidth kbx calibrate measured)");
  analyze_cmd->add_option("--peak-tflops", analyze_args.peak_tflops,
                          "The device's peak TFLOP/s: compute utilisation as a share of it");

  std::vector<std::string> report_runs;
  ReportArgs report_args;
  auto* report_cmd = app.add_subcommand(
      "report", "Write a self-contained HTML report of one or more runs (side by side)");
  report_cmd->add_option("runs", report_runs, "-o folders of `kbx eval` runs (or their kbx.db)")
      ->required();
  report_cmd->add_option("-o,--out", report_args.out,
                         "The file to write: report.html (HTML), or summary.md (Markdown)");
  report_cmd->add_option("--markdown", report_args.markdown,
                         "Also write the headline tables as Markdown, e.g. summary.md");
  report_cmd->add_option(
      "--best-known", report_args.best_known,
      "A run of kbx's expert kernels (solutions/): a Best known column per task");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& err) {
    return app.exit(err) == 0 ? 0 : 2;
  }
  std::vector<std::string> args(argv, argv + argc);
  if (suite_args.root.empty()) {
    suite_args.root = default_suite_root().string();
  }
  if (*list_cmd) {
    return cmd_suite_list(suite_args);
  }
  if (*show_cmd) {
    return cmd_suite_show(suite_args);
  }
  if (*check_cmd) {
    return cmd_suite_check(ce, check_args, args);
  }
  if (*eval_cmd) {
    return cmd_eval(e, args);
  }
  if (*gen_cmd) {
    return cmd_generate(ga, ge, args);
  }
  if (*cal_cmd) {
    return cmd_calibrate(cal, args);
  }
  if (*doc_cmd) {
    return cmd_doctor(doc, args);
  }
  if (*serve_cmd) {
    return cmd_serve(sa, se, args);
  }
  if (*analyze_cmd) {
    return cmd_analyze(analyze_runs, analyze_by, analyze_deviance, analyze_args);
  }
  if (*compare_cmd) {
    return cmd_compare(compare_runs, compare_json, compare_top);
  }
  if (*merge_cmd) {
    merge_args.out = merge_out;
    merge_args.argv = args;
    merge_args.python = default_python();
    merge_args.worker_path = worker_path();
    return cmd_merge(merge_args);
  }
  if (*slurm_cmd) {
    return cmd_slurm(sl, args);
  }
  if (*report_cmd) {
    return cmd_report(report_runs, report_args);
  }
  return cmd_summary(summary_out, summary_json_flag);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_cli(argc, argv);
  } catch (const Error& e) {
    fmt::print(stderr, "kbx: error: {}\n", e.what());
    return exit_code_for(e.kind());
  } catch (const std::exception& e) {
    fmt::print(stderr, "kbx: internal error: {}\n", e.what());
    return 70;
  }
}

}  // namespace kbx::cli

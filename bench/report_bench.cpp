// The report's statistics on a full-size run: 176 tasks x 15 perf workloads x 100 samples per side.
// BM_SpeedupIntervals times the bootstrap intervals and verdicts alone (in memory);
// BM_NaiveIntervalOneTask one task's interval by sorting every resample (what the tables replace);
// BM_BuildReportModel the whole build_report_model, reading every sample from a kbx.db.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "kbx/report/report_model.h"
#include "kbx/stats/bootstrap.h"
#include "kbx/stats/speedup_verdict.h"
#include "kbx/stats/summary.h"

namespace {

constexpr int task_count = 176;
constexpr int workload_count = 15;
constexpr int sample_count = 100;
const std::string device = "cuda:0 NVIDIA H200";

struct Task {
  std::string key;
  std::vector<std::vector<double>> candidate;  // per workload
  std::vector<std::vector<double>> reference;
};

// Samples around `ms` with 3% uniform noise and one slow outlier in twenty, in random order.
std::vector<double> samples_around(double ms, kbx::stats::Rng& rng) {
  std::vector<double> out(sample_count);
  for (double& v : out) {
    v = ms * (1 + 0.03 * (2 * rng.uniform() - 1)) * (rng.uniform() < 0.05 ? 1.5 : 1.0);
  }
  return out;
}

// Tasks whose true speedups run from 0.5x to 2x; workload times from 10 us to 10 ms.
const std::vector<Task>& synthetic_tasks() {
  static const std::vector<Task> tasks = [] {
    kbx::stats::Rng rng(2026);
    std::vector<Task> out(task_count);
    for (int t = 0; t < task_count; ++t) {
      out[t].key = "Synthetic/task_" + std::to_string(t) + ".py";
      double speedup = 0.5 + 1.5 * t / (task_count - 1);
      for (int w = 0; w < workload_count; ++w) {
        double reference_ms = 0.01 * std::pow(1000.0, w / (workload_count - 1.0));
        out[t].reference.push_back(samples_around(reference_ms, rng));
        out[t].candidate.push_back(samples_around(reference_ms / speedup, rng));
      }
    }
    return out;
  }();
  return tasks;
}

void BM_SpeedupIntervals(benchmark::State& state) {
  const auto& tasks = synthetic_tasks();
  int faster = 0;
  for (auto _ : state) {
    kbx::stats::SpeedupBootstrap bootstrap;
    faster = 0;
    for (const Task& task : tasks) {
      std::vector<kbx::stats::WorkloadSamples> workloads;
      for (int w = 0; w < workload_count; ++w) {
        workloads.push_back({task.candidate[w], task.reference[w]});
      }
      auto ci = bootstrap.interval(workloads, kbx::stats::seed_for(task.key));
      faster += kbx::stats::judge_speedup(true, ci) == kbx::stats::SpeedupVerdict::faster;
    }
    benchmark::DoNotOptimize(faster);
  }
  state.counters["tasks_faster"] = faster;
}

// The method the tables replace, for scale: one task's interval by sorting every resample.
void BM_NaiveIntervalOneTask(benchmark::State& state) {
  const Task& task = synthetic_tasks().front();
  kbx::stats::Rng rng(1);
  std::vector<double> resample(sample_count);
  auto median_of_resample = [&](const std::vector<double>& samples) {
    for (double& v : resample) {
      v = samples[static_cast<std::size_t>(rng.uniform() * sample_count)];
    }
    std::sort(resample.begin(), resample.end());
    return kbx::stats::percentile_sorted(resample, 0.5);
  };
  for (auto _ : state) {
    std::vector<double> ratios;
    for (int b = 0; b < kbx::stats::BootstrapOptions{}.replicates; ++b) {
      double candidate = 0;
      double reference = 0;
      for (int w = 0; w < workload_count; ++w) {
        candidate += median_of_resample(task.candidate[w]);
        reference += median_of_resample(task.reference[w]);
      }
      ratios.push_back(reference / candidate);
    }
    std::sort(ratios.begin(), ratios.end());
    benchmark::DoNotOptimize(kbx::stats::percentile_sorted(ratios, 0.025));
  }
}

// A kbx.db holding the synthetic run: tasks, one session's reference timings, one ok evaluation
// per task. Removed when the program ends.
class SyntheticStore {
 public:
  SyntheticStore()
      : dir_(std::filesystem::temp_directory_path() /
             ("kbx_report_bench_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir_);
    db_ = kbx::store::Database::open(dir_ / "kbx.db");
    std::int64_t session = db_->begin_session({});
    int ordinal = 0;
    for (const Task& task : synthetic_tasks()) {
      add_task(task, session, ordinal++);
    }
  }

  ~SyntheticStore() {
    db_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  SyntheticStore(const SyntheticStore&) = delete;
  SyntheticStore& operator=(const SyntheticStore&) = delete;

  kbx::store::Database& db() { return *db_; }

 private:
  void add_task(const Task& task, std::int64_t session, int ordinal) {
    kbx::store::TaskRecord record{task.key, "Synthetic", "task", "v1", 1, {}};
    std::vector<kbx::store::TimingRecord> reference;
    kbx::store::EvaluationRecord e;
    for (int w = 0; w < workload_count; ++w) {
      record.workloads.push_back({w, kbx::Json::object(), 1e9, 1e12});
      kbx::store::TimingRecord r;
      r.workload = w;
      r.samples_ms = task.reference[w];
      reference.push_back(r);
      kbx::store::TimingRecord c;
      c.workload = w;
      c.samples_ms = task.candidate[w];
      e.timings.push_back(c);
    }
    db_->upsert_task(record);
    db_->save_reference_timings(session, task.key, reference, device);
    std::string id = "s" + std::to_string(ordinal);
    db_->upsert_submission({id, task.key, "synthetic.jsonl:" + std::to_string(ordinal + 1),
                            ordinal, "code"});
    e.submission_id = id;
    e.session_id = e.reference_session_id = session;
    e.device = device;
    e.outcome = "ok";
    e.call_ok = e.exe_ok = e.triton_ok = e.perf_ok = true;
    db_->save_evaluation(e);
  }

  std::filesystem::path dir_;
  std::unique_ptr<kbx::store::Database> db_;
};

void BM_BuildReportModel(benchmark::State& state) {
  static SyntheticStore store;
  int faster = 0;
  for (auto _ : state) {
    kbx::report::ReportModel model = kbx::report::build_report_model(store.db());
    faster = model.overall.verdicts.faster;
    benchmark::DoNotOptimize(model);
  }
  state.counters["tasks_faster"] = faster;
}

}  // namespace

BENCHMARK(BM_SpeedupIntervals)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NaiveIntervalOneTask)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BuildReportModel)->Unit(benchmark::kMillisecond);

// WorkerPool: keeps warm candidate workers ready per GPU, so a candidate never waits for Python.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kbx/common/trace.h"
#include "kbx/sandbox/gpu_lock.h"
#include "kbx/sandbox/live_candidates.h"
#include "kbx/sandbox/zygote.h"

namespace kbx::sandbox {

struct PoolConfig {
  std::string device = "cpu";      ///< "cuda" or "cpu"
  std::vector<int> gpus{0};        ///< device indices served (one entry, 0, for cpu)
  int spares_per_gpu = 1;          ///< warm workers kept ready per GPU
  /// Workers started at once per GPU (each start forks, confines and initialises CUDA, mostly
  /// waiting): every evaluation takes a fresh worker, so this bounds evaluations per second.
  int starters_per_gpu = 4;
  int threads = 1;                 ///< torch threads per worker
  /// Whether a start holds the GPU lock shared (RunOptions::worker_start_hold, on by default):
  /// only while the child creates its CUDA context (WorkerSpec::context_hold), the part of a
  /// start that slows a timing run beside it.
  bool start_hold = true;
  std::filesystem::path log_dir;   ///< worker logs: log_dir/w<N>.log
  std::chrono::seconds ready_timeout{180};
  /// The longest a QuietStarts keeps starts stopped: past it they go on (a candidate's timing
  /// that hangs must not make the starts it stopped miss ready_timeout). Legitimate quiet timing
  /// requests take a few seconds (`eig`'s, the longest, about 4 s on an H100).
  std::chrono::milliseconds max_quiet{30000};
  /// The sandbox of candidate workers (WorkerSpec::sandbox); each gets its own uid
  /// (sandbox_uid), when the object asks for one ("uid": true).
  Json sandbox;
  /// `kbx eval --trace`: each candidate worker's start is a "worker start" span on its starter's
  /// lane, and the part under its shared GPU hold (which a timing run waits for) a "start hold"
  /// span inside it; null: none.
  Trace* trace = nullptr;
};

/// The first uid of candidate workers when kbx runs as root.
constexpr int sandbox_uid_base = 2000000;

/// The uid blocks (of 4096 uids each) above sandbox_uid_base; the largest uid, about 1.08e9,
/// stays within an int.
constexpr int sandbox_uid_blocks = 1 << 18;

/// The uid of the `n`th candidate worker in uid block `block` (taken modulo sandbox_uid_blocks):
/// each kbx process has a block of its own (own_uid_block), so that kbx processes running at once
/// on one machine (one per GPU, a shard beside another, `kbx serve` beside `kbx eval`) give their
/// workers different uids. kbx tells a candidate's processes by its uid
/// (sandbox/candidate_processes.h): the freeze, the GPU-helper check and the zygote's kill of what
/// a worker left behind must not reach another run's worker. Within a process the block wraps
/// after 4096 workers, far beyond any worker's life.
int sandbox_uid(int block, int n);

/// Claims a uid block for this process: the first of `preferred`, `preferred` + 1, ... (modulo
/// sandbox_uid_blocks, at most 1024 tried) whose lock file `dir`/uid-block-N.lock it can hold
/// with flock. The lock lasts until the process ends (its descriptor is never closed, and is
/// closed on exec), so two live kbx processes never share a block, whatever their pids. Returns
/// -1 where `dir` cannot be made or no block in the range could be locked.
int claim_uid_block(const std::filesystem::path& dir, int preferred);

/// This process's uid block, claimed once on first use under the temporary directory's
/// kbx-uid-blocks/, from the pid modulo sandbox_uid_blocks; the pid's block where none can be
/// claimed (as before the claim existed).
int own_uid_block();

/// The worker's account of its start from its "ready" header (`phases_ms`: detach, setup, confine,
/// cupti, hold_wait, cuda_context, flush_buffer, triton_driver), for the trace's worker-start
/// spans: only
/// those names, each a finite time in ms; {} when there is none. Informative only.
Json start_phases(const Json& ready);

/// Pre-forks candidate workers from the zygote and hands out ready ones. A worker handed out is
/// the caller's to use once and destroy. Thread-safe.
class WorkerPool {
 public:
  WorkerPool(Zygote& zygote, PoolConfig config);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /// A ready candidate worker on `gpu`, waiting for one if needed. Throws Error(worker) when
  /// workers keep failing to start (the message carries the last worker log).
  std::unique_ptr<Worker> acquire(int gpu);

  /// A new worker of another role (the trusted reference), started synchronously.
  std::unique_ptr<Worker> start_worker(const std::string& role, int gpu);

  /// The first ready worker's device description ({} before any is ready).
  Json device_info(int gpu);

  /// The GPU's timing lock. Background worker starts hold it shared, so a timing run (exclusive)
  /// never overlaps another process creating a CUDA context or allocating on that GPU.
  GpuLock& gpu_lock(int gpu) { return *gpu_locks_.at(gpu); }

  /// Keeps worker starts off the host while it lives: every start under way (any role, any GPU)
  /// is stopped (StartingWorkers) and no new one begins; all go on when the last QuietStarts
  /// ends. Taken, under the exclusive GPU hold, around the timing of calls whose samples hold the
  /// host's share: such samples read 0.82x of their reference's median with a start's unheld
  /// phases beside them (19 of 23 under 0.95x), 0.98x without (docs/perf.md, session 37). A
  /// start's CUDA context is never under way then (it holds the GPU lock shared), and a stopped
  /// start's wait for its ready frame only lengthens.
  class QuietStarts {
   public:
    QuietStarts(WorkerPool* pool, StartingWorkers::Quiet quiet)
        : pool_(pool), quiet_(std::move(quiet)) {}
    ~QuietStarts();
    QuietStarts(QuietStarts&& other) noexcept
        : pool_(other.pool_), quiet_(std::move(other.quiet_)) {
      other.pool_ = nullptr;
    }
    QuietStarts& operator=(QuietStarts&&) = delete;
    QuietStarts(const QuietStarts&) = delete;
    QuietStarts& operator=(const QuietStarts&) = delete;

   private:
    WorkerPool* pool_;
    StartingWorkers::Quiet quiet_;
  };
  [[nodiscard]] QuietStarts quiet_starts();

 private:
  struct Lane {
    std::deque<std::unique_ptr<Worker>> ready;
    int starting = 0;
    int failures_in_a_row = 0;
    std::string last_failure;
    Json device_info = Json::object();
  };

  void starter_loop(int gpu);  // keeps the lane at spares_per_gpu ready workers
  std::unique_ptr<Worker> fork_and_wait(const std::string& role, int gpu, std::string& failure,
                                        const ContextHold* hold = nullptr);
  std::filesystem::path next_log_path();

  Zygote& zygote_;
  PoolConfig config_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<int, Lane> lanes_;
  std::map<int, std::unique_ptr<GpuLock>> gpu_locks_;
  std::vector<std::thread> starters_;
  int next_log_ = 0;
  bool stopping_ = false;
  // QuietStarts (under mutex_): how many are alive (the starters begin no start meanwhile),
  // since when, and whether that quiet ran past max_quiet (the watch released its starts).
  int quiet_ = 0;
  Clock::time_point quiet_began_{};
  bool quiet_expired_ = false;
  StartingWorkers starting_;
  std::thread quiet_watch_;
  void quiet_watch_loop();
};

}  // namespace kbx::sandbox

// WorkerPool: background starters keep each GPU's lane topped up with ready workers.
#include "kbx/sandbox/worker_pool.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include "kbx/common/error.h"

namespace kbx::sandbox {
namespace {

constexpr int max_failures_in_a_row = 3;

}  // namespace

Json start_phases(const Json& ready) {
  // The worker's own names (python/kbx_worker/child.py serve, init_device), in start order.
  static constexpr std::array<const char*, 8> known{
      "detach",       "setup",        "confine",      "cupti", "hold_wait",
      "cuda_context", "flush_buffer", "triton_driver"};
  Json out = Json::object();
  if (!ready.is_object() || !ready.contains("phases_ms") || !ready["phases_ms"].is_object()) {
    return out;
  }
  const Json& phases = ready["phases_ms"];
  for (const char* name : known) {
    if (phases.contains(name) && phases[name].is_number()) {
      double ms = phases[name].get<double>();
      if (std::isfinite(ms) && ms >= 0) {
        out[name] = ms;
      }
    }
  }
  return out;
}

WorkerPool::WorkerPool(Zygote& zygote, PoolConfig config)
    : zygote_(zygote), config_(std::move(config)) {
  std::lock_guard<std::mutex> lock(mutex_);
  int starters = std::max(1, std::min(config_.spares_per_gpu, config_.starters_per_gpu));
  for (int gpu : config_.gpus) {
    lanes_[gpu];
    gpu_locks_[gpu] = std::make_unique<GpuLock>();
    for (int i = 0; i < starters; ++i) {
      starters_.emplace_back([this, gpu] { starter_loop(gpu); });
    }
  }
  quiet_watch_ = std::thread([this] { quiet_watch_loop(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    starting_.release();  // a QuietStarts outliving the pool: its starts go on
  }
  changed_.notify_all();
  for (auto& t : starters_) {
    t.join();
  }
  quiet_watch_.join();
}

int sandbox_uid(int block, int n) {
  constexpr int size = 4096;
  return sandbox_uid_base + (std::max(0, block) % sandbox_uid_blocks) * size +
         std::max(0, n) % size;
}

int claim_uid_block(const std::filesystem::path& dir, int preferred) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec && !std::filesystem::is_directory(dir)) {
    return -1;
  }
  constexpr int tries = 1024;
  for (int i = 0; i < tries; ++i) {
    int block = (std::max(0, preferred) % sandbox_uid_blocks + i) % sandbox_uid_blocks;
    auto path = dir / fmt::format("uid-block-{}.lock", block);
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
      return -1;  // the folder is not ours to write: no claim at all
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      return block;  // fd stays open: the lock lasts as long as this process
    }
    ::close(fd);
  }
  return -1;
}

int own_uid_block() {
  static const int block = [] {
    int by_pid = static_cast<int>(getpid()) % sandbox_uid_blocks;
    int claimed = claim_uid_block(std::filesystem::temp_directory_path() / "kbx-uid-blocks", by_pid);
    return claimed >= 0 ? claimed : by_pid;
  }();
  return block;
}

std::filesystem::path WorkerPool::next_log_path() {
  return config_.log_dir / ("w" + std::to_string(next_log_++) + ".log");
}

std::unique_ptr<Worker> WorkerPool::fork_and_wait(const std::string& role, int gpu,
                                                  std::string& failure, const ContextHold* hold) {
  WorkerSpec spec;
  spec.role = role;
  spec.context_hold = hold != nullptr;
  spec.device = config_.device;
  spec.gpu = gpu;
  spec.threads = config_.threads;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    spec.log_path = next_log_path();
    if (role == "candidate" && !config_.sandbox.is_null()) {
      spec.sandbox = config_.sandbox;
      if (spec.sandbox.value("uid", false) == true) {
        spec.sandbox["uid"] = sandbox_uid(own_uid_block(), next_log_);
      } else {
        spec.sandbox.erase("uid");
      }
    }
  }
  std::unique_ptr<Worker> worker;
  try {
    worker = zygote_.fork_worker(spec);
  } catch (const Error& e) {
    failure = e.what();
    return nullptr;
  }
  starting_.add(worker->pid());  // stopped at once if forked while the host is kept quiet
  Reply r = worker->wait_ready(Clock::now() + config_.ready_timeout, hold);
  starting_.remove(worker->pid());
  if (!r.ok() || r.frame->header.contains("error")) {
    std::string why = r.ok() ? r.frame->header["error"].value("message", "device init failed")
                             : (r.failure == ReadFailure::timeout ? "timed out" : "exited");
    failure = "worker did not become ready (" + why + "); its log:\n" + worker->log_tail(2000);
    return nullptr;
  }
  return worker;
}

WorkerPool::QuietStarts WorkerPool::quiet_starts() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (quiet_++ == 0) {
    quiet_began_ = Clock::now();
    quiet_expired_ = false;
  }
  changed_.notify_all();  // the watch times this quiet
  return QuietStarts(this, starting_.quiet());
}

WorkerPool::QuietStarts::~QuietStarts() {
  if (pool_ == nullptr) {
    return;
  }
  {
    std::lock_guard<std::mutex> lock(pool_->mutex_);
    StartingWorkers::Quiet ending = std::move(quiet_);  // the stopped starts go on
    if (--pool_->quiet_ == 0) {
      pool_->quiet_expired_ = false;
    }
  }
  pool_->changed_.notify_all();
}

void WorkerPool::quiet_watch_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    if (quiet_ == 0 || quiet_expired_) {
      changed_.wait(lock);
      continue;
    }
    auto until = quiet_began_ + config_.max_quiet;
    changed_.wait_until(lock, until);
    if (!stopping_ && quiet_ > 0 && !quiet_expired_ &&
        Clock::now() >= quiet_began_ + config_.max_quiet) {
      quiet_expired_ = true;  // a timing that hangs: the starts it stopped go on, and new ones
      starting_.release();    // begin, rather than miss their ready timeout
      changed_.notify_all();
    }
  }
}

void WorkerPool::starter_loop(int gpu) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    Lane& lane = lanes_[gpu];
    changed_.wait(lock, [&] {
      return stopping_ ||
             ((quiet_ == 0 || quiet_expired_) &&
              static_cast<int>(lane.ready.size()) + lane.starting < config_.spares_per_gpu &&
              lane.failures_in_a_row < max_failures_in_a_row);
    });
    if (stopping_) {
      return;
    }
    ++lane.starting;
    lock.unlock();
    std::string failure;
    std::unique_ptr<Worker> worker;
    {
      // The shared hold covers only the child's CUDA context (it asks for it once confined and
      // its kernel inventory is on, and gives it back before loading Triton's driver glue).
      std::optional<SharedGpuHold> hold;
      Trace::Clock::time_point asked{};
      Trace::Clock::time_point held{};
      Trace::Clock::time_point released{};
      ContextHold context_hold{[&] {
                                 asked = Trace::Clock::now();
                                 hold.emplace(*gpu_locks_.at(gpu));
                                 held = Trace::Clock::now();
                               },
                               [&] {
                                 hold.reset();
                                 released = Trace::Clock::now();
                               }};
      auto began = Trace::Clock::now();
      worker = fork_and_wait("candidate", gpu, failure,
                             config_.start_hold ? &context_hold : nullptr);
      if (hold) {  // the start failed (or said ready) without giving the hold back
        context_hold.give();
      }
      if (config_.trace != nullptr) {
        Json args{{"gpu", gpu}, {"ok", worker != nullptr}};
        if (held != Trace::Clock::time_point{}) {  // the hold a waiting timing run sits behind
          auto ms = [](auto d) { return std::chrono::duration<double, std::milli>(d).count(); };
          args["hold_wait_ms"] = ms(held - asked);
          args["held_ms"] = ms(released - held);
          config_.trace->span("start hold", "pool", held, released, Json{{"gpu", gpu}});
        }
        if (worker) {
          Json phases = start_phases(worker->ready_info());
          if (!phases.empty()) {
            args["phases_ms"] = std::move(phases);
          }
        }
        config_.trace->span("worker start", "pool", began, Trace::Clock::now(), std::move(args));
      }
    }
    lock.lock();
    --lane.starting;
    if (worker) {
      lane.failures_in_a_row = 0;
      if (lane.device_info.empty()) {
        lane.device_info = worker->ready_info().value("device", Json::object());
      }
      lane.ready.push_back(std::move(worker));
    } else {
      ++lane.failures_in_a_row;
      lane.last_failure = failure;
    }
    changed_.notify_all();
  }
}

std::unique_ptr<Worker> WorkerPool::acquire(int gpu) {
  std::unique_lock<std::mutex> lock(mutex_);
  Lane& lane = lanes_.at(gpu);
  while (true) {
    if (!lane.ready.empty()) {
      auto w = std::move(lane.ready.front());
      lane.ready.pop_front();
      changed_.notify_all();  // a starter refills the lane
      return w;
    }
    if (lane.failures_in_a_row >= max_failures_in_a_row) {
      throw Error(ErrorKind::worker, "{} workers in a row failed to start on {}{}: {}",
                  max_failures_in_a_row, config_.device,
                  config_.device == "cuda" ? ":" + std::to_string(gpu) : "", lane.last_failure);
    }
    changed_.wait(lock);
  }
}

std::unique_ptr<Worker> WorkerPool::start_worker(const std::string& role, int gpu) {
  std::string failure;
  auto worker = fork_and_wait(role, gpu, failure);
  if (!worker) {
    throw Error(ErrorKind::worker, "the {} worker failed to start on {}: {}", role, config_.device,
                failure);
  }
  return worker;
}

Json WorkerPool::device_info(int gpu) {
  std::lock_guard<std::mutex> lock(mutex_);
  return lanes_[gpu].device_info;
}

}  // namespace kbx::sandbox

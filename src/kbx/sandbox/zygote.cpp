// Zygote: spawning the Python zygote and talking to it over the control socket.
#include "kbx/sandbox/zygote.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <set>
#include <cstring>

#include "kbx/common/error.h"
#include "kbx/common/files.h"

extern char** environ;

namespace kbx::sandbox {
namespace {

/// True for the variables of kbx's environment that the worker processes inherit: what Python,
/// torch, Triton and CUDA need. Everything else (tokens, keys, KBX_*) stays out: a candidate could
/// read the zygote's environment in /proc/self/environ.
bool inherited(const std::string& name) {
  static const std::set<std::string> names{
      "PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "LD_LIBRARY_PATH",
      "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
      "XDG_CACHE_HOME", "CUDA_HOME", "CUDA_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER",
      "CUDA_MODULE_LOADING", "CUDA_DEVICE_MAX_CONNECTIONS"};
  static const std::vector<std::string> prefixes{"TRITON_", "TORCH_", "NVIDIA_", "CUBLAS_",
                                                 "CUDNN_", "NCCL_", "PYTORCH_"};
  if (names.count(name) != 0) {
    return true;
  }
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](const std::string& p) { return name.starts_with(p); });
}

std::vector<std::string> child_environment(const ZygoteConfig& config) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string kv(*e);
    auto eq = kv.find('=');
    if (eq != std::string::npos && inherited(kv.substr(0, eq))) {
      env[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
  }
  std::string path = config.worker_path.string();
  env["PYTHONPATH"] = env.count("PYTHONPATH") != 0 ? path + ":" + env["PYTHONPATH"] : path;
  env["PYTHONUNBUFFERED"] = "1";
  env["PYTHONDONTWRITEBYTECODE"] = "1";
  for (const auto& [k, v] : config.env) {
    env[k] = v;
  }
  std::vector<std::string> out;
  for (const auto& [k, v] : env) {
    out.push_back(k + "=" + v);
  }
  return out;
}

}  // namespace

std::string signal_name(int signal) {
  switch (signal) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGPIPE: return "SIGPIPE";
    case SIGXCPU: return "SIGXCPU";
    default: return "signal " + std::to_string(signal);
  }
}

std::unique_ptr<Zygote> Zygote::start(const ZygoteConfig& config) {
  std::unique_ptr<Zygote> z(new Zygote());
  z->config_ = config;
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    throw sys_error("socketpair", errno);
  }
  int log_fd = open(config.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    throw sys_error("open", errno, config.log_path.string());
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, sv[1], 3);
  posix_spawn_file_actions_adddup2(&actions, log_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, log_fd, 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  std::vector<std::string> args{config.python, "-m", "kbx_worker", "zygote", "--control-fd", "3"};
  std::vector<char*> argv;
  for (auto& a : args) {
    argv.push_back(a.data());
  }
  argv.push_back(nullptr);
  auto env_strings = child_environment(config);
  std::vector<char*> envp;
  for (auto& e : env_strings) {
    envp.push_back(e.data());
  }
  envp.push_back(nullptr);
  int rc = posix_spawnp(&z->pid_, config.python.c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(sv[1]);
  close(log_fd);
  if (rc != 0) {
    close(sv[0]);
    throw Error(ErrorKind::worker,
                "cannot start the Python worker '{}': {}; install it with the README's set-up "
                "command or pass --python PATH",
                config.python, std::strerror(rc));
  }
  z->control_fd_ = sv[0];
  ReadFailure failure{};
  std::string error;
  auto hello = read_frame(z->control_fd_, z->reader_state_, Clock::now() + config.start_timeout,
                          failure, error);
  if (!hello || hello->op() != "hello") {
    std::string tail = z->log_tail();
    throw Error(ErrorKind::worker,
                "the Python worker ({} -m kbx_worker) did not start{}; its log ({}):\n{}",
                config.python, failure == ReadFailure::timeout ? " in time" : "",
                config.log_path.string(), tail.empty() ? "(empty)" : tail);
  }
  const Json& version = hello->header.contains("protocol") ? hello->header["protocol"] : Json();
  if (!version.is_number_integer() || version.get<int>() != protocol_version) {
    throw Error(ErrorKind::worker,
                "the Python worker speaks protocol version {}, but this kbx speaks version {}; "
                "point KBX_WORKER_PATH at the python/ folder of this kbx, or unset it",
                version.dump(), protocol_version);
  }
  z->env_ = hello->header.value("env", Json::object());
  z->reader_ = std::thread([zp = z.get()] { zp->reader_loop(); });
  return z;
}

Zygote::~Zygote() {
  {
    std::lock_guard<std::mutex> lock(write_mutex_);
    if (control_fd_ >= 0) {
      write_frame(control_fd_, Frame{Json{{"op", "shutdown"}}, {}});
      shutdown(control_fd_, SHUT_RDWR);
    }
  }
  if (reader_.joinable()) {
    reader_.join();
  }
  if (control_fd_ >= 0) {
    close(control_fd_);
  }
  if (pid_ > 0) {
    for (int i = 0; i < 50; ++i) {  // up to 5 s for a clean exit
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        return;
      }
      usleep(100'000);
    }
    ::kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

void Zygote::reader_loop() {
  while (true) {
    ReadFailure failure{};
    std::string error;
    auto frame = read_frame(control_fd_, reader_state_, Clock::now() + std::chrono::hours(1000),
                            failure, error, /*cancellable=*/false);
    std::lock_guard<std::mutex> lock(mutex_);
    if (!frame) {
      dead_ = true;
      changed_.notify_all();
      return;
    }
    const Json& h = frame->header;
    if (frame->op() == "forked") {
      forked_[h.value("id", 0)] = h.value("pid", -1);
    } else if (frame->op() == "exited") {
      ExitStatus s;
      if (h.contains("exit_code") && h["exit_code"].is_number_integer()) {
        s.exit_code = h["exit_code"].get<int>();
      }
      if (h.contains("signal") && h["signal"].is_number_integer()) {
        s.signal = h["signal"].get<int>();
      }
      exited_[h.value("pid", -1)] = s;
    }
    changed_.notify_all();
  }
}

std::unique_ptr<Worker> Zygote::fork_worker(const WorkerSpec& spec) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    throw sys_error("socketpair", errno);
  }
  int id = 0;
  {
    std::lock_guard<std::mutex> lock(write_mutex_);
    id = next_id_++;
    Frame fork{Json{{"op", "fork"},
                    {"id", id},
                    {"role", spec.role},
                    {"device", spec.device},
                    {"gpu", spec.gpu},
                    {"log_path", spec.log_path.string()},
                    {"threads", spec.threads}},
               {}};
    if (!spec.sandbox.is_null()) {
      fork.header["sandbox"] = spec.sandbox;
    }
    if (spec.context_hold) {
      fork.header["context_hold"] = true;
    }
    bool sent = write_frame(control_fd_, fork, sv[1]);
    close(sv[1]);
    if (!sent) {
      close(sv[0]);
      throw Error(ErrorKind::worker, "the worker zygote is gone; its log ({}):\n{}",
                  config_.log_path.string(), log_tail());
    }
  }
  std::unique_lock<std::mutex> lock(mutex_);
  bool got = changed_.wait_for(lock, std::chrono::seconds(60),
                               [&] { return forked_.count(id) != 0 || dead_; });
  if (!got || forked_.count(id) == 0) {
    close(sv[0]);
    throw Error(ErrorKind::worker, "the worker zygote did not fork (log {}):\n{}",
                config_.log_path.string(), log_tail());
  }
  int pid = forked_[id];
  forked_.erase(id);
  return std::make_unique<Worker>(sv[0], pid, spec);
}

std::optional<ExitStatus> Zygote::exit_status(int pid, std::chrono::milliseconds wait) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait_for(lock, wait, [&] { return exited_.count(pid) != 0 || dead_; });
  auto it = exited_.find(pid);
  if (it == exited_.end()) {
    return std::nullopt;
  }
  return it->second;
}

bool Zygote::alive() {
  std::lock_guard<std::mutex> lock(mutex_);
  return !dead_;
}

std::string Zygote::log_tail() const { return read_file_tail(config_.log_path, 4000); }

}  // namespace kbx::sandbox

// ReferenceService: reference outputs with a disk cache, and per-session reference timings.
#include "kbx/run/reference_service.h"
#include "kbx/run/judge.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <thread>

#include "kbx/common/files.h"
#include "kbx/common/hash.h"
#include "kbx/common/version.h"
#include "kbx/run/replies.h"
#include "kbx/sandbox/cpu_affinity.h"
#include "kbx/stats/speedup_verdict.h"
#include "kbx/stats/summary.h"

namespace kbx::run {
namespace {

std::string lane_key(const suite::Task& task, int gpu) { return fmt::format("{}@{}", task.key, gpu); }

// The key of a baseline's timings: eager's is the lane key as it always was.
std::string timing_key(const suite::Task& task, int gpu, const std::string& baseline) {
  return baseline == baseline_eager ? lane_key(task, gpu)
                                    : fmt::format("{}|{}", lane_key(task, gpu), baseline);
}

constexpr std::array<std::pair<const char*, std::vector<OutputLeaf> ReferenceCase::*>, 3> cached_parts{
    {{"outputs", &ReferenceCase::outputs},
     {"canonical", &ReferenceCase::canonical},
     {"magnitude", &ReferenceCase::magnitude}}};

std::optional<ReferenceCase> read_cached(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return std::nullopt;
  }
  std::string bytes = read_file(path);
  sandbox::FrameReader reader;
  reader.feed(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  auto frame = reader.next();
  if (!frame || !frame->ok()) {
    return std::nullopt;  // a torn or foreign file: recompute
  }
  const auto& f = frame->value();
  ReferenceCase out;
  out.raised = f.header.value("raised", false);
  for (const auto& [field, member] : cached_parts) {
    auto leaves = sandbox::decode_leaves(f.header.value(field, Json::array()), f.payload);
    if (!leaves) {
      return std::nullopt;
    }
    out.*member = std::move(leaves).value();
  }
  return out;
}

void write_cached(const std::filesystem::path& path, const ReferenceCase& result) {
  // The frame read_cached expects, written piece by piece: the tensors' bytes go from the leaves
  // to the file without being joined into one payload first (a task's outputs can be large).
  sandbox::Frame frame;
  frame.header = Json{{"op", "reference_outputs"}, {"raised", result.raised}};
  std::uint64_t offset = 0;
  std::vector<std::string_view> pieces{""};
  for (const auto& [field, member] : cached_parts) {
    frame.header[field] = sandbox::describe_leaves(result.*member, offset);
    for (const auto& leaf : result.*member) {
      if (leaf.kind == LeafKind::tensor) {
        pieces.emplace_back(reinterpret_cast<const char*>(leaf.tensor.data.data()), leaf.tensor.data.size());
      }
    }
  }
  std::string head = sandbox::encode_frame_head(frame, offset);
  pieces.front() = head;
  std::filesystem::create_directories(path.parent_path());
  write_file_atomic(path, pieces);
}

}  // namespace

std::string cached_timings_text(const suite::Task& task, const Json& reply_header) {
  return Json{{"task", task.key}, {"task_version", task.version}, {"reply", reply_header}}.dump();
}

std::optional<std::vector<store::TimingRecord>> parse_cached_timings(const std::string& text,
                                                                     std::size_t workload_count) {
  try {
    Json cached = Json::parse(text);
    auto timings = decode_timings(sandbox::Frame{cached.at("reply"), {}});  // as if just sent
    if (!timings || find_timing_reply_violation(workload_count, timings.value())) {
      return std::nullopt;
    }
    for (auto& t : timings.value()) {
      if (t.status != "ok") {
        return std::nullopt;
      }
      apply_stream_check(t);
    }
    return std::move(timings).value();
  } catch (const std::exception&) {
    return std::nullopt;  // a torn or foreign file: time again
  }
}

std::vector<store::TimingRecord> failed_timings(const suite::Task& task, const std::string& why) {
  std::vector<store::TimingRecord> out;
  for (const auto& w : task.workloads) {
    store::TimingRecord t;
    t.workload = w.index;
    t.status = "error";
    t.error = why;
    out.push_back(std::move(t));
  }
  return out;
}

ReferenceService::ReferenceService(sandbox::WorkerPool& pool, const RunOptions& options,
                                   std::string torch_version, std::string triton_version)
    : pool_(pool),
      options_(options),
      torch_version_(std::move(torch_version)),
      triton_version_(std::move(triton_version)) {}

ReferenceService::Lane& ReferenceService::lane(int gpu) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& l = lanes_[gpu];
  if (!l) {
    l = std::make_unique<Lane>();
  }
  return *l;
}

std::size_t ReferenceService::max_output_workers() const {
  if (options_.reference_workers > 0) {
    return static_cast<std::size_t>(options_.reference_workers);
  }
  if (options_.device != "cuda") {
    // On the CPU the reference's work competes for the same cores as the candidates': more
    // reference workers only slow the candidates' stages (a serve load test timed out with them).
    return 1;
  }
  std::size_t gpus = std::max<std::size_t>(1, options_.gpus.size());
  std::size_t jobs = static_cast<std::size_t>(std::max(1, options_.jobs));
  return std::clamp<std::size_t>((jobs + gpus - 1) / gpus, 1, 4);
}

std::size_t timing_lane_index(const std::string& task_key, std::size_t lanes) {
  if (lanes <= 1) {
    return 0;
  }
  std::uint64_t h = 14695981039346656037ULL;  // FNV-1a: the same lane for a task in every run
  for (unsigned char c : task_key) {
    h = (h ^ c) * 1099511628211ULL;
  }
  return static_cast<std::size_t>(h % lanes);
}

std::vector<std::size_t> timing_lane_indices(const std::vector<const suite::Task*>& tasks,
                                             std::size_t lanes) {
  std::vector<std::size_t> indices;
  for (const suite::Task* task : tasks) {
    std::size_t i = timing_lane_index(task->key, lanes);
    if (std::find(indices.begin(), indices.end(), i) == indices.end()) {
      indices.push_back(i);
    }
  }
  return indices;
}

std::vector<ReferenceService::Lane*> ReferenceService::all_lanes(int gpu, std::size_t* turn) {
  std::vector<Lane*> lanes{&lane(gpu)};
  std::lock_guard<std::mutex> lock(mutex_);
  auto& extra = extra_lanes_[gpu];
  while (extra.size() + 1 < max_output_workers()) {
    extra.push_back(std::make_unique<Lane>());
  }
  for (auto& e : extra) {
    lanes.push_back(e.get());
  }
  if (turn != nullptr) {
    *turn = next_lane_++;
  }
  return lanes;
}

ReferenceService::Lane& ReferenceService::timing_lane(const suite::Task& task, int gpu) {
  auto lanes = all_lanes(gpu, nullptr);
  return *lanes[timing_lane_index(task.key, lanes.size())];
}

std::unique_lock<std::mutex> ReferenceService::output_lane(int gpu, Lane*& chosen) {
  std::size_t turn = 0;
  std::vector<Lane*> lanes = all_lanes(gpu, &turn);
  for (auto it = lanes.rbegin(); it != lanes.rend(); ++it) {
    std::unique_lock<std::mutex> held((*it)->mutex, std::try_to_lock);
    if (held.owns_lock()) {
      chosen = *it;
      return held;
    }
  }
  chosen = lanes[turn % lanes.size()];
  return std::unique_lock<std::mutex>(chosen->mutex);
}

sandbox::Worker& ReferenceService::worker(Lane& l, int gpu) {
  if (!l.worker) {
    l.worker = pool_.start_worker("reference", gpu);
    l.handles.clear();
    const Json& dev = l.worker->ready_info().value("device", Json::object());
    l.device_name = fmt::format("{}:{}", dev.value("kind", options_.device), dev.value("name", "unknown"));
    std::lock_guard<std::mutex> lock(mutex_);
    devices_.emplace(gpu, dev);
  }
  return *l.worker;
}

Json ReferenceService::known_device(Lane& l, int gpu) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = devices_.find(gpu);
    if (it != devices_.end()) {
      return it->second;
    }
  }
  return worker(l, gpu).ready_info().value("device", Json::object());
}

void ReferenceService::start_timing_workers(int gpu,
                                            const std::vector<const suite::Task*>* only) {
  std::vector<Lane*> lanes = all_lanes(gpu, nullptr);
  if (only != nullptr) {
    std::vector<Lane*> wanted;
    for (std::size_t i : timing_lane_indices(*only, lanes.size())) {
      wanted.push_back(lanes[i]);
    }
    lanes = std::move(wanted);
  }
  std::vector<std::thread> starts;
  for (Lane* l : lanes) {
    starts.emplace_back([this, l, gpu] {
      std::lock_guard<std::mutex> lane_lock(l->mutex);
      try {
        worker(*l, gpu);
      } catch (const std::exception&) {
        // Left unstarted: the lane's first request starts it again and reports a failure.
      }
    });
  }
  for (auto& t : starts) {
    t.join();
  }
}

Json ReferenceService::device_info(int gpu) {
  Lane& l = lane(gpu);
  std::lock_guard<std::mutex> lock(l.mutex);
  return worker(l, gpu).ready_info().value("device", Json::object());
}

Result<sandbox::Frame> ReferenceService::call(Lane& l, int gpu, const sandbox::Frame& request,
                                              int timeout_s, const std::string& what) {
  auto& w = worker(l, gpu);
  auto reply = w.request(request, sandbox::Clock::now() + std::chrono::seconds(timeout_s));
  if (!reply.ok()) {
    std::string tail = w.log_tail(2000);
    l.worker.reset();  // killed; the next call starts a fresh reference worker
    return Error(ErrorKind::worker, "the reference worker {} while {}: {}{}",
                 reply.failure == sandbox::ReadFailure::timeout ? "timed out" : "died", what,
                 reply.error, tail.empty() ? "" : "\n" + tail);
  }
  return std::move(*reply.frame);
}

Result<int> ReferenceService::load(Lane& l, int gpu, const suite::Task& task) {
  worker(l, gpu);
  auto it = l.handles.find(task.key);
  if (it != l.handles.end()) {
    return it->second;
  }
  sandbox::Frame req{Json{{"op", "load"},
                          {"path", task.reference_path().string()},
                          {"filename", task.reference_path().string()},
                          {"entry_names", Json::array({task.entry})},
                          {"builders_path", task.reference_path().string()}},
                     {}};
  auto reply = call(l, gpu, req, options_.load_timeout_s, "loading " + task.key);
  if (!reply) {
    return reply.error();
  }
  const Json& h = reply->header;
  if (!h.value("ok", false)) {
    return Error(ErrorKind::suite, "{}: the reference does not load: {}", task.reference_path().string(),
                 describe_worker_error(h.value("error", Json::object())));
  }
  int handle = h.value("handle", 0);
  l.handles[task.key] = handle;
  return handle;
}

std::filesystem::path ReferenceService::cache_path(const suite::Task& task,
                                                   const suite::ResolvedCall& c,
                                                   const std::string& device_name) const {
  // Under the public rules an exact-reference task's outputs are the working-precision ones.
  const char* variant = public_rules() && task.exact_reference ? "|working" : "";
  std::string id = sha256_hex(fmt::format("v4|{}|{}|{}|{}|{}|{}{}", task.key, task.version, c.name,
                                          c.seed, device_name, torch_version_, variant));
  return options_.cache_dir / "reference" / id.substr(0, 2) / (id + ".kbxref");
}

std::shared_ptr<const CaseOutputs> ReferenceService::kept_outputs(const suite::Task& task, int gpu) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = outputs_.find(lane_key(task, gpu));
  return it == outputs_.end() ? nullptr : it->second;
}

void ReferenceService::forget(const suite::Task& task) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (int gpu : options_.gpus) {
    outputs_.erase(lane_key(task, gpu));
  }
}

Result<std::shared_ptr<const CaseOutputs>> ReferenceService::case_outputs(const suite::Task& task,
                                                                          int gpu) {
  if (auto kept = kept_outputs(task, gpu)) {
    return kept;
  }
  Lane* chosen = nullptr;
  auto lane_lock = output_lane(gpu, chosen);
  Lane& l = *chosen;
  if (auto kept = kept_outputs(task, gpu)) {  // another lane may have computed them meanwhile
    return kept;
  }
  worker(l, gpu);
  auto calls = suite::resolve_cases(task, options_.seed);
  auto outputs = std::make_shared<CaseOutputs>(calls.size());
  std::vector<suite::ResolvedCall> missing;
  for (const auto& c : calls) {
    if (!options_.cache_reference_outputs) {
      missing.push_back(c);
    } else if (auto cached = read_cached(cache_path(task, c, l.device_name))) {
      (*outputs)[c.index] = std::move(*cached);
    } else {
      missing.push_back(c);
    }
  }
  // One request per draw under `kbx suite check --seeds` (request_ranges), else one.
  for (auto [begin, end] : suite::request_ranges(task, missing.size())) {
    auto batch = suite::slice(missing, begin, end);
    auto computed = run_cases(l, gpu, task, batch, /*all_arguments=*/true,
                              options_.cases_timeout_s, "running the cases of " + task.key);
    if (!computed) {
      return computed.error();
    }
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (options_.cache_reference_outputs) {
        write_cached(cache_path(task, batch[i], l.device_name), computed.value()[i]);
      }
      (*outputs)[batch[i].index] = std::move(computed.value()[i]);
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  outputs_[lane_key(task, gpu)] = outputs;
  return std::shared_ptr<const CaseOutputs>(outputs);
}

Result<CaseOutputs> ReferenceService::fresh_outputs(const suite::Task& task, int gpu,
                                                    const std::vector<suite::ResolvedCall>& calls) {
  // A free reference worker, as for case outputs: perf rechecks of candidates in flight at once
  // then run side by side instead of queueing on the timing worker (session 35 on an H100: five
  // overlapping rechecks of activations took 0.7-2.2 s each, one after another, under shared
  // GPU holds that every timing run waits for).
  Lane* chosen = nullptr;
  auto lane_lock = output_lane(gpu, chosen);
  Lane& l = *chosen;
  return run_cases(l, gpu, task, calls, /*all_arguments=*/false, options_.perf_timeout_s,
                   "rechecking a workload of " + task.key, /*working_too=*/task.exact_reference);
}

Result<CaseOutputs> ReferenceService::run_cases(Lane& l, int gpu, const suite::Task& task,
                                                const std::vector<suite::ResolvedCall>& calls,
                                                bool all_arguments, int timeout_s,
                                                const std::string& what, bool working_too) {
  auto handle = load(l, gpu, task);
  if (!handle) {
    return handle.error();
  }
  Json cases = cases_json(task, calls, /*for_reference=*/true, all_arguments);
  if (public_rules()) {
    // The public harness compares with the reference computed at the task's own precision, with
    // its tolerance table and no error bounds: so does kbx under its rules.
    for (auto& c : cases) {
      c["exact"] = false;
      c["bound"] = false;
    }
    working_too = false;
  }
  if (working_too) {
    for (std::size_t i = 0; i < calls.size(); ++i) {
      Json again = cases[i];
      again["index"] = calls.size() + i;
      again["exact"] = false;
      again["bound"] = false;
      cases.push_back(std::move(again));
    }
  }
  const std::size_t expected_results = cases.size();
  sandbox::Frame req{Json{{"op", "run_cases"}, {"handle", *handle}, {"device", options_.device},
                          {"cases", std::move(cases)}},
                     {}};
  auto reply = call(l, gpu, req, timeout_s, what);
  if (!reply) {
    return reply.error();
  }
  auto results = decode_case_results(*reply);
  if (!results) {
    return results.error();
  }
  if (results->size() != expected_results) {
    return Error(ErrorKind::protocol, "the reference worker answered {} of {} cases of {}",
                 results->size(), expected_results, task.key);
  }
  CaseOutputs out(calls.size());
  for (std::size_t i = 0; i < calls.size(); ++i) {
    auto& r = results.value()[i];
    ReferenceCase& rc = out[i];
    if (!calls[i].raises.empty()) {
      if (!r.raised_one_of(calls[i].raises)) {
        return Error(ErrorKind::suite, "{}: case '{}' must raise one of {}, but the reference {}",
                     task.reference_path().string(), calls[i].name, Json(calls[i].raises).dump(),
                     r.status == CaseStatus::ok ? std::string("returned")
                                                : "raised " + describe_worker_error(r.error));
      }
      rc.raised = true;
    } else if (r.status != CaseStatus::ok) {
      return Error(ErrorKind::suite, "{}: the reference fails on case '{}': {}",
                   task.reference_path().string(), calls[i].name, describe_worker_error(r.error));
    } else {
      rc.outputs = std::move(r.outputs);
      rc.canonical = std::move(r.canonical);
      rc.magnitude = std::move(r.magnitude);
      if (working_too && results.value()[calls.size() + i].status == CaseStatus::ok) {
        rc.working = std::move(results.value()[calls.size() + i].outputs);
      }
    }
  }
  return out;
}

Result<std::vector<CaseResult>> ReferenceService::canonicalize(
    const suite::Task& task, int gpu, const std::vector<suite::ResolvedCall>& calls,
    const std::vector<const std::vector<OutputLeaf>*>& outputs) {
  Lane* chosen = nullptr;
  auto lane_lock = output_lane(gpu, chosen);
  Lane& l = *chosen;
  auto handle = load(l, gpu, task);
  if (!handle) {
    return handle.error();
  }
  sandbox::Frame req{Json{{"op", "canonicalize"}, {"handle", *handle}, {"device", options_.device}},
                     {}};
  Json cases = cases_json(task, calls, /*for_reference=*/true);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    cases[i]["exact"] = false;
    cases[i]["bound"] = false;
    cases[i]["outputs"] = sandbox::encode_leaves(*outputs[i], req.payload);
  }
  req.header["cases"] = std::move(cases);
  auto reply = call(l, gpu, req, options_.cases_timeout_s, "canonicalizing outputs of " + task.key);
  if (!reply) {
    return reply.error();
  }
  auto results = decode_canonical_results(*reply);
  if (results && results->size() != calls.size()) {
    return Error(ErrorKind::protocol, "the reference worker canonicalized {} of {} cases of {}",
                 results->size(), calls.size(), task.key);
  }
  return results;
}

std::string first_timing_failure(const std::vector<store::TimingRecord>& timings) {
  for (const auto& t : timings) {
    if (t.status != "ok") {
      return fmt::format("workload {}: {}", t.workload, t.error);
    }
  }
  return "";
}

namespace {
bool holds_host_share(const store::TimingRecord& t) {
  return t.status == "ok" && t.kernel_busy_ms && !t.samples_ms.empty() &&
         stats::holds_host_share(stats::summarize(t.samples_ms).median, *t.kernel_busy_ms);
}
}  // namespace

bool any_host_share(const std::vector<store::TimingRecord>& timings) {
  return std::any_of(timings.begin(), timings.end(), holds_host_share);
}

std::vector<int> host_share_workloads(const std::vector<store::TimingRecord>& timings) {
  std::vector<int> out;
  for (const auto& t : timings) {
    if (holds_host_share(t)) {
      out.push_back(t.workload);
    }
  }
  return out;
}

Result<std::vector<store::TimingRecord>> ReferenceService::timings(const suite::Task& task, int gpu,
                                                                   bool& fresh,
                                                                   const std::string& baseline) {
  fresh = false;
  Lane& l = timing_lane(task, gpu);
  std::lock_guard<std::mutex> lane_lock(l.mutex);
  const std::string key = timing_key(task, gpu, baseline);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = timings_.find(key);
    if (it != timings_.end()) {
      return it->second;
    }
    auto failed = timing_errors_.find(key);
    if (failed != timing_errors_.end()) {
      return failed->second;
    }
  }
  const bool use_cache = options_.reference_timing == "cached";
  std::filesystem::path cached_at;
  std::optional<std::vector<store::TimingRecord>> from_cache;
  if (use_cache) {
    cached_at = timing_cache_path(l, gpu, task, baseline);
    from_cache = read_cached_timings(cached_at, task);
  }
  Result<std::vector<store::TimingRecord>> result =
      from_cache ? Result<std::vector<store::TimingRecord>>(std::move(*from_cache))
                 : take_timings(l, task, gpu, use_cache ? &cached_at : nullptr, baseline);
  if (!from_cache && result && baseline == baseline_eager && any_host_share(*result)) {
    // Samples that hold the host's share, taken while other workers were starting: taken again
    // with the starts held off, as every candidate of the task will be (evaluate.cpp); this
    // timing is the one kept, and cached (take_timings caches only a timing whose workloads
    // all timed, so the cache and this run keep the same one).
    auto quiet = pool_.quiet_starts();
    auto again = take_timings(l, task, gpu, use_cache ? &cached_at : nullptr, baseline);
    // A failure now keeps the first timing rather than losing the task's perf.
    if (again && first_timing_failure(*again).empty()) {
      result = std::move(again);
      std::lock_guard<std::mutex> lock(mutex_);
      timings_taken_quiet_ += 1;
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (from_cache) {
    timings_from_cache_ += 1;
  }
  if (!result) {
    timing_errors_.emplace(key, result.error());
    return result.error();
  }
  fresh = true;
  timings_[key] = result.value();
  return result;
}

Result<std::vector<store::TimingRecord>> ReferenceService::timings_now(
    const suite::Task& task, int gpu, const std::vector<int>& only) {
  Lane& l = timing_lane(task, gpu);
  std::lock_guard<std::mutex> lane_lock(l.mutex);
  return take_timings(l, task, gpu, nullptr, baseline_eager, only);
}

Result<std::vector<store::TimingRecord>> ReferenceService::cached_timings(const suite::Task& task,
                                                                          int gpu) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = timings_.find(lane_key(task, gpu));
  if (it != timings_.end()) {
    return it->second;
  }
  auto failed = timing_errors_.find(lane_key(task, gpu));
  if (failed != timing_errors_.end()) {
    return failed->second;
  }
  return Error(ErrorKind::internal,
               "the reference of {} was not timed before the candidates started (a kbx bug)",
               task.key);
}

std::filesystem::path ReferenceService::timing_cache_path(Lane& l, int gpu, const suite::Task& task,
                                                         const std::string& baseline) {
  // Everything the reference's time depends on: the GPU itself (name, UUID, driver, CUDA),
  // torch, kbx (the timing method), the task's version (its workloads), the seed and settings;
  // for a baseline other than eager, the baseline, its mode and Triton (inductor's kernels are
  // Triton's). Eager's key is as it always was, so its cached timings stay valid.
  // Any reference worker's description of the GPU: a cached run need not start this lane's.
  Json device = known_device(l, gpu);
  std::string variant = baseline == baseline_eager
                            ? ""
                            : fmt::format("|{}:{}|triton {}", baseline, compile_baseline_mode,
                                          triton_version_);
  std::string id = sha256_hex(fmt::format("timing-v1|{}|{}|{}|{}|{}|{}|{}|{}{}", task.key,
                                          task.version, device.dump(), torch_version_,
                                          kbx::version(), kbx::git_commit(), options_.seed,
                                          options_.timing.to_json().dump(), variant));
  return options_.cache_dir / "timings" / id.substr(0, 2) / (id + ".json");
}

std::optional<std::vector<store::TimingRecord>> ReferenceService::read_cached_timings(
    const std::filesystem::path& path, const suite::Task& task) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return std::nullopt;
  }
  return parse_cached_timings(read_file(path), task.workloads.size());
}

sandbox::Frame ReferenceService::time_request(int handle, const suite::Task& task,
                                              const std::string& baseline,
                                              const std::vector<int>& only) const {
  auto workloads = suite::resolve_workloads(task, options_.seed);
  if (!only.empty()) {
    std::erase_if(workloads, [&](const suite::ResolvedCall& w) {
      return std::find(only.begin(), only.end(), w.index) == only.end();
    });
  }
  sandbox::Frame req{Json{{"op", "time"},
                          {"handle", handle},
                          {"device", options_.device},
                          {"workloads", calls_json(workloads)},
                          {"settings", options_.timing.to_json()}},
                     {}};
  if (baseline != baseline_eager) {
    req.header["baseline"] = Json{{"name", baseline},
                                  {"mode", compile_baseline_mode},
                                  {"cache_dir", (options_.cache_dir / "torch-compile").string()}};
  }
  return req;
}

Result<std::vector<store::TimingRecord>> ReferenceService::take_timings(
    Lane& l, const suite::Task& task, int gpu, const std::filesystem::path* cache_to,
    const std::string& baseline, const std::vector<int>& only) {
  auto handle = load(l, gpu, task);
  if (!handle) {
    return handle.error();
  }
  // torch.compile compiles each workload before its warm-up: allow a minute for each on top.
  const bool eager = baseline == baseline_eager;
  int timeout_s = options_.perf_timeout_s +
                  (eager ? 0 : 60 * static_cast<int>(task.workloads.size()));
  // --timing-cpus: the reference worker on the CPUs every candidate is timed on.
  sandbox::PinnedCpus pinned(worker(l, gpu).pid(), options_.timing_cpus);
  auto reply = call(l, gpu, time_request(*handle, task, baseline, only), timeout_s,
                    eager ? "timing " + task.key
                          : fmt::format("timing the {} baseline of {}", baseline, task.key));
  if (!reply) {
    return reply.error();
  }
  auto timings = decode_timings(*reply);
  if (timings) {
    bool all_ok = true;
    for (auto& t : timings.value()) {
      all_ok = all_ok && t.status == "ok";
      apply_stream_check(t);  // the same rule as for candidates
    }
    if (cache_to != nullptr && all_ok) {
      std::filesystem::create_directories(cache_to->parent_path());
      write_file_atomic(*cache_to, cached_timings_text(task, reply->header));
    }
    if (options_.timing.do_bench && eager) {
      record_timer_check(task, gpu, timings.value());
    }
  }
  return timings;
}

void ReferenceService::record_timer_check(const suite::Task& task, int gpu,
                                          const std::vector<store::TimingRecord>& timings) {
  std::string lines;
  for (const auto& t : timings) {
    if (t.status != "ok" || !t.do_bench_ms) {
      continue;
    }
    lines += Json{{"task", task.key},
                  {"workload", t.workload},
                  {"gpu", gpu},
                  {"kbx_ms", stats::summarize(t.samples_ms).median},
                  {"do_bench_ms", *t.do_bench_ms},
                  {"samples", t.samples_ms.size()}}
                 .dump() +
             "\n";
  }
  std::lock_guard<std::mutex> lock(mutex_);
  std::ofstream out(options_.out_dir / "timer-check.jsonl", std::ios::app);
  out << lines;
}

}  // namespace kbx::run

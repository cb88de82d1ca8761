// libFuzzer target: bytes from a worker that ran hostile candidate code. They are cut into frames
// (sandbox::FrameReader), each frame is decoded as every reply kind (cases, canonical, timings,
// output leaves and tensors) and judged, and the frames then answer a whole evaluation
// (run::evaluate_candidate) in place of the candidate's worker.
//
// Input: one byte of settings, then the worker's byte stream. Settings: bit 0 judges on "cuda"
// with perf on (the timing stage runs), bit 1 uses --rules kernelbenchx, bits 2-7 are the size
// of the chunks the stream arrives in (1 + value * 7 bytes).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string_view>
#include <thread>
#include <vector>

#include "kbx/compare/comparator.h"
#include "kbx/run/evaluate.h"
#include "kbx/run/judge.h"
#include "kbx/sandbox/protocol.h"
#include "kbx/suite/suite.h"

namespace {

using kbx::Json;
using kbx::OutputLeaf;
namespace run = kbx::run;
namespace sandbox = kbx::sandbox;
namespace suite = kbx::suite;

constexpr std::size_t max_frames = 16;

/// Two cases (plus the recheck) and two perf workloads; argument 0 is written in place.
constexpr std::string_view task_json = R"json({
  "format": 1, "key": "Math/abs.py", "entry": "abs", "category": "Math",
  "signature": "abs(input, out)", "description": "absolute value", "dtypes": ["float32"],
  "precision": {"tolerance": {"float32": {"atol": 1e-5, "rtol": 1e-5}}},
  "mutated_args": [1],
  "cases": [
    {"name": "small", "args": [{"tensor": {"shape": [2, 3], "dtype": "float32", "init": "randn"}},
                               {"tensor": {"shape": [2, 3], "dtype": "float32", "init": "zeros"}}]},
    {"name": "raises", "args": [{"tensor": {"shape": [0], "dtype": "float32", "init": "randn"}}],
     "raises": ["ValueError"]}
  ],
  "perf": {"bytes": "8 * N", "flops": "N",
           "args": [{"tensor": {"shape": ["N"], "dtype": "float32", "init": "randn"}}],
           "workloads": [{"N": 1024}, {"N": 4096}]}
})json";

const suite::Task& fuzz_task() {
  static const suite::Task task = [] {
    auto t = suite::parse_task_json(task_json, "suites/fuzz/Math/abs", "Math/abs.py");
    if (!t) {
      __builtin_trap();
    }
    return std::move(t).value();
  }();
  return task;
}

OutputLeaf float_leaf(const char* path, std::vector<std::int64_t> shape) {
  OutputLeaf leaf;
  leaf.path = path;
  leaf.kind = kbx::LeafKind::tensor;
  leaf.tensor.dtype = kbx::DType::float32;
  leaf.tensor.shape = std::move(shape);
  leaf.tensor.device = "cpu";
  std::int64_t n = leaf.tensor.numel();
  std::vector<float> values(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    values[static_cast<std::size_t>(i)] = 0.5F * static_cast<float>(i) - 1.0F;
  }
  leaf.tensor.data.resize(values.size() * sizeof(float));
  std::memcpy(leaf.tensor.data.data(), values.data(), leaf.tensor.data.size());
  return leaf;
}

/// The reference's outputs: a 2x3 tensor and the mutated argument for returning cases.
run::ReferenceCase reference_case(bool raises) {
  run::ReferenceCase rc;
  rc.raised = raises;
  if (!raises) {
    rc.outputs = {float_leaf("out", {2, 3}), float_leaf("arg0", {2, 3}),
                  float_leaf("arg1", {2, 3})};
  }
  return rc;
}

class FuzzReferences final : public run::ReferenceSide {
 public:
  kbx::Result<std::shared_ptr<const run::CaseOutputs>> case_outputs(const suite::Task&) override {
    return std::make_shared<const run::CaseOutputs>(
        run::CaseOutputs{reference_case(false), reference_case(true), reference_case(false)});
  }

  kbx::Result<std::vector<run::CaseResult>> canonicalize(
      const suite::Task&, const std::vector<suite::ResolvedCall>&,
      const std::vector<const std::vector<OutputLeaf>*>&) override {
    return kbx::Error(kbx::ErrorKind::internal, "the fuzz task has no canonical form");
  }

  kbx::Result<std::vector<kbx::store::TimingRecord>> timings(const suite::Task& task,
                                                             bool& fresh) override {
    fresh = true;
    std::vector<kbx::store::TimingRecord> out;
    for (const auto& w : task.workloads) {
      kbx::store::TimingRecord t;
      t.workload = w.index;
      t.status = "ok";
      t.samples_ms = {0.010, 0.011, 0.012};
      t.bracket_ms = {0.02, 0.02, 0.02};
      out.push_back(t);
    }
    return out;
  }

  kbx::Result<std::vector<kbx::store::TimingRecord>> timings_now(
      const suite::Task& task, const std::vector<int>& only) override {
    bool fresh = false;
    auto all = timings(task, fresh);
    if (!all || only.empty()) {
      return all;
    }
    std::vector<kbx::store::TimingRecord> out;
    for (auto& t : all.value()) {
      if (std::find(only.begin(), only.end(), t.workload) != only.end()) {
        out.push_back(std::move(t));
      }
    }
    return out;
  }

  kbx::Result<run::CaseOutputs> fresh_outputs(
      const suite::Task&, const std::vector<suite::ResolvedCall>& calls) override {
    run::CaseOutputs out;
    for (std::size_t i = 0; i < calls.size(); ++i) {
      run::ReferenceCase rc;
      rc.outputs = {float_leaf("out", {1024})};
      out.push_back(rc);
    }
    return out;
  }
};

/// The candidate's worker: answers each request with the next decoded frame (or the stream's
/// protocol error), then as a closed socket.
class ScriptedChannel final : public run::CandidateChannel {
 public:
  std::deque<sandbox::Reply> script;

  sandbox::Reply request(const sandbox::Frame& frame, sandbox::Clock::time_point) override {
    if (frame.op() == "time") {
      // The judge refuses samples that add up to more than the request took by its clock: a
      // millisecond lets the seeds' samples through to the stream check and the perf recheck.
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (script.empty()) {
      return sandbox::Reply{std::nullopt, sandbox::ReadFailure::closed, ""};
    }
    sandbox::Reply r = std::move(script.front());
    script.pop_front();
    return r;
  }

  void kill() override {}

  std::optional<sandbox::ExitStatus> exit_status(std::chrono::milliseconds) override {
    return std::nullopt;
  }

  std::string log_tail(std::size_t) override { return {}; }
};

sandbox::Frame with_op(const sandbox::Frame& f, const char* op) {
  sandbox::Frame g = f;
  if (g.header.is_object()) {
    g.header["op"] = op;
  }
  return g;
}

/// Every decoder and reply rule on one frame, whatever its op says.
void decode_every_way(const sandbox::Frame& frame, const kbx::compare::Contract& contract) {
  const auto& task = fuzz_task();
  auto calls = suite::resolve_cases(task, 0);
  auto expected =
      run::CaseOutputs{reference_case(false), reference_case(true), reference_case(false)};
  if (auto results = run::decode_case_results(with_op(frame, "cases"))) {
    for (const auto& r : results.value()) {
      (void)kbx::compare::compare_outputs(r.outputs, r.outputs, contract, &r.magnitude);
      (void)kbx::compare::compare_outputs(expected[0].outputs, r.outputs, contract);
      (void)kbx::compare::compare_structure(expected[0].outputs, r.outputs);
      (void)r.error_types();
      (void)run::describe_worker_error(r.error);
    }
    if (!run::find_case_reply_violation(calls, results.value())) {
      run::JudgeRules rules{"kbx", true, false, task.mutated_args, task.mutated_kwargs};
      auto judgement = run::judge_case_results(calls, results.value(), expected, contract, rules);
      (void)run::decide_cases(judgement, calls, results.value(), rules);
    }
  }
  (void)run::decode_canonical_results(with_op(frame, "canonical"));
  if (auto timings = run::decode_timings(with_op(frame, "timings"))) {
    if (!run::find_timing_reply_violation(task.workloads.size(), timings.value())) {
      for (auto& t : timings.value()) {
        (void)run::apply_stream_check(t);
      }
    }
  }
  if (frame.header.is_object() && frame.header.contains("outputs")) {
    (void)sandbox::decode_leaves(frame.header["outputs"], frame.payload);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool verbose = std::getenv("KBX_FUZZ_VERBOSE") != nullptr;
  if (size == 0) {
    return 0;
  }
  const std::uint8_t settings = data[0];
  const std::size_t chunk = 1 + static_cast<std::size_t>(settings >> 2) * 7;
  ++data;
  --size;

  ScriptedChannel channel;
  sandbox::FrameReader reader;
  bool broken = false;
  for (std::size_t at = 0; at < size && !broken && channel.script.size() < max_frames;
       at += chunk) {
    reader.feed(data + at, std::min(chunk, size - at));
    while (auto next = reader.next()) {
      if (!next->ok()) {
        channel.script.push_back(
            {std::nullopt, sandbox::ReadFailure::protocol, next->error().what()});
        broken = true;
        break;
      }
      channel.script.push_back({std::move(*next).value(), sandbox::ReadFailure::timeout, ""});
    }
  }

  auto contract = kbx::compare::parse_contract(fuzz_task().precision);
  if (!contract) {
    __builtin_trap();
  }
  for (const auto& reply : channel.script) {
    if (reply.ok()) {
      decode_every_way(*reply.frame, contract.value());
    }
  }

  run::RunOptions options;
  options.device = (settings & 1) != 0 ? "cuda" : "cpu";
  options.perf = (settings & 1) != 0;
  options.rules = (settings & 2) != 0 ? "kernelbenchx" : "kbx";
  options.require_triton = (settings & 2) == 0;
  FuzzReferences references;
  sandbox::GpuLock lock;
  run::JudgeContext ctx{options, references, lock, 1, "fuzz", nullptr};
  kbx::submit::Submission submission{"Math/abs.py", "def abs(x, out): ...", "fuzz", "line 1", 0};
  auto result =
      run::evaluate_candidate(ctx, channel, submission, "fuzz-id", fuzz_task(), contract.value());
  if (result.record.outcome.empty()) {
    __builtin_trap();  // every evaluation ends in an outcome
  }
  if (verbose) {  // KBX_FUZZ_VERBOSE=1: what each input came to, to check that seeds reach deep
    std::fprintf(stderr, "outcome %s (%s), %zu cases, %zu timings: %s\n",
                 result.record.outcome.c_str(), result.record.reason.c_str(),
                 result.record.cases.size(), result.record.timings.size(),
                 result.record.detail.substr(0, 160).c_str());
  }
  return 0;
}

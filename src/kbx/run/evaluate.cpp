// evaluate(): the per-submission pipeline and its outcome rules (docs/architecture.md, "Outcomes").
#include "kbx/run/evaluate.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iterator>

#include "kbx/compare/comparator.h"
#include "kbx/run/replies.h"

namespace kbx::run {
namespace {

using sandbox::Clock;
using sandbox::ReadFailure;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// State of one evaluation as it moves through the stages.
struct Evaluation {
  const EvalContext& ctx;
  const submit::Submission& submission;
  const suite::Task& task;
  const compare::Contract& contract;
  store::EvaluationRecord rec;
  std::unique_ptr<sandbox::Worker> worker;
  std::optional<std::vector<store::TimingRecord>> fresh_reference_timings;
  int handle = 0;

  void finish(std::string outcome, std::string reason, std::string detail) {
    rec.outcome = std::move(outcome);
    rec.reason = std::move(reason);
    rec.detail = std::move(detail);
  }

  /// A request that got no reply: the worker hung, died or broke the protocol.
  void fail_no_reply(const sandbox::Reply& reply, const std::string& stage, int timeout_s) {
    if (reply.failure == ReadFailure::timeout) {
      finish("timeout", stage + "_timeout",
             fmt::format("the {} stage did not finish within {} s; the worker was killed", stage,
                         timeout_s));
      worker->kill();
      return;
    }
    if (reply.failure == ReadFailure::cancelled) {
      finish("cancelled", "interrupted", "kbx was interrupted; this submission is redone on resume");
      return;
    }
    if (reply.failure == ReadFailure::protocol) {
      finish("worker_lost", "protocol_error",
             fmt::format("the worker broke the protocol during the {} stage: {}", stage, reply.error));
      return;
    }
    auto status = ctx.zygote.exit_status(worker->pid(), std::chrono::milliseconds(3000));
    if (status && status->signal) {
      finish("crashed", sandbox::signal_name(*status->signal),
             fmt::format("the candidate's process died from {} during the {} stage",
                         sandbox::signal_name(*status->signal), stage));
    } else if (status && status->exit_code) {
      finish("crashed", fmt::format("exit_{}", *status->exit_code),
             fmt::format("the candidate's process exited with code {} during the {} stage",
                         *status->exit_code, stage));
    } else {
      finish("worker_lost", "no_reply",
             fmt::format("the worker vanished during the {} stage", stage));
    }
  }

  bool load() {
    auto start = Clock::now();
    sandbox::Frame req{Json{{"op", "load"},
                            {"code", submission.code},
                            {"filename", task.key},
                            {"entry_names", task.entry_names()},
                            {"builders_path", task.reference_path().string()}},
                       {}};
    int timeout = ctx.options.load_timeout_s;
    auto reply = worker->request(req, Clock::now() + std::chrono::seconds(timeout));
    rec.time_load_ms = ms_since(start);
    if (!reply.ok()) {
      fail_no_reply(reply, "load", timeout);
      return false;
    }
    const Json& h = reply.frame->header;
    if (reply.frame->op() != "loaded") {
      finish("worker_lost", "protocol_error",
             fmt::format("the worker refused the load request: {}",
                         describe_worker_error(h.value("error", Json::object()))));
      return false;
    }
    if (!h.value("ok", false)) {
      const Json& err = h.value("error", Json::object());
      std::string kind = err.value("kind", "import_error");
      if (kind == "input_error" || kind == "gpu_fault") {
        finish(kind == "gpu_fault" ? "crashed" : "skipped", kind, describe_worker_error(err));
        return false;
      }
      std::string detail = kind == "no_entry"
                               ? fmt::format("the module defines none of {}; define `{}` with the "
                                             "signature {}",
                                             Json(task.entry_names()).dump(), task.entry,
                                             task.signature)
                               : describe_worker_error(err);
      finish("compile_error", kind, detail);
      return false;
    }
    handle = h.value("handle", 0);
    return true;
  }

  /// Maps the first failing case's worker error to an outcome.
  void fail_case(const CaseResult& r, const std::string& case_name) {
    std::string kind = r.error.value("kind", "runtime_error");
    std::string what = fmt::format("case '{}': {}", case_name, describe_worker_error(r.error));
    if (kind == "triton_compile_error") {
      finish("compile_error", kind, what);
    } else if (kind == "gpu_fault") {
      finish("crashed", kind, what);
    } else if (kind == "out_of_memory") {
      finish("runtime_error", kind, what);
    } else if (kind == "input_error") {
      finish("skipped", kind, what + " (a task-data problem, not the candidate's)");
    } else {
      finish("runtime_error", r.error.value("type", kind), what);
    }
  }

  bool run_cases(const CaseOutputs& expected) {
    auto calls = suite::resolve_cases(task, ctx.options.seed);
    sandbox::Frame req{Json{{"op", "run_cases"}, {"handle", handle}, {"device", ctx.options.device},
                            {"cases", cases_json(task, calls, /*exact=*/false)}},
                       {}};
    int timeout = ctx.options.cases_timeout_s;
    sandbox::Reply reply;
    {
      auto waiting = Clock::now();
      sandbox::SharedGpuHold hold(ctx.gpu_lock);
      rec.time_queue_ms += ms_since(waiting);
      auto start = Clock::now();
      reply = worker->request(req, Clock::now() + std::chrono::seconds(timeout));
      rec.time_cases_ms = ms_since(start);
    }
    if (!reply.ok()) {
      fail_no_reply(reply, "cases", timeout);
      return false;
    }
    auto results = decode_case_results(*reply.frame);
    if (!results || results->size() != calls.size()) {
      finish("worker_lost", "protocol_error",
             results ? "the worker answered for the wrong number of cases" : results.error().what());
      return false;
    }
    for (std::size_t i = 0; i < results->size(); ++i) {
      if ((*results)[i].index != static_cast<int>(i)) {
        finish("worker_lost", "protocol_error",
               fmt::format("the worker answered case {} in position {}", (*results)[i].index, i));
        return false;
      }
    }
    return judge_cases(calls, results.value(), expected);
  }

  /// The leaves of the return value alone: what --rules kernelbenchx compares.
  static std::vector<OutputLeaf> return_leaves(const std::vector<OutputLeaf>& leaves) {
    std::vector<OutputLeaf> out;
    std::copy_if(leaves.begin(), leaves.end(), std::back_inserter(out), [](const OutputLeaf& l) {
      return l.path == "out" || l.path.starts_with("out[");
    });
    return out;
  }

  static void record_verdict(store::CaseRecord& c, const compare::Verdict& v) {
    c.status = v.ok ? "ok" : "mismatch";
    c.reason = v.ok ? "" : std::string(compare::to_string(v.reason));
    c.detail = v.detail;
    c.path = v.path;
    c.err_abs_max = v.err_abs_max;
    c.err_rel_max = v.err_rel_max;
    c.mismatch_count = v.mismatch_count;
    c.first_mismatch_index = v.first_mismatch_index;
  }

  /// A case that must raise: passes when the call raised one of the named types.
  static void judge_expected_error(store::CaseRecord& c, const suite::ResolvedCall& call,
                                   const CaseResult& r) {
    if (r.raised_one_of(call.raises)) {
      c.status = "ok";
      c.detail = fmt::format("raised {} as required", r.error.value("type", "an error"));
      return;
    }
    c.status = "mismatch";
    c.reason = std::string(compare::to_string(compare::FailReason::expected_error));
    c.detail = fmt::format("the call must raise one of {}, but it {}", Json(call.raises).dump(),
                           r.status == "ok" ? std::string("returned")
                                            : "raised " + describe_worker_error(r.error));
  }

  /// Judges the outputs of cases awaiting a canonical form, through the reference worker.
  bool judge_canonical(const std::vector<suite::ResolvedCall>& calls,
                       const std::vector<CaseResult>& results, const CaseOutputs& expected,
                       const std::vector<std::size_t>& pending) {
    if (pending.empty()) {
      return true;
    }
    std::vector<suite::ResolvedCall> subset;
    std::vector<const std::vector<OutputLeaf>*> outputs;
    for (std::size_t i : pending) {
      subset.push_back(calls[i]);
      outputs.push_back(&results[i].outputs);
    }
    Result<std::vector<CaseResult>> forms = Error(ErrorKind::worker, "not run");
    {
      auto waiting = Clock::now();
      sandbox::SharedGpuHold hold(ctx.gpu_lock);
      rec.time_queue_ms += ms_since(waiting);
      forms = ctx.references.canonicalize(task, ctx.gpu, subset, outputs);
    }
    if (!forms) {
      finish("skipped", "reference_error",
             fmt::format("canonical forms could not be computed: {}", forms.error().what()));
      return false;
    }
    for (std::size_t k = 0; k < pending.size(); ++k) {
      const CaseResult& f = forms.value()[k];
      store::CaseRecord& c = rec.cases[pending[k]];
      if (f.status != "ok") {
        c.status = "mismatch";
        c.reason = std::string(compare::to_string(compare::FailReason::canonical_mismatch));
        c.detail = "the task's canonical check rejected the output: " + describe_worker_error(f.error);
        continue;
      }
      record_verdict(c, compare::compare_outputs(expected[pending[k]].canonical, f.canonical,
                                                 contract));
    }
    return true;
  }

  bool judge_cases(const std::vector<suite::ResolvedCall>& calls,
                   const std::vector<CaseResult>& results, const CaseOutputs& expected) {
    auto start = Clock::now();
    const CaseResult* first_error = nullptr;
    std::vector<std::size_t> pending_canonical;
    for (std::size_t i = 0; i < results.size(); ++i) {
      const auto& r = results[i];
      store::CaseRecord c;
      c.index = static_cast<int>(i);
      c.name = calls[i].name;
      c.time_ms = r.time_ms;
      c.status = r.status;
      rec.triton_launches += r.triton_launches;
      const bool fatal_kind = r.status == "error" && (r.error.value("kind", "") == "gpu_fault" ||
                                                      r.error.value("kind", "") == "input_error");
      if (!calls[i].raises.empty() && r.status != "not_run" && !fatal_kind) {
        judge_expected_error(c, calls[i], r);
      } else if (r.status == "error") {
        c.reason = r.error.value("kind", "runtime_error");
        c.detail = describe_worker_error(r.error);
        first_error = first_error != nullptr ? first_error : &r;
      } else if (r.status == "ok" && !task.canonical.empty()) {
        auto v = compare::compare_structure(expected[i].outputs, r.outputs);
        record_verdict(c, v);
        if (v.ok) {
          pending_canonical.push_back(i);
        }
      } else if (r.status == "ok" && ctx.options.rules == "kernelbenchx") {
        record_verdict(c, compare::compare_outputs(return_leaves(expected[i].outputs),
                                                   return_leaves(r.outputs), contract));
      } else if (r.status == "ok") {
        record_verdict(c, compare::compare_outputs(expected[i].outputs, r.outputs, contract,
                                                   &expected[i].magnitude));
      }
      rec.cases.push_back(std::move(c));
    }
    if (first_error != nullptr) {
      rec.time_compare_ms = ms_since(start);
      rec.triton_ok = rec.triton_launches > 0;
      fail_case(*first_error, calls[static_cast<std::size_t>(first_error->index)].name);
      return false;
    }
    if (!judge_canonical(calls, results, expected, pending_canonical)) {
      return false;
    }
    rec.time_compare_ms = ms_since(start);
    rec.triton_ok = rec.triton_launches > 0;
    std::optional<store::CaseRecord> first_mismatch;
    for (const auto& c : rec.cases) {
      if (c.status == "mismatch" && !first_mismatch) {
        first_mismatch = c;
      }
    }
    rec.call_ok = true;
    if (first_mismatch) {
      int failed = 0;
      for (const auto& c : rec.cases) {
        failed += c.status == "mismatch" ? 1 : 0;
      }
      finish("incorrect", first_mismatch->reason,
             fmt::format("{} of {} cases differ from the reference; first, case '{}': {}", failed,
                         rec.cases.size(), first_mismatch->name, first_mismatch->detail));
      return false;
    }
    if (!rec.triton_ok && ctx.options.require_triton) {
      finish("not_triton", "no_triton_launch",
             "every output matches, but no Triton kernel was launched while the cases ran; "
             "kbx measures Triton kernels (pass --no-require-triton to run plain PyTorch)");
      return false;
    }
    finish("ok", "", fmt::format("all {} cases match the reference", rec.cases.size()));
    rec.exe_ok = true;
    return true;
  }

  void run_perf() {
    if (!ctx.options.perf) {
      rec.perf_note = "perf skipped: --no-perf";
      return;
    }
    if (ctx.options.device != "cuda") {
      rec.perf_note = "perf skipped: --device cpu runs Triton's interpreter, which is not timed";
      return;
    }
    if (task.workloads.empty()) {
      rec.perf_note = "perf skipped: the task has no perf workloads";
      return;
    }
    auto waiting = Clock::now();
    sandbox::ExclusiveGpuHold hold(ctx.gpu_lock);
    rec.time_queue_ms += ms_since(waiting);
    auto start = Clock::now();
    bool fresh = false;
    auto ref = ctx.references.timings(task, ctx.gpu, fresh);
    if (!ref) {
      rec.perf_note = fmt::format("perf failed: reference timing: {}", ref.error().what());
      rec.time_perf_ms = ms_since(start);
      return;
    }
    if (fresh) {
      fresh_reference_timings = ref.value();
    }
    rec.reference_session_id = ctx.session_id;
    time_candidate(ref.value());
    rec.time_perf_ms = ms_since(start);
  }

  void time_candidate(const std::vector<store::TimingRecord>& ref) {
    Json workloads = calls_json(suite::resolve_workloads(task, ctx.options.seed));
    sandbox::Frame req{Json{{"op", "time"}, {"handle", handle}, {"device", ctx.options.device},
                            {"workloads", workloads}, {"settings", ctx.options.timing.to_json()}},
                       {}};
    int timeout = ctx.options.perf_timeout_s;
    auto reply = worker->request(req, Clock::now() + std::chrono::seconds(timeout));
    if (reply.failure == ReadFailure::cancelled) {
      finish("cancelled", "interrupted", "kbx was interrupted; this submission is redone on resume");
      return;
    }
    if (!reply.ok()) {
      rec.perf_note = reply.failure == ReadFailure::timeout
                          ? fmt::format("perf failed: timing did not finish within {} s", timeout)
                          : "perf failed: the worker died while timing";
      return;
    }
    auto timings = decode_timings(*reply.frame);
    if (!timings) {
      rec.perf_note = fmt::format("perf failed: {}", timings.error().what());
      return;
    }
    rec.timings = timings.value();
    for (std::size_t i = 0; i < rec.timings.size(); ++i) {
      const auto& t = rec.timings[i];
      const auto* r = i < ref.size() ? &ref[i] : nullptr;
      if (t.status != "ok" || r == nullptr || r->status != "ok") {
        rec.perf_note = fmt::format("perf failed on workload {}: {}", i,
                                    t.status != "ok" ? t.error
                                    : r == nullptr  ? std::string("no reference timing")
                                                    : "reference: " + r->error);
        return;
      }
    }
    rec.perf_ok = rec.timings.size() == task.workloads.size();
  }
};

}  // namespace

EvaluationResult evaluate(const EvalContext& ctx, const submit::Submission& submission,
                          const std::string& submission_id, const suite::Task& task,
                          const compare::Contract& contract) {
  auto start = Clock::now();
  Evaluation ev{ctx, submission, task, contract, {}, nullptr, std::nullopt, 0};
  ev.rec.submission_id = submission_id;
  ev.rec.session_id = ctx.session_id;
  ev.rec.device = ctx.device_label;
  ev.rec.task_version = task.version;
  ev.rec.rules = ctx.options.rules;

  std::shared_ptr<const CaseOutputs> expected;
  {
    auto waiting = Clock::now();
    sandbox::SharedGpuHold hold(ctx.gpu_lock);
    ev.rec.time_queue_ms += ms_since(waiting);
    auto outputs = ctx.references.case_outputs(task, ctx.gpu);
    if (!outputs) {
      ev.finish("skipped", "reference_error", outputs.error().what());
      ev.rec.time_total_ms = ms_since(start);
      return {std::move(ev.rec), std::nullopt};
    }
    expected = outputs.value();
  }
  auto queued = Clock::now();
  ev.worker = ctx.pool.acquire(ctx.gpu);
  ev.rec.time_queue_ms += ms_since(queued);
  try {
    if (ev.load() && ev.run_cases(*expected)) {
      ev.run_perf();
    }
  } catch (const Json::exception& e) {
    // A reply with the right op but ill-typed fields: the worker (or code in it) broke the protocol.
    ev.finish("worker_lost", "protocol_error", fmt::format("malformed worker reply: {}", e.what()));
    ev.rec.call_ok = ev.rec.exe_ok = ev.rec.perf_ok = false;
  }
  if (ev.rec.outcome != "ok") {
    ev.rec.log_tail = ev.worker->log_tail(2000);
  }
  ev.worker->kill();
  std::error_code ec;
  std::filesystem::remove(ev.worker->spec().log_path, ec);
  ev.rec.time_total_ms = ms_since(start);
  return {std::move(ev.rec), std::move(ev.fresh_reference_timings)};
}

}  // namespace kbx::run

// evaluate(): the per-submission pipeline (load -> cases -> compare -> perf) over an untrusted
// candidate channel; the rules live in judge.cpp (docs/architecture.md, "Outcomes").
#include "kbx/run/evaluate.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <future>
#include <iterator>
#include <limits>
#include <map>

#include "kbx/common/files.h"
#include "kbx/compare/comparator.h"
#include "kbx/run/judge.h"
#include "kbx/run/trace_timing.h"
#include "kbx/sandbox/candidate_processes.h"
#include "kbx/sandbox/cpu_affinity.h"

namespace kbx::run {
namespace {

using sandbox::Clock;
using sandbox::ReadFailure;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// The limit a signal stands for, when a sandbox limit sent it.
std::optional<std::string> limit_of_signal(int signal) {
  if (signal == SIGXCPU) {
    return "cpu_time";
  }
  if (signal == SIGXFSZ) {
    return "file_size";
  }
  return std::nullopt;
}

/// The perf recheck's contract: the task's, with float tolerances 100x wider (at least 1e-3, at
/// most 5e-2; error bounds 100x too). The recheck catches stale, cached or uncomputed outputs,
/// which are wrong by O(1); at perf sizes the rounding of a correct float32 kernel (against an
/// exact reference, over long reductions) exceeds the tolerance made for the small cases.
compare::Contract recheck_contract(const compare::Contract& contract) {
  compare::Contract wide = contract;
  for (auto& [dtype, tol] : wide.tolerances) {
    tol.rtol = std::clamp(tol.rtol * 100, 1e-3, 5e-2);
    tol.atol = std::clamp(tol.atol * 100, 1e-3, 5e-2);
  }
  if (wide.error_bound_k) {
    *wide.error_bound_k *= 100;
  }
  return wide;
}

/// How far the reference computed at the task's own precision lands from the exact reference on
/// one call (exact-reference tasks' perf rechecks): the largest |working - exact| over all
/// outputs; 0 when not measured or not comparable (a NaN or Inf pattern differs, say).
double working_precision_spread(const ReferenceCase& ref) {
  if (ref.working.empty()) {
    return 0;
  }
  compare::Contract anything;
  for (DType d : {DType::float16, DType::bfloat16, DType::float32, DType::float64, DType::complex64,
                  DType::complex128}) {
    anything.tolerances[d] = {0, std::numeric_limits<double>::infinity()};
  }
  compare::Verdict v = compare::compare_outputs(ref.outputs, ref.working, anything);
  return v.ok && std::isfinite(v.err_abs_max) ? v.err_abs_max : 0;
}

/// kbx's rules: Triton kernels must run at least this share of a correct candidate's GPU time
/// (docs/security.md). Low enough for a Triton epilogue beside a library matmul on large shapes,
/// high enough that a token launch beside PyTorch's kernels fails.
constexpr double min_triton_share = 0.01;

/// State of one evaluation as it moves through the stages.
struct Evaluation {
  const JudgeContext& ctx;
  CandidateChannel& candidate;
  const submit::Submission& submission;
  const suite::Task& task;
  const compare::Contract& contract;
  store::EvaluationRecord rec;
  std::optional<std::vector<store::TimingRecord>> fresh_reference_timings;
  bool reference_for_submission = false;
  bool host_quiet = false;  // timed with worker starts held off the host (QuietStarts)
  /// The reference timed again right after the candidate (a task whose reference holds a share
  /// of host time, any_host_share, and was not timed in this hold).
  bool reference_adjacent = false;
  int handle = 0;
  /// Fresh workers for the later rounds of --reference-timing interleaved, taken before the
  /// exclusive hold: the pool starts workers under a shared hold, so one asked for inside the
  /// exclusive hold could never come.
  std::vector<std::unique_ptr<CandidateChannel>> later_rounds{};
  std::string later_rounds_note{};

  /// Counts a wait for a shared GPU hold (behind timing runs, waiting or running) into the
  /// evaluation's queue time; with `--trace`, a wait of a millisecond or more is a "wait for a
  /// shared hold" span (the stages after it start late by that much).
  void queued_shared(Clock::time_point waiting) {
    double waited_ms = ms_since(waiting);
    rec.time_queue_ms += waited_ms;
    if (ctx.options.trace != nullptr && waited_ms >= 1.0) {
      ctx.options.trace->span("wait for a shared hold", "queue", waiting, Clock::now(),
                              Json{{"task", task.key}});
    }
  }

  /// The record's identity: which submission, session, device, task version and rules.
  void identify(const std::string& submission_id) {
    rec.submission_id = submission_id;
    rec.session_id = ctx.session_id;
    rec.device = ctx.device_label;
    rec.task_version = task.version;
    rec.rules = ctx.options.rules;
  }

  void finish(Outcome outcome, std::string reason, std::string detail) {
    rec.outcome = std::string(to_string(outcome));
    rec.reason = std::move(reason);
    rec.detail = std::move(detail);
  }
  void finish(const Decision& d) { finish(d.outcome, d.reason, d.detail); }

  void violation(const std::string& stage, const std::string& what) {
    finish(Outcome::protocol_violation, "protocol_violation",
           fmt::format("the candidate's process sent a reply the protocol does not allow during "
                       "the {} stage: {}",
                       stage, what));
    rec.call_ok = rec.exe_ok = rec.perf_ok = false;
  }

  /// True (and the outcome set) when the worker answered with a `tampered` error: the candidate
  /// changed torch's global flags (docs/security.md).
  bool tampered(const sandbox::Reply& reply) {
    if (!reply.ok() || reply.frame->op() != "error") {
      return false;
    }
    const Json& err = reply.frame->header.value("error", Json::object());
    if (!err.is_object() || err.value("kind", "") != "tampered") {
      return false;
    }
    finish(Outcome::tampered, "global_flags", describe_worker_error(err));
    rec.call_ok = rec.exe_ok = rec.perf_ok = false;
    return true;
  }

  /// True (and the outcome set) when a process the candidate started, other than its worker,
  /// holds a CUDA context of its own (a GPU device mapped) right after the candidate was timed:
  /// its GPU work is in none of the worker's events, brackets or kernel inventory, and it can
  /// write the outputs through CUDA's interprocess memory. Found by the worker's own uid or its
  /// pids cgroup, whatever process group or session the process moved to; where it has neither
  /// (kbx not root), not checked.
  bool gpu_helper_found() {
    const int self = candidate.pid();
    if (ctx.options.device != "cuda" || self <= 0) {
      return false;
    }
    // One pass over /proc only where the worker runs under a uid of its own (kbx as root).
    const uid_t own = geteuid();
    auto by_uid = sandbox::under_own_uid(self, own) ? sandbox::processes_by_uid()
                                                    : std::map<uid_t, std::vector<int>>{};
    std::vector<int> others;
    for (int pid : sandbox::candidate_processes(self, by_uid, own)) {
      if (pid != self) {
        others.push_back(pid);
      }
    }
    std::vector<int> holders = sandbox::gpu_mapping_processes(others);
    if (holders.empty()) {
      return false;
    }
    finish(Outcome::tampered, "gpu_process",
           fmt::format("process {} that the candidate started held a CUDA context of its own "
                       "while the candidate was timed: GPU work there is in no timing, and it can "
                       "write the outputs through shared memory",
                       Json(holders).dump()));
    rec.call_ok = rec.exe_ok = rec.perf_ok = false;
    return true;
  }

  /// A request that got no reply: the worker hung, died or broke the protocol.
  void fail_no_reply(const sandbox::Reply& reply, const std::string& stage, int timeout_s) {
    if (reply.failure == ReadFailure::timeout) {
      finish(Outcome::timeout, stage + "_timeout",
             fmt::format("the {} stage did not finish within {} s; the worker was killed", stage,
                         timeout_s));
      candidate.kill();
      return;
    }
    if (reply.failure == ReadFailure::cancelled) {
      finish(Outcome::cancelled, "interrupted",
             "kbx was interrupted; this submission is redone on resume");
      return;
    }
    if (reply.failure == ReadFailure::protocol) {
      violation(stage, reply.error);
      return;
    }
    auto status = candidate.exit_status(std::chrono::milliseconds(3000));
    if (status && status->signal) {
      auto limit = limit_of_signal(*status->signal);
      if (limit) {
        finish(Outcome::limit_exceeded, *limit,
               fmt::format("the candidate's process exceeded its {} limit ({}) during the {} "
                           "stage",
                           *limit == "cpu_time" ? "CPU time" : "file size",
                           sandbox::signal_name(*status->signal), stage));
        return;
      }
      finish(Outcome::crashed, sandbox::signal_name(*status->signal),
             fmt::format("the candidate's process died from {} during the {} stage",
                         sandbox::signal_name(*status->signal), stage));
    } else if (status && status->exit_code) {
      finish(Outcome::crashed, fmt::format("exit_{}", *status->exit_code),
             fmt::format("the candidate's process exited with code {} during the {} stage",
                         *status->exit_code, stage));
    } else {
      finish(Outcome::worker_lost, "no_reply",
             fmt::format("the worker vanished during the {} stage", stage));
    }
  }

  /// reference.py's text: a sandboxed candidate cannot read the suite's folder itself.
  Json reference_text() const {
    try {
      return read_file(task.reference_path());
    } catch (const Error&) {
      return nullptr;  // the worker then tries the path and reports an input error naming it
    }
  }

  /// Loads the submission; `hold_gpu` false when the caller holds the GPU exclusively already (a
  /// later round of --reference-timing interleaved).
  bool load(bool hold_gpu = true) {
    sandbox::Frame req{Json{{"op", "load"},
                            {"code", submission.code},
                            {"filename", task.key},
                            {"entry_names", task.entry_names()},
                            {"builders_path", task.reference_path().string()},
                            {"builders_code", reference_text()}},
                       {}};
    int timeout = ctx.options.load_timeout_s;
    sandbox::Reply reply;
    {
      // Importing runs candidate code: never while another candidate or the reference is timed.
      auto waiting = Clock::now();
      std::optional<sandbox::SharedGpuHold> hold;
      if (hold_gpu) {
        hold.emplace(ctx.gpu_lock);
      }
      queued_shared(waiting);
      auto start = Clock::now();
      TraceScope span(ctx.options.trace, "load", "stage", Json{{"task", task.key}});
      reply = candidate.request(req, Clock::now() + std::chrono::seconds(timeout));
      rec.time_load_ms = ms_since(start);
    }
    if (!reply.ok()) {
      fail_no_reply(reply, "load", timeout);
      return false;
    }
    if (tampered(reply)) {
      return false;
    }
    const Json& h = reply.frame->header;
    if (reply.frame->op() != "loaded" || !h.contains("ok") || !h["ok"].is_boolean()) {
      violation("load", fmt::format("expected a 'loaded' reply, got '{}'{}", reply.frame->op(),
                                    reply.frame->op() == "error"
                                        ? ": " + describe_worker_error(h.value("error", Json()))
                                        : ""));
      return false;
    }
    if (!h["ok"].get<bool>()) {
      const Json& err = h.value("error", Json::object());
      std::string kind = err.is_object() ? err.value("kind", "import_error") : "import_error";
      if (kind == "input_error") {
        finish(Outcome::skipped, kind, describe_worker_error(err));
        return false;
      }
      if (kind == "gpu_fault") {
        finish(Outcome::crashed, kind, describe_worker_error(err));
        return false;
      }
      if (kind == "resource_limit") {
        finish(Outcome::limit_exceeded, err.value("limit", kind), describe_worker_error(err));
        return false;
      }
      std::string detail = kind == "no_entry"
                               ? fmt::format("the module defines none of {}; define `{}` with the "
                                             "signature {}",
                                             Json(task.entry_names()).dump(), task.entry,
                                             task.signature)
                               : describe_worker_error(err);
      finish(Outcome::compile_error, kind, detail);
      return false;
    }
    // json_integer, not value<int>(): a float handle would be cast unchecked.
    auto loaded_handle = json_integer<int>(h.value("handle", Json(0)));
    if (!loaded_handle) {
      violation("load", "the 'loaded' reply's handle is not an integer");
      return false;
    }
    handle = *loaded_handle;
    return true;
  }

  /// Runs `calls` (a batch of the task's resolved calls) in the candidate; false once the
  /// evaluation is decided (no reply, tampering, an error reply, a malformed one).
  /// `deadline` bounds the request (default: the cases' timeout from now); `held`: the caller
  /// holds the GPU lock already (--fail-fast holds it over all of a submission's requests, so
  /// its one-case requests do not queue behind other candidates' timing one by one).
  bool run_case_batch(const std::vector<suite::ResolvedCall>& calls, std::vector<CaseResult>& into,
                      std::optional<Clock::time_point> deadline = std::nullopt, bool held = false) {
    sandbox::Frame req{Json{{"op", "run_cases"}, {"handle", handle}, {"device", ctx.options.device},
                            {"cases", cases_json(task, calls, /*for_reference=*/false)}},
                       {}};
    int timeout = ctx.options.cases_timeout_s;
    sandbox::Reply reply;
    {
      auto waiting = Clock::now();
      std::optional<sandbox::SharedGpuHold> hold;
      if (!held) {
        hold.emplace(ctx.gpu_lock);
      }
      queued_shared(waiting);
      auto start = Clock::now();
      TraceScope span(ctx.options.trace, "cases", "stage", Json{{"task", task.key}});
      reply = candidate.request(req, deadline.value_or(Clock::now() + std::chrono::seconds(timeout)));
      rec.time_cases_ms += ms_since(start);
    }
    if (!reply.ok()) {
      fail_no_reply(reply, "cases", timeout);
      return false;
    }
    if (tampered(reply)) {
      return false;
    }
    if (reply.frame->op() == "error") {
      violation("cases", "an error reply instead of per-case results: " +
                             describe_worker_error(reply.frame->header.value("error", Json())));
      return false;
    }
    auto results = decode_case_results(*reply.frame);
    if (!results) {
      violation("cases", results.error().what());
      return false;
    }
    std::move(results->begin(), results->end(), std::back_inserter(into));
    return true;
  }

  /// `kbx eval --fail-fast`: one case per request, each reply checked and judged as it comes,
  /// and no request after the first case that fails (the rest `not_run`); the GPU lock held
  /// shared across the requests and one deadline, the cases' timeout, over all of them, as one
  /// request would have. Fills `results` and `judgement` for every case.
  bool run_cases_fail_fast(const std::vector<suite::ResolvedCall>& calls,
                           const CaseOutputs& expected, const JudgeRules& rules,
                           std::vector<CaseResult>& results, CaseJudgement& judgement) {
    auto waiting = Clock::now();
    sandbox::SharedGpuHold hold(ctx.gpu_lock);
    queued_shared(waiting);
    auto deadline = Clock::now() + std::chrono::seconds(ctx.options.cases_timeout_s);
    auto compare_ms = 0.0;
    for (std::size_t i = 0; i < calls.size(); ++i) {
      if (!run_case_batch(suite::slice(calls, i, i + 1), results, deadline, /*held=*/true)) {
        return false;
      }
      if (auto bad = find_case_reply_violation(calls, results, i + 1);
          bad || results.size() != i + 1) {
        violation("cases", bad ? *bad : fmt::format("the worker answered {} results for 1 case",
                                                    results.size() - i));
        return false;
      }
      auto start = Clock::now();
      judge_more_case_results(judgement, calls, results, expected, contract, rules);
      compare_ms += ms_since(start);
      if (cases_failed(judgement) || stops_the_run(calls[i], results[i])) {
        break;
      }
    }
    for (std::size_t i = results.size(); i < calls.size(); ++i) {
      CaseResult not_run;  // status not_run: kbx did not ask for it
      not_run.index = static_cast<int>(i);
      results.push_back(std::move(not_run));
    }
    judge_more_case_results(judgement, calls, results, expected, contract, rules);
    rec.time_compare_ms = compare_ms;
    return true;
  }

  bool run_cases(const CaseOutputs& expected) {
    auto calls = suite::resolve_cases(task, ctx.options.seed);
    JudgeRules rules{ctx.options.rules, ctx.options.require_triton, !task.canonical.empty(),
                     task.mutated_args, task.mutated_kwargs, ctx.options.fail_fast};
    // One request for a loaded task; one per draw under `kbx suite check --seeds` (request_ranges);
    // one per case under --fail-fast.
    std::vector<CaseResult> results;
    rec.time_cases_ms = 0;
    if (ctx.options.fail_fast) {
      CaseJudgement judgement;
      if (!run_cases_fail_fast(calls, expected, rules, results, judgement)) {
        return false;
      }
      return finish_cases(calls, results, expected, rules, std::move(judgement), Clock::now());
    }
    for (auto [begin, end] : suite::request_ranges(task, calls.size())) {
      if (!run_case_batch(suite::slice(calls, begin, end), results)) {
        return false;
      }
      if (end == calls.size()) {
        break;
      }
      if (results.size() != end) {  // checked here, before anything is filled in after it
        violation("cases", fmt::format("the worker answered {} results for {} cases",
                                       results.size() - begin, end - begin));
        return false;
      }
      bool stopped = false;
      for (std::size_t i = begin; i < end; ++i) {
        stopped = stopped || stops_the_run(calls[i], results[i]);
      }
      if (stopped) {  // the run ends here, as it would have in one request
        for (std::size_t i = end; i < calls.size(); ++i) {
          CaseResult not_run;  // status not_run
          not_run.index = static_cast<int>(i);
          results.push_back(std::move(not_run));
        }
        break;
      }
    }
    if (auto bad = find_case_reply_violation(calls, results)) {
      violation("cases", *bad);
      return false;
    }
    auto start = Clock::now();
    rec.time_compare_ms = 0;
    return finish_cases(calls, results, expected, rules,
                        judge_case_results(calls, results, expected, contract, rules), start);
  }

  /// The cases stage's end: canonical forms judged, the inventory and the outcome recorded.
  /// `start`: when judging began (its time adds to time_compare_ms).
  bool finish_cases(const std::vector<suite::ResolvedCall>& calls,
                    const std::vector<CaseResult>& results, const CaseOutputs& expected,
                    const JudgeRules& rules, CaseJudgement judgement, Clock::time_point start) {
    if (!judgement.first_error && !judgement.pending_canonical.empty() &&
        !judge_canonical(calls, results, expected, judgement)) {
      rec.time_compare_ms += ms_since(start);
      return false;
    }
    rec.time_compare_ms += ms_since(start);
    add_case_inventory(results);
    rec.triton_launches = judgement.triton_launches;
    rec.triton_ok = judgement.triton_launches > 0;
    Decision d = decide_cases(judgement, calls, results, rules);
    rec.cases = std::move(judgement.cases);
    finish(d);
    rec.call_ok = d.outcome == Outcome::ok || d.outcome == Outcome::incorrect ||
                  d.outcome == Outcome::not_triton;
    rec.exe_ok = d.outcome == Outcome::ok;
    return rec.exe_ok;
  }

  /// The cases' kernel inventory, summed over the cases by name and origin (stage "cases").
  void add_case_inventory(const std::vector<CaseResult>& results) {
    std::map<std::pair<std::string, std::string>, store::KernelUse> by_key;
    for (const auto& r : results) {
      for (const auto& k : r.kernels) {
        auto& sum = by_key[{k.name, k.origin}];
        sum.stage = "cases";
        sum.name = k.name;
        sum.origin = k.origin;
        sum.launches += k.launches;
        if (k.gpu_ms) {
          sum.gpu_ms = sum.gpu_ms.value_or(0) + *k.gpu_ms;
        }
      }
    }
    for (auto& [key, use] : by_key) {
      rec.kernels.push_back(std::move(use));
    }
  }

  /// The timed calls' kernel inventory, per call (stage "perf/<workload>").
  void add_perf_inventory() {
    for (const auto& t : rec.timings) {
      if (t.kernel_calls <= 0) {
        continue;
      }
      for (const auto& k : t.kernels) {
        store::KernelUse use = k;
        use.launches = (k.launches + t.kernel_calls / 2) / t.kernel_calls;
        if (k.gpu_ms) {
          use.gpu_ms = *k.gpu_ms / t.kernel_calls;
        }
        rec.kernels.push_back(std::move(use));
      }
    }
  }

  /// Triton's share of the GPU time: in the timed calls of the workload that keeps the GPU
  /// busiest (where the task's work dwarfs any fixed cost), else over the cases when perf did not
  /// run with an inventory. Below min_triton_share, kbx's rules say PyTorch (or another library)
  /// did the task's work.
  void apply_triton_share_rule() {
    std::map<std::string, double> stage_total;
    for (const auto& k : rec.kernels) {
      if (k.gpu_ms && k.stage.starts_with("perf/")) {
        stage_total[k.stage] += *k.gpu_ms;
      }
    }
    std::string busiest = "cases";
    for (const auto& [stage, total] : stage_total) {
      if (busiest == "cases" || total > stage_total[busiest]) {
        busiest = stage;
      }
    }
    auto share_of = [&](bool perf) -> std::optional<double> {
      double triton = 0;
      double total = 0;
      for (const auto& k : rec.kernels) {
        if (k.gpu_ms && k.stage == (perf ? busiest : std::string("cases"))) {
          total += *k.gpu_ms;
          triton += k.origin == "triton" ? *k.gpu_ms : 0;
        }
      }
      return total > 0 ? std::optional<double>(triton / total) : std::nullopt;
    };
    bool from_perf = !stage_total.empty();
    rec.triton_share = share_of(from_perf);
    if (!rec.triton_share || rec.outcome != "ok" || !ctx.options.require_triton ||
        ctx.options.rules != "kbx" || *rec.triton_share >= min_triton_share) {
      return;
    }
    std::vector<const store::KernelUse*> others;
    for (const auto& k : rec.kernels) {
      if (k.origin != "triton" && k.gpu_ms && k.stage == (from_perf ? busiest : "cases")) {
        others.push_back(&k);
      }
    }
    std::sort(others.begin(), others.end(),
              [](const auto* a, const auto* b) { return *a->gpu_ms > *b->gpu_ms; });
    std::string top;
    for (std::size_t i = 0; i < others.size() && i < 3; ++i) {
      top += fmt::format("{}{}", i ? ", " : "", others[i]->name.substr(0, 80));
    }
    finish(Outcome::not_triton, "triton_share",
           fmt::format("every output matches, but Triton kernels ran {:.2f}% of the GPU time of "
                       "{} (kbx requires at least {:.0f}%); the rest ran in other kernels, most in: "
                       "{} (docs/security.md, \"Triton did the work\")",
                       100 * *rec.triton_share,
                       from_perf ? "the timed calls of its busiest workload (" + busiest + ")"
                                 : std::string("the test cases"),
                       100 * min_triton_share, top));
    rec.exe_ok = rec.perf_ok = false;
  }

  /// Judges the outputs of cases awaiting a canonical form, through the reference worker.
  bool judge_canonical(const std::vector<suite::ResolvedCall>& calls,
                       const std::vector<CaseResult>& results, const CaseOutputs& expected,
                       CaseJudgement& judgement) {
    std::vector<suite::ResolvedCall> subset;
    std::vector<const std::vector<OutputLeaf>*> outputs;
    for (std::size_t i : judgement.pending_canonical) {
      subset.push_back(calls[i]);
      outputs.push_back(&results[i].outputs);
    }
    // Batches of one draw's size, as the cases ran (request_ranges).
    std::vector<CaseResult> forms;
    for (auto [begin, end] : suite::request_ranges(task, subset.size())) {
      Result<std::vector<CaseResult>> part = Error(ErrorKind::worker, "not run");
      {
        auto waiting = Clock::now();
        sandbox::SharedGpuHold hold(ctx.gpu_lock);
        queued_shared(waiting);
        TraceScope span(ctx.options.trace, "canonical forms", "stage", Json{{"task", task.key}});
        part = ctx.references.canonicalize(task, suite::slice(subset, begin, end),
                                           suite::slice(outputs, begin, end));
      }
      if (!part) {
        finish(Outcome::skipped, "reference_error",
               fmt::format("canonical forms could not be computed: {}", part.error().what()));
        return false;
      }
      std::move(part->begin(), part->end(), std::back_inserter(forms));
    }
    judge_canonical_forms(judgement, expected, forms, contract);
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
    bool recheck = false;
    if (ctx.options.reference_timing == "interleaved") {
      take_later_round_workers();
    }
    {
      auto waiting = Clock::now();
      sandbox::ExclusiveGpuHold hold(ctx.gpu_lock);
      rec.time_queue_ms += ms_since(waiting);
      if (ctx.options.trace != nullptr) {
        ctx.options.trace->span("wait for the GPU", "queue", waiting, Clock::now(),
                                Json{{"task", task.key}});
      }
      auto start = Clock::now();
      recheck = time_exclusively();
      rec.time_perf_ms = ms_since(start);
      if (ctx.options.trace != nullptr) {
        Json args{{"submission", rec.submission_id}};
        if (host_quiet) {
          args["host_quiet"] = true;
        }
        if (reference_adjacent) {
          args["reference_adjacent"] = true;
        }
        ctx.options.trace->span_on("exclusive " + ctx.device_label, task.key, "exclusive", start,
                                   Clock::now(), std::move(args));
      }
    }
    if (recheck) {
      // The recheck judges outputs, not time: it runs beside other candidates' cases (a shared
      // hold), so the GPU's exclusive time goes to timing alone. The hold covers the GPU's part
      // only (the reference's and the candidate's runs): the next exclusive hold waits for every
      // shared one, so decoding and comparing up to 512 MB of outputs happen after it.
      std::optional<RecheckRun> run;
      auto start = Clock::now();
      {
        auto waiting = Clock::now();
        sandbox::SharedGpuHold hold(ctx.gpu_lock);
        queued_shared(waiting);
        start = Clock::now();
        TraceScope span(ctx.options.trace, "perf recheck", "stage", Json{{"task", task.key}});
        run = run_recheck();
      }
      if (run) {
        TraceScope span(ctx.options.trace, "perf recheck compare", "stage",
                        Json{{"task", task.key}});
        judge_recheck(*run);
      }
      rec.time_perf_ms += ms_since(start);
    }
  }

  /// The part of perf that needs the GPU alone (the caller holds it exclusively): the reference's
  /// timing unless cached, the candidate's. Returns whether the timed workload is to be
  /// rechecked (the adjacent mode rechecks here, before it kills the candidate).
  bool time_exclusively() {
    // Other candidates are idle now (the lock keeps them out of their stages); stop them so no
    // thread of theirs runs beside this one's timing. Resumed before the lock is released.
    auto frozen = ctx.live != nullptr ? ctx.live->freeze_others(candidate.pid())
                                      : sandbox::LiveCandidates::Freeze();
    if (ctx.options.reference_timing == "adjacent") {
      time_candidate_then_reference();
      return false;
    }
    if (ctx.options.reference_timing == "interleaved") {
      time_interleaved();
      return false;
    }
    bool fresh = false;
    auto ref_start = Clock::now();
    auto ref = ctx.references.timings(task, fresh);
    if (!ref) {
      rec.perf_note = fmt::format("perf failed: reference timing: {}", ref.error().what());
      return false;
    }
    if (fresh) {
      fresh_reference_timings = ref.value();
      trace_time_request(ctx.options.trace, "", "reference timing", Json{{"task", task.key}},
                         ref_start, Clock::now(), ref.value());
    }
    rec.reference_session_id = ctx.session_id;
    std::shared_ptr<void> quiet;
    if (any_host_share(ref.value())) {
      // A task whose reference holds a share of host time in some workload (the GPU idle for
      // over 30% of a sample): its time moves with the host's state (other workers' load, the
      // CPUs' clocks), which a reference timed earlier, in another run or beside other work,
      // does not share. The candidate is timed with worker starts held off the host, as that
      // reference was (ReferenceService::timings), and unless the reference was timed just now,
      // in this hold, it is timed again right after the candidate, as `--reference-timing
      // adjacent` does (session 38: host-synchronising candidates read 0.67-0.94x against
      // references cached from the run before; session 39: `svd`, the GPU busy 56%, 1.07x).
      // The session's references are timed before any candidate starts: every candidate.
      if (ctx.quiet_host) {
        quiet = ctx.quiet_host();
        host_quiet = true;
      }
      if (!fresh) {
        reference_adjacent = true;
        time_candidate_then_reference(&ref.value());
        return false;
      }
    }
    time_candidate(ref.value());
    return rec.perf_ok;
  }

  /// `--reference-timing adjacent`: the candidate is timed and rechecked, then killed (its
  /// process and CUDA context gone, so nothing it left running can slow the reference), then the
  /// reference is timed in the same GPU slot (the exclusive hold, other candidates frozen).
  /// With `earlier` (a task holding a host share, under `session` or `cached`), a reference timing
  /// that fails now falls back to that one, and the note says so: kbx's side failing must not
  /// cost a correct candidate its perf.
  void time_candidate_then_reference(const std::vector<store::TimingRecord>* earlier = nullptr) {
    time_candidate(std::nullopt);
    if (!rec.perf_ok) {
      return;
    }
    recheck_timed_workload();
    if (!rec.perf_ok) {
      return;
    }
    candidate.kill();
    candidate.exit_status(std::chrono::milliseconds(3000));  // reaped: its context is gone
    // Only the workloads that hold a share of host time are timed again: a GPU-bound workload
    // keeps the earlier timing, as every other task's does (session 40's H200: of the 16
    // host-share tasks' 15.4 s of such timings, about 5 s went to their GPU-bound workloads).
    const std::vector<int> again = earlier != nullptr ? host_share_workloads(*earlier)
                                                      : std::vector<int>{};
    auto ref = ctx.references.timings_now(task, again);
    if (earlier != nullptr) {
      std::string why = ref ? first_timing_failure(*ref) : std::string(ref.error().what());
      if (!why.empty()) {
        rec.perf_note = fmt::format(
            "against the reference timed before this candidate (timing it again failed: {})",
            why);
        check_reference_timings(*earlier);
        return;
      }
      ref = with_timings_replaced(*earlier, std::move(ref.value()));
    }
    if (!ref) {
      rec.perf_ok = false;
      rec.perf_note = fmt::format("perf failed: reference timing: {}", ref.error().what());
      return;
    }
    fresh_reference_timings = ref.value();
    reference_for_submission = true;
    rec.reference_session_id = ctx.session_id;
    check_reference_timings(ref.value());
  }

  /// The workers of the later rounds of --reference-timing interleaved, taken before the exclusive
  /// hold (later_rounds); on failure later_rounds_note says why the run times one round.
  void take_later_round_workers() {
    if (!ctx.fresh_candidate) {
      later_rounds_note = "no fresh worker for another";
      return;
    }
    try {
      for (int round = 2; round <= interleaved_rounds; ++round) {
        later_rounds.push_back(ctx.fresh_candidate());
      }
    } catch (const Error& e) {
      later_rounds.clear();
      later_rounds_note = fmt::format("no fresh worker for another: {}", e.what());
    }
  }

  /// `--reference-timing interleaved`: round 1 as adjacent (the candidate timed, rechecked and
  /// killed, then the reference), then each later round in a fresh candidate process loaded with
  /// the same code, timed and rechecked like the first (a candidate that behaves only while its
  /// cases run is judged there too), killed, then the reference again; all under this slot's
  /// exclusive hold. The rounds' samples are pooled per workload (merge_timing_rounds), so clock
  /// and host drift, and whatever differs between processes, reach both sides alike. A later
  /// round the candidate fails decides the verdict as the first would have; a reference that
  /// fails loses perf.
  void time_interleaved() {
    time_candidate_then_reference();
    if (!rec.perf_ok || !fresh_reference_timings) {
      return;
    }
    if (later_rounds.size() + 1 < static_cast<std::size_t>(interleaved_rounds)) {
      rec.perf_note = fmt::format("interleaved timing: one round ({})", later_rounds_note);
      return;
    }
    std::vector<std::vector<store::TimingRecord>> candidate_rounds{rec.timings};
    std::vector<std::vector<store::TimingRecord>> reference_rounds{*fresh_reference_timings};
    for (int round = 2; round <= interleaved_rounds; ++round) {
      std::unique_ptr<CandidateChannel> channel = std::move(later_rounds[round - 2]);
      Evaluation next{ctx, *channel, submission, task, contract, {}, std::nullopt, false, 0};
      next.identify(rec.submission_id);
      next.rec.outcome = rec.outcome;  // "ok" so far: the share rule below judges this round
      if (next.load(/*hold_gpu=*/false)) {
        next.time_candidate(std::nullopt);
        if (next.rec.perf_ok) {
          next.recheck_timed_workload();
        }
        if (next.rec.perf_ok) {
          next.add_perf_inventory();
          next.apply_triton_share_rule();
        }
      }
      channel->kill();
      channel->exit_status(std::chrono::milliseconds(3000));
      if (next.rec.outcome != rec.outcome) {  // the candidate failed this round
        rec.outcome = next.rec.outcome;
        rec.reason = next.rec.reason;
        rec.detail = fmt::format("interleaved timing, round {}: {}", round, next.rec.detail);
        rec.exe_ok = false;
        rec.call_ok = rec.call_ok && next.rec.call_ok;
        rec.perf_ok = false;
        rec.cases.insert(rec.cases.end(), next.rec.cases.begin(), next.rec.cases.end());
        return;
      }
      if (!next.rec.perf_ok) {
        rec.perf_ok = false;
        rec.perf_note = fmt::format("interleaved timing, round {}: {}", round,
                                    next.rec.perf_note.empty() ? std::string("perf failed")
                                                               : next.rec.perf_note);
        return;
      }
      auto ref = ctx.references.timings_now(task, {});
      if (!ref) {
        rec.perf_ok = false;
        rec.perf_note = fmt::format("perf failed: reference timing, round {}: {}", round,
                                    ref.error().what());
        return;
      }
      candidate_rounds.push_back(std::move(next.rec.timings));
      reference_rounds.push_back(std::move(ref.value()));
    }
    rec.timings = merge_timing_rounds(candidate_rounds);
    fresh_reference_timings = merge_timing_rounds(reference_rounds);
    check_reference_timings(*fresh_reference_timings);
  }

  /// After timing, one workload chosen by the submission's id runs again with fresh inputs (its
  /// own seed, new allocations) and its output is judged like a case. A kernel that caches by
  /// address or shape, replays a stale CUDA graph, or computes only while it is being checked
  /// returns stale or wrong values here.
  void recheck_timed_workload() {
    if (auto run = run_recheck()) {
      judge_recheck(*run);
    }
  }

  /// The recheck's run: the workload's call, the reference's outputs for it, the candidate's reply.
  struct RecheckRun {
    suite::ResolvedCall call;
    CaseOutputs expected;
    sandbox::Reply reply;
  };

  /// The part of the recheck that needs the GPU: the reference's fresh outputs and the candidate's
  /// run. nullopt when there is nothing to judge (skipped, or the outcome is already decided).
  std::optional<RecheckRun> run_recheck() {
    if (ctx.options.rules == "kernelbenchx") {
      rec.perf_note = "perf recheck skipped: --rules kernelbenchx (the public harness has none)";
      return std::nullopt;
    }
    if (!task.canonical.empty()) {
      rec.perf_note = "perf recheck skipped: the task's outputs are judged by canonical forms";
      return std::nullopt;
    }
    auto workloads = suite::resolve_workloads(task, ctx.options.seed);
    // Chosen by the submission's id among the workloads that move at most 512 MB (the recheck
    // sends outputs back and computes the reference again), else the smallest.
    std::vector<std::size_t> eligible;
    std::size_t smallest = 0;
    for (std::size_t i = 0; i < task.workloads.size() && i < workloads.size(); ++i) {
      if (task.workloads[i].bytes <= 512.0 * (1 << 20)) {
        eligible.push_back(i);
      }
      smallest = task.workloads[i].bytes < task.workloads[smallest].bytes ? i : smallest;
    }
    std::size_t pick = eligible.empty()
                           ? smallest
                           : eligible[std::hash<std::string>{}(rec.submission_id) % eligible.size()];
    suite::ResolvedCall call = workloads[pick];
    call.index = 0;
    call.name = fmt::format("perf/{}/recheck", workloads[pick].index);
    call.seed = suite::derive_seed(task.key, fmt::format("perfcheck|{}", workloads[pick].index),
                                   ctx.options.seed);
    call.draw_on_device = true;  // as timing draws it; the same call goes to both sides
    std::vector<suite::ResolvedCall> calls{call};
    // The reference's run and the candidate's at once, each in its own process: the shared hold
    // (other candidates' timing waits for it) lasts the longer of the two, not their sum.
    auto reference_run = std::async(std::launch::async,
                                    [&] { return ctx.references.fresh_outputs(task, calls); });
    sandbox::Frame req{Json{{"op", "run_cases"}, {"handle", handle}, {"device", ctx.options.device},
                            {"cases", cases_json(task, calls, /*for_reference=*/false,
                                                 /*all_arguments=*/false)}},
                       {}};
    int timeout = ctx.options.perf_timeout_s;
    auto reply = candidate.request(req, Clock::now() + std::chrono::seconds(timeout));
    auto expected = reference_run.get();
    if (!expected) {
      rec.perf_note = fmt::format("perf recheck failed: reference: {}", expected.error().what());
      return std::nullopt;
    }
    if (!reply.ok()) {
      fail_no_reply(reply, "perf recheck", timeout);
      rec.exe_ok = rec.perf_ok = false;
      return std::nullopt;
    }
    if (tampered(reply)) {
      return std::nullopt;
    }
    return RecheckRun{call, std::move(expected.value()), std::move(reply)};
  }

  /// The part of the recheck that needs no GPU: the reply decoded and judged against the
  /// reference's outputs, with the recheck's wider contract.
  void judge_recheck(RecheckRun& run) {
    const suite::ResolvedCall& call = run.call;
    std::vector<suite::ResolvedCall> calls{call};
    auto results = decode_case_results(*run.reply.frame);
    if (!results) {
      violation("perf recheck", results.error().what());
      return;
    }
    if (auto bad = find_case_reply_violation(calls, results.value())) {
      violation("perf recheck", *bad);
      return;
    }
    const CaseResult& r = results.value()[0];
    if (r.status != CaseStatus::ok) {
      Decision d = decide_case_error(r, call.name);
      finish(d.outcome, d.reason,
             "a timed workload, run again with fresh inputs after timing, failed: " + d.detail);
      rec.exe_ok = rec.perf_ok = false;
      return;
    }
    // An ill-conditioned workload (a solve with a nearly singular matrix, say) has no answer at
    // the task's precision closer to the exact one than rounding allows: any correct kernel may
    // land as far from it as the reference's own working-precision result, so the bound widens
    // by ten times that distance, and the note says so.
    compare::Contract wide = recheck_contract(contract);
    if (double spread = working_precision_spread(run.expected[0]); spread > 0) {
      for (auto& [dtype, tol] : wide.tolerances) {
        tol.atol += 10 * spread;
      }
      if (10 * spread > 1e-3) {
        rec.perf_note += fmt::format(
            "{}perf recheck ({}): absolute tolerance widened by {:.3g}, ten times the distance of "
            "the reference at the task's precision from the exact result",
            rec.perf_note.empty() ? "" : "; ", call.name, 10 * spread);
      }
    }
    JudgeRules rules{ctx.options.rules, false, false, task.mutated_args, task.mutated_kwargs};
    CaseJudgement j =
        judge_case_results(calls, results.value(), run.expected, wide, rules);
    const store::CaseRecord& c = j.cases.front();
    if (c.status != "ok") {
      finish(Outcome::incorrect, "perf_recheck_mismatch",
             fmt::format("a timed workload ({}), run again with fresh inputs after timing, "
                         "differs from the reference: {}",
                         call.name, c.detail));
      rec.exe_ok = rec.perf_ok = false;
      rec.cases.push_back(c);
      rec.cases.back().index = static_cast<int>(rec.cases.size()) - 1;
    }
  }

  /// Times the candidate; with `ref`, also checks the reference's timings (check_reference_timings).
  void time_candidate(const std::optional<std::vector<store::TimingRecord>>& ref) {
    Json workloads = calls_json(suite::resolve_workloads(task, ctx.options.seed));
    sandbox::Frame req{Json{{"op", "time"}, {"handle", handle}, {"device", ctx.options.device},
                            {"workloads", workloads}, {"settings", ctx.options.timing.to_json()}},
                       {}};
    int timeout = ctx.options.perf_timeout_s;
    auto start = Clock::now();
    sandbox::Reply reply;
    {
      sandbox::PinnedCpus pinned(candidate.pid(), ctx.options.timing_cpus);  // --timing-cpus
      reply = candidate.request(req, Clock::now() + std::chrono::seconds(timeout));
    }
    double wall_ms = ms_since(start);
    if (reply.failure == ReadFailure::cancelled) {
      finish(Outcome::cancelled, "interrupted",
             "kbx was interrupted; this submission is redone on resume");
      return;
    }
    if (reply.failure == ReadFailure::protocol) {
      violation("perf", reply.error);
      return;
    }
    if (!reply.ok()) {
      rec.perf_note = reply.failure == ReadFailure::timeout
                          ? fmt::format("perf failed: timing did not finish within {} s", timeout)
                          : "perf failed: the worker died while timing";
      return;
    }
    if (tampered(reply)) {
      return;
    }
    auto timings = decode_timings(*reply.frame);
    if (!timings) {
      violation("perf", timings.error().what());
      return;
    }
    trace_time_request(ctx.options.trace, "", "candidate timing", Json{{"task", task.key}}, start,
                       Clock::now(), timings.value());
    if (gpu_helper_found()) {
      return;
    }
    if (auto bad = find_timing_reply_violation(task.workloads.size(), timings.value())) {
      violation("perf", *bad);
      return;
    }
    double reported_ms = 0;
    double host_ms = 0;
    for (const auto& t : timings.value()) {
      for (double s : t.samples_ms) {
        reported_ms += s;
      }
      for (double s : t.graph_samples_ms) {  // taken within the same request
        reported_ms += s;
      }
      host_ms += t.host_ms.value_or(0.0) * static_cast<double>(t.samples_ms.size());
    }
    if (host_ms > wall_ms) {
      violation("perf", fmt::format("the host times add up to {:.3f} ms, but the whole request "
                                    "took {:.3f} ms by kbx's clock",
                                    host_ms, wall_ms));
      return;
    }
    if (reported_ms > wall_ms) {
      violation("perf", fmt::format("the samples add up to {:.3f} ms, but the whole request took "
                                    "{:.3f} ms by kbx's clock",
                                    reported_ms, wall_ms));
      return;
    }
    for (const auto& t : timings.value()) {
      if (auto bad = find_flush_violation(t, ctx.l2_flush_bytes)) {
        finish(Outcome::tampered, "l2_flush", fmt::format("workload {}: {}", t.workload, *bad));
        rec.call_ok = rec.exe_ok = rec.perf_ok = false;
        return;
      }
    }
    rec.timings = timings.value();
    std::vector<int> escaped;
    std::vector<int> kept;
    std::string first_why;
    std::string first_kept;
    for (auto& t : rec.timings) {
      TimedBy by = apply_stream_check(t);
      if (by == TimedBy::brackets) {
        escaped.push_back(t.workload);
        if (first_why.empty()) {
          first_why = fmt::format("; workload {}: {}", t.workload, t.method_note);
        }
      } else if (by == TimedBy::fresh_calls) {
        kept.push_back(t.workload);
        if (first_kept.empty()) {
          first_kept = fmt::format("; workload {}: {}", t.workload, t.method_note);
        }
      }
    }
    for (std::size_t i = 0; i < rec.timings.size(); ++i) {
      if (rec.timings[i].status != "ok") {
        rec.perf_note = fmt::format("perf failed on workload {}: {}", i, rec.timings[i].error);
        return;
      }
    }
    rec.perf_ok = rec.timings.size() == task.workloads.size();
    if (!escaped.empty()) {
      rec.perf_note = fmt::format(
          "GPU work escaped the timed stream on workload(s) {} (side streams or threads); timed "
          "there between device-wide synchronisations instead{}",
          Json(escaped).dump(), first_why);
    }
    if (!kept.empty()) {
      rec.perf_note += fmt::format(
          "{}the timed calls did less GPU work than calls on inputs of their own on workload(s) "
          "{} (work or results kept across calls on the same inputs); timed there by the "
          "slowest of those calls, between device-wide synchronisations, instead{}",
          rec.perf_note.empty() ? "" : "; ", Json(kept).dump(), first_kept);
    }
    if (rec.perf_ok && ref) {
      check_reference_timings(*ref);
    }
  }

  /// Perf stands only where the reference timed every workload the candidate did.
  void check_reference_timings(const std::vector<store::TimingRecord>& ref) {
    for (std::size_t i = 0; i < rec.timings.size(); ++i) {
      const auto* r = i < ref.size() ? &ref[i] : nullptr;
      if (r == nullptr || r->status != "ok") {
        rec.perf_ok = false;
        rec.perf_note = fmt::format("perf failed on workload {}: {}", i,
                                    r == nullptr ? std::string("no reference timing")
                                                 : "reference: " + r->error);
        return;
      }
    }
  }
};

/// A pooled worker as a CandidateChannel; exit statuses come from the zygote that forked it.
class PooledCandidate final : public CandidateChannel {
 public:
  PooledCandidate(std::unique_ptr<sandbox::Worker> worker, sandbox::Zygote& zygote)
      : worker_(std::move(worker)), zygote_(zygote) {}
  ~PooledCandidate() override {
    worker_->kill();
    std::error_code ec;
    std::filesystem::remove(worker_->spec().log_path, ec);
  }
  PooledCandidate(const PooledCandidate&) = delete;
  PooledCandidate& operator=(const PooledCandidate&) = delete;

  sandbox::Reply request(const sandbox::Frame& frame, Clock::time_point deadline) override {
    return worker_->request(frame, deadline);
  }
  void kill() override { worker_->kill(); }
  std::optional<sandbox::ExitStatus> exit_status(std::chrono::milliseconds wait) override {
    return zygote_.exit_status(worker_->pid(), wait);
  }
  std::string log_tail(std::size_t max_bytes) override { return worker_->log_tail(max_bytes); }
  int pid() override { return worker_->pid(); }

 private:
  std::unique_ptr<sandbox::Worker> worker_;
  sandbox::Zygote& zygote_;
};

/// The ReferenceService of one GPU as a ReferenceSide.
class ServiceReferences final : public ReferenceSide {
 public:
  ServiceReferences(ReferenceService& service, int gpu) : service_(service), gpu_(gpu) {}
  Result<std::shared_ptr<const CaseOutputs>> case_outputs(const suite::Task& task) override {
    return service_.case_outputs(task, gpu_);
  }
  Result<std::vector<CaseResult>> canonicalize(
      const suite::Task& task, const std::vector<suite::ResolvedCall>& calls,
      const std::vector<const std::vector<OutputLeaf>*>& outputs) override {
    return service_.canonicalize(task, gpu_, calls, outputs);
  }
  Result<std::vector<store::TimingRecord>> timings(const suite::Task& task, bool& fresh) override {
    fresh = false;  // the runner took and stored them before any candidate started
    return service_.cached_timings(task, gpu_);
  }
  Result<std::vector<store::TimingRecord>> timings_now(const suite::Task& task,
                                                       const std::vector<int>& only) override {
    return service_.timings_now(task, gpu_, only);
  }
  Result<CaseOutputs> fresh_outputs(const suite::Task& task,
                                    const std::vector<suite::ResolvedCall>& calls) override {
    return service_.fresh_outputs(task, gpu_, calls);
  }

 private:
  ReferenceService& service_;
  int gpu_;
};

}  // namespace

EvaluationResult evaluate_candidate(const JudgeContext& ctx, CandidateChannel& candidate,
                                    const submit::Submission& submission,
                                    const std::string& submission_id, const suite::Task& task,
                                    const compare::Contract& contract) {
  auto start = Clock::now();
  struct Registration {  // the candidate is frozen while others are timed, from now to its end
    sandbox::LiveCandidates* live;
    int pid;
    Registration(sandbox::LiveCandidates* l, int p) : live(l), pid(p) {
      if (live != nullptr && pid > 0) {
        live->add(pid);
      }
    }
    ~Registration() {
      if (live != nullptr && pid > 0) {
        live->remove(pid);
      }
    }
    Registration(const Registration&) = delete;
    Registration& operator=(const Registration&) = delete;
  } registration(ctx.live, candidate.pid());
  Evaluation ev{ctx, candidate, submission, task, contract, {}, std::nullopt, 0};
  ev.identify(submission_id);

  std::shared_ptr<const CaseOutputs> expected;
  {
    auto waiting = Clock::now();
    sandbox::SharedGpuHold hold(ctx.gpu_lock);
    ev.queued_shared(waiting);
    TraceScope span(ctx.options.trace, "reference outputs", "stage", Json{{"task", task.key}});
    auto outputs = ctx.references.case_outputs(task);
    if (!outputs) {
      ev.finish(Outcome::skipped, "reference_error", outputs.error().what());
    } else {
      expected = outputs.value();
    }
  }
  try {
    if (expected && ev.load() && ev.run_cases(*expected)) {
      ev.run_perf();
      ev.add_perf_inventory();
      ev.apply_triton_share_rule();
    }
  } catch (const Json::exception& e) {
    // A reply with the right op but ill-typed fields: the candidate broke the protocol.
    ev.violation("worker", fmt::format("malformed reply: {}", e.what()));
  }
  if (ev.rec.outcome != "ok" && expected) {
    ev.rec.log_tail = candidate.log_tail(2000);
  }
  candidate.kill();
  ev.rec.time_total_ms = ms_since(start);
  return {std::move(ev.rec), std::move(ev.fresh_reference_timings), ev.reference_for_submission};
}

EvaluationResult evaluate(const EvalContext& ctx, const submit::Submission& submission,
                          const std::string& submission_id, const suite::Task& task,
                          const compare::Contract& contract) {
  ServiceReferences references(ctx.references, ctx.gpu);
  JudgeContext judge{ctx.options, references, ctx.gpu_lock, ctx.session_id, ctx.device_label,
                     ctx.live};
  judge.l2_flush_bytes = ctx.l2_flush_bytes;
  judge.quiet_host = [&ctx]() -> std::shared_ptr<void> {
    return std::make_shared<sandbox::WorkerPool::QuietStarts>(ctx.pool.quiet_starts());
  };
  judge.fresh_candidate = [&ctx]() -> std::unique_ptr<CandidateChannel> {
    return std::make_unique<PooledCandidate>(ctx.pool.acquire(ctx.gpu), ctx.zygote);
  };
  auto queued = Clock::now();
  PooledCandidate candidate(ctx.pool.acquire(ctx.gpu), ctx.zygote);
  double queue_ms = ms_since(queued);
  if (ctx.options.trace != nullptr) {
    ctx.options.trace->span("wait for a worker", "queue", queued, Clock::now(),
                            Json{{"task", task.key}});
  }
  auto result = evaluate_candidate(judge, candidate, submission, submission_id, task, contract);
  result.record.time_queue_ms += queue_ms;
  result.record.time_total_ms += queue_ms;
  return result;
}

}  // namespace kbx::run

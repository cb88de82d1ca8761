// The judge's pure rules (judge.h): reply validation, per-case verdicts, outcomes.
#include "kbx/run/judge.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <limits>

#include "kbx/compare/comparator.h"
#include "kbx/stats/summary.h"

namespace kbx::run {
namespace {

/// True when the worker's error says the device or the task data is gone: nothing after it runs.
bool stops_everything(const CaseResult& r) {
  if (r.status != CaseStatus::error) {
    return false;
  }
  std::string kind = r.error.value("kind", "");
  return kind == "gpu_fault" || kind == "input_error";
}

/// The leaves of the return value alone: what --rules kernelbenchx compares.
bool is_return_leaf(const OutputLeaf& l) { return l.path == "out" || l.path.starts_with("out["); }

std::vector<OutputLeaf> return_leaves(const std::vector<OutputLeaf>& leaves) {
  std::vector<OutputLeaf> out;
  std::copy_if(leaves.begin(), leaves.end(), std::back_inserter(out), is_return_leaf);
  return out;
}

void record_verdict(store::CaseRecord& c, const compare::Verdict& v) {
  c.status = v.ok ? "ok" : "mismatch";
  c.reason = v.ok ? "" : std::string(compare::to_string(v.reason));
  c.detail = v.detail;
  c.path = v.path;
  c.err_abs_max = v.err_abs_max;
  c.err_rel_max = v.err_rel_max;
  c.mismatch_count = v.mismatch_count;
  c.first_mismatch_index = v.first_mismatch_index;
}

/// The arguments a canonical task's case sent back, judged directly (its canonical form covers
/// only the return value): each argument against the reference's (an input the task leaves
/// unchanged must come back as it went in; one it writes, such as Adam's parameters, as the
/// reference's did), except `out`, which must hold exactly what the call returned, bit for bit
/// (the result itself may be random or one of many valid ones, so the reference's `out` is not
/// the measure). The structure has been checked already.
compare::Verdict judge_canonical_arguments(const std::vector<OutputLeaf>& expected,
                                           const std::vector<OutputLeaf>& got,
                                           const compare::Contract& contract) {
  const std::string out_kw = "kw['out']";
  std::vector<OutputLeaf> want, have, returned, written;
  for (std::size_t k = 0; k < got.size() && k < expected.size(); ++k) {
    // An object's text form (a torch.Generator: its address, its state advanced by the call)
    // says nothing about what the call did to it.
    if (is_return_leaf(got[k]) || got[k].kind == LeafKind::repr) {
      continue;
    }
    if (got[k].path.starts_with(out_kw) && got[k].kind == LeafKind::tensor) {
      auto same = std::find_if(got.begin(), got.end(), [&](const OutputLeaf& l) {
        return is_return_leaf(l) && l.path.substr(3) == got[k].path.substr(out_kw.size());
      });
      if (same != got.end()) {
        OutputLeaf as_written = *same;
        as_written.path = got[k].path;
        returned.push_back(std::move(as_written));
        written.push_back(got[k]);
        continue;
      }
    }
    want.push_back(expected[k]);
    have.push_back(got[k]);
  }
  auto v = compare::compare_outputs(want, have, contract);
  if (!v.ok) {
    return v;
  }
  v = compare::compare_outputs(returned, written, compare::Contract{});
  if (!v.ok) {
    v.detail = fmt::format("{} does not hold the returned result: {}", out_kw, v.detail);
  }
  return v;
}

/// A case that must raise: passes when the call raised one of the named types.
void judge_expected_error(store::CaseRecord& c, const suite::ResolvedCall& call,
                          const CaseResult& r) {
  if (r.raised_one_of(call.raises)) {
    c.status = "ok";
    c.detail = fmt::format("raised {} as required", r.error.value("type", "an error"));
    return;
  }
  c.status = "mismatch";
  c.reason = std::string(compare::to_string(compare::FailReason::expected_error));
  c.detail = fmt::format("the call must raise one of {}, but it {}", Json(call.raises).dump(),
                         r.status == CaseStatus::ok ? std::string("returned")
                                                    : "raised " + describe_worker_error(r.error));
}

}  // namespace

bool is_unmutated_input(const std::string& path, const JudgeRules& rules) {
  if (path.starts_with("kw[")) {
    auto end = path.find(']');
    std::string name = end == std::string::npos ? "" : path.substr(4, end - 5);
    return std::find(rules.mutated_kwargs.begin(), rules.mutated_kwargs.end(), name) ==
           rules.mutated_kwargs.end();
  }
  if (!path.starts_with("arg")) {
    return false;
  }
  int index = 0;
  std::size_t i = 3;
  for (; i < path.size() && std::isdigit(static_cast<unsigned char>(path[i])) != 0; ++i) {
    index = index * 10 + (path[i] - '0');
  }
  if (i == 3) {
    return false;
  }
  return std::find(rules.mutated_args.begin(), rules.mutated_args.end(), index) ==
         rules.mutated_args.end();
}

namespace {

/// A mismatch in an argument the task leaves unchanged is the call writing into its input.
void mark_input_mutated(store::CaseRecord& c, const JudgeRules& rules) {
  if (c.status == "mismatch" && is_unmutated_input(c.path, rules)) {
    c.reason = "input_mutated";
    c.detail = fmt::format("the call changed its input {}, which the task leaves unchanged: {}",
                           c.path, c.detail);
  }
}

}  // namespace

bool stops_the_run(const suite::ResolvedCall& call, const CaseResult& r) {
  return r.status == CaseStatus::error && (call.raises.empty() || stops_everything(r));
}

std::optional<std::string> find_case_reply_violation(const std::vector<suite::ResolvedCall>& calls,
                                                     const std::vector<CaseResult>& results) {
  if (results.size() != calls.size()) {
    return fmt::format("the worker answered {} results for {} cases", results.size(), calls.size());
  }
  return find_case_reply_violation(calls, results, calls.size());
}

std::optional<std::string> find_case_reply_violation(const std::vector<suite::ResolvedCall>& calls,
                                                     const std::vector<CaseResult>& results,
                                                     std::size_t count) {
  if (results.size() < count || calls.size() < count) {
    return fmt::format("the worker answered {} results for {} cases", results.size(), count);
  }
  bool stopped = false;
  for (std::size_t i = 0; i < count; ++i) {
    const CaseResult& r = results[i];
    if (r.index != static_cast<int>(i)) {
      return fmt::format("the worker answered case {} in position {}", r.index, i);
    }
    if (r.status == CaseStatus::not_run && !stopped) {
      return fmt::format("case {} ('{}') was reported not run, but no earlier case failed", i,
                         calls[i].name);
    }
    if (r.status != CaseStatus::not_run && stopped) {
      return fmt::format("case {} ('{}') ran after a failure that ends the run", i, calls[i].name);
    }
    stopped = stopped || stops_the_run(calls[i], r);
  }
  return std::nullopt;
}

std::optional<std::string> find_timing_reply_violation(
    std::size_t workload_count, const std::vector<store::TimingRecord>& timings) {
  if (timings.size() != workload_count) {
    return fmt::format("the worker answered {} timings for {} workloads", timings.size(),
                       workload_count);
  }
  for (std::size_t i = 0; i < timings.size(); ++i) {
    const auto& t = timings[i];
    if (t.workload != static_cast<int>(i)) {
      return fmt::format("the worker answered workload {} in position {}", t.workload, i);
    }
    if (t.warmup_calls < 0) {
      return fmt::format("workload {}: a negative warm-up count", i);
    }
    for (double s : t.samples_ms) {
      if (!std::isfinite(s) || s <= 0) {
        return fmt::format("workload {}: a sample of {} ms", i, s);
      }
    }
    if (auto bad = find_inventory_violation(t)) {
      return fmt::format("workload {}: {}", i, *bad);
    }
  }
  return std::nullopt;
}

std::optional<std::string> find_inventory_violation(const store::TimingRecord& t) {
  if (!t.kernel_busy_ms) {
    return std::nullopt;
  }
  double busy = *t.kernel_busy_ms;
  auto calls = static_cast<std::size_t>(std::max(0, t.kernel_calls));
  if (!std::isfinite(busy) || busy < 0 || t.kernel_calls < 1 || t.inventory_ms.size() != calls ||
      t.inventory_kernel_ms.size() != calls) {
    return fmt::format("a kernel inventory of {} calls with {} ms busy, {} wall times and {} spans",
                       t.kernel_calls, busy, t.inventory_ms.size(), t.inventory_kernel_ms.size());
  }
  // Busy time is the union of kernel intervals: no more than the sum of their times.
  double summed = 0;
  for (const auto& k : t.kernels) {
    summed += k.gpu_ms.value_or(0);
  }
  if (busy * t.kernel_calls > summed * 1.001 + 1e-6) {
    return fmt::format("the GPU was busy {:.4f} ms per call, more than its kernels' {:.4f} ms",
                       busy, summed / std::max(1, t.kernel_calls));
  }
  // An inventory call's kernels run between its two device-wide synchronisations, and the GPU
  // was busy no longer than the calls took.
  double walls = 0;
  for (std::size_t b = 0; b < calls; ++b) {
    double span = t.inventory_kernel_ms[b];
    double wall = t.inventory_ms[b];
    if (!std::isfinite(wall) || wall <= 0 || !std::isfinite(span) || span < 0 ||
        span > wall * 1.01 + 0.05) {
      return fmt::format("inventory call {} ran kernels for {:.4f} ms within {:.4f} ms", b, span,
                         wall);
    }
    walls += wall;
  }
  if (busy * t.kernel_calls > walls * 1.01 + 0.05) {
    return fmt::format("the GPU was busy {:.4f} ms per call, longer than the calls' {:.4f} ms",
                       busy, walls / t.kernel_calls);
  }
  // Each call's own busy time, where reported: within its kernels' span, and together the busy
  // time of all calls (their windows are apart, so the union is the sum).
  if (!t.inventory_busy_ms.empty()) {
    if (t.inventory_busy_ms.size() != calls) {
      return fmt::format("{} busy times for {} inventory calls", t.inventory_busy_ms.size(),
                         calls);
    }
    double sum = 0;
    for (std::size_t b = 0; b < calls; ++b) {
      double own = t.inventory_busy_ms[b];
      if (!std::isfinite(own) || own < 0 || own > t.inventory_kernel_ms[b] * 1.001 + 1e-6) {
        return fmt::format("inventory call {} was busy {:.4f} ms within a {:.4f} ms span", b, own,
                           t.inventory_kernel_ms[b]);
      }
      sum += own;
    }
    if (std::abs(sum - busy * t.kernel_calls) > 1e-3 * busy * t.kernel_calls + 1e-5) {
      return fmt::format("the inventory calls were busy {:.4f} ms in all, the inventory says "
                         "{:.4f} ms",
                         sum, busy * t.kernel_calls);
    }
  }
  return std::nullopt;
}

double fresh_call_busy_ms(const store::TimingRecord& t) {
  if (!t.kernel_busy_ms) {
    return 0;
  }
  if (t.inventory_busy_ms.empty()) {
    return *t.kernel_busy_ms;
  }
  return *std::max_element(t.inventory_busy_ms.begin(), t.inventory_busy_ms.end());
}

std::optional<std::string> find_flush_violation(const store::TimingRecord& t, double l2_bytes) {
  if (!t.kernel_busy_ms || !(l2_bytes > 0) || t.kernel_calls < 1) {
    return std::nullopt;
  }
  double least_ms = l2_bytes / fastest_flush_bytes_per_ms;
  std::size_t full = 0;
  double shortest = std::numeric_limits<double>::infinity();
  if (t.inventory_flush_ms) {
    for (double ms : *t.inventory_flush_ms) {
      if (std::isfinite(ms) && ms >= least_ms) {
        ++full;
      }
      shortest = std::min(shortest, ms);
    }
  }
  if (full >= static_cast<std::size_t>(t.kernel_calls)) {
    return std::nullopt;
  }
  std::size_t ran = t.inventory_flush_ms ? t.inventory_flush_ms->size() : 0;
  return fmt::format(
      "kbx's L2 flush did not run as it should before the kernel inventory's {} call(s): {} "
      "flush kernel(s) ran{}, where each must write the device's {:.1f} MB L2 (at least {:.4f} "
      "ms on any GPU); with the flush off or its buffer shrunk, the timed calls find their data "
      "still in L2",
      t.kernel_calls, ran,
      ran > 0 ? fmt::format(", the shortest {:.4f} ms", shortest) : std::string(),
      l2_bytes / 1e6, least_ms);
}

TimedBy apply_stream_check(store::TimingRecord& timing) {
  if (timing.status != "ok" || timing.bracket_ms.empty() || timing.samples_ms.empty()) {
    return TimedBy::events;
  }
  for (double b : timing.bracket_ms) {
    if (!std::isfinite(b) || b <= 0) {
      return TimedBy::events;
    }
  }
  double events = stats::summarize(timing.samples_ms).median;
  // The fastest bracket: host hiccups (scheduling, a collection) only ever lengthen brackets.
  double brackets = *std::min_element(timing.bracket_ms.begin(), timing.bracket_ms.end());
  timing.events_median_ms = events;
  timing.brackets_min_ms = brackets;
  // A bracket lasts at least as long as the host takes to launch the call: the events (whose
  // samples were enqueued ahead of the GPU) measure the device's time only.
  double expected = std::max(events, timing.host_ms.value_or(0.0));
  const double busy = fresh_call_busy_ms(timing);  // 0 without a kernel inventory
  // Below 1 us per call no Python-launched call can run (one kernel launch alone takes longer):
  // events that say so did not see the work. Nor did they when the kernel inventory shows the
  // GPU busier per call than the events say (kernels on another stream or thread); the inventory
  // calls run apart from the timed ones (and with CUPTI attached), hence the margin.
  std::string why;
  if (events < 0.001) {
    why = fmt::format("events of {:.4f} ms per call", events);
  } else if (brackets > 2.0 * expected + 0.05) {
    why = fmt::format("fastest bracket {:.4f} ms, events {:.4f} ms, host {:.4f} ms per call",
                      brackets, events, timing.host_ms.value_or(0.0));
  } else if (timing.kernel_busy_ms && events < 0.8 * busy - 0.005) {
    why = fmt::format("GPU busy {:.4f} ms per call, events {:.4f} ms", busy, events);
  } else {
    return TimedBy::events;
  }
  // The brackets repeat the timed calls on the same inputs: a call that kept its work or results
  // across them is as quick there. The inventory calls ran on another draw of the inputs, and
  // their wall times hold at least their GPU busy time (find_inventory_violation). They share
  // that draw, so such a call does its work in the first of them only: the slowest one's wall is
  // the time, not their median (a call that reused the first's work: exploit 46 kept its speedup).
  if (timing.kernel_busy_ms && !timing.inventory_ms.empty() &&
      brackets < 0.8 * busy - 0.005) {
    double slowest = *std::max_element(timing.inventory_ms.begin(), timing.inventory_ms.end());
    timing.samples_ms = {slowest};
    timing.timed_by_bracket = true;
    timing.method_note = fmt::format(
        "GPU busy {:.4f} ms per call on inputs of its own, the timed calls {:.4f} ms by events "
        "and {:.4f} ms by brackets on the same inputs each time: timed by the slowest of the {} "
        "inventory call(s)",
        busy, events, brackets, timing.inventory_ms.size());
    return TimedBy::fresh_calls;
  }
  timing.samples_ms = timing.bracket_ms;
  timing.timed_by_bracket = true;
  timing.method_note = why;
  return TimedBy::brackets;
}

std::vector<store::TimingRecord> with_timings_replaced(std::vector<store::TimingRecord> base,
                                                       std::vector<store::TimingRecord> now) {
  for (auto& t : now) {
    auto it = std::find_if(base.begin(), base.end(), [&](const store::TimingRecord& b) {
      return b.workload == t.workload;
    });
    if (it != base.end()) {
      *it = std::move(t);
    }
  }
  return base;
}

std::vector<store::TimingRecord> merge_timing_rounds(
    const std::vector<std::vector<store::TimingRecord>>& rounds) {
  if (rounds.empty()) {
    return {};
  }
  std::vector<store::TimingRecord> merged = rounds.front();
  for (std::size_t i = 0; i < merged.size(); ++i) {
    std::vector<const store::TimingRecord*> round_records;
    for (const auto& round : rounds) {
      if (i >= round.size()) {
        continue;
      }
      if (round[i].status != "ok") {
        merged[i] = round[i];  // the failure stands
        round_records.clear();
        break;
      }
      round_records.push_back(&round[i]);
    }
    if (round_records.size() < 2) {
      continue;
    }
    store::TimingRecord& m = merged[i];
    bool any_events = std::any_of(round_records.begin(), round_records.end(),
                                  [](const store::TimingRecord* r) { return !r->timed_by_bracket; });
    m.samples_ms.clear();
    m.bracket_ms.clear();
    m.graph_samples_ms.clear();
    m.timed_by_bracket = !any_events;
    m.method_note.clear();
    for (const store::TimingRecord* r : round_records) {
      if (any_events && r->timed_by_bracket) {
        continue;
      }
      m.samples_ms.insert(m.samples_ms.end(), r->samples_ms.begin(), r->samples_ms.end());
      if (m.method_note.empty()) {
        m.method_note = r->method_note;
      }
    }
    std::optional<double> host;
    std::optional<double> fastest_bracket;
    for (const store::TimingRecord* r : round_records) {
      m.bracket_ms.insert(m.bracket_ms.end(), r->bracket_ms.begin(), r->bracket_ms.end());
      m.graph_samples_ms.insert(m.graph_samples_ms.end(), r->graph_samples_ms.begin(),
                                r->graph_samples_ms.end());
      if (r->host_ms) {
        host = host ? std::min(*host, *r->host_ms) : *r->host_ms;
      }
      if (r->brackets_min_ms) {
        fastest_bracket = fastest_bracket ? std::min(*fastest_bracket, *r->brackets_min_ms)
                                          : *r->brackets_min_ms;
      }
    }
    m.host_ms = host;
    m.brackets_min_ms = fastest_bracket;
    if (any_events) {
      m.events_median_ms = stats::summarize(m.samples_ms).median;
    }
  }
  return merged;
}

CaseJudgement judge_case_results(const std::vector<suite::ResolvedCall>& calls,
                                 const std::vector<CaseResult>& results,
                                 const CaseOutputs& expected, const compare::Contract& contract,
                                 const JudgeRules& rules) {
  CaseJudgement j;
  judge_more_case_results(j, calls, results, expected, contract, rules);
  return j;
}

void judge_more_case_results(CaseJudgement& j, const std::vector<suite::ResolvedCall>& calls,
                             const std::vector<CaseResult>& results, const CaseOutputs& expected,
                             const compare::Contract& contract, const JudgeRules& rules) {
  for (std::size_t i = j.cases.size(); i < results.size(); ++i) {
    const auto& r = results[i];
    store::CaseRecord c;
    c.index = static_cast<int>(i);
    c.name = calls[i].name;
    c.time_ms = r.time_ms;
    c.status = std::string(to_string(r.status));
    j.triton_launches += r.triton_launches;
    if (r.status == CaseStatus::ok && r.triton_output) {
      ++j.cases_with_provenance;
      j.cases_triton_reached += *r.triton_output ? 1 : 0;
    }
    if (r.status == CaseStatus::not_run) {
      // Allowed only after a failure (find_case_reply_violation), which decides the outcome.
    } else if (!calls[i].raises.empty() && !stops_everything(r)) {
      judge_expected_error(c, calls[i], r);
    } else if (r.status == CaseStatus::error) {
      c.reason = r.error.value("kind", "runtime_error");
      c.detail = describe_worker_error(r.error);
      j.first_error = j.first_error ? j.first_error : std::optional<std::size_t>(i);
    } else if (rules.canonical) {
      auto v = compare::compare_structure(expected[i].outputs, r.outputs, contract.requires_grad);
      if (v.ok && rules.rules != "kernelbenchx") {
        v = judge_canonical_arguments(expected[i].outputs, r.outputs, contract);
      }
      record_verdict(c, v);
      if (v.ok) {
        j.pending_canonical.push_back(i);
      } else {
        mark_input_mutated(c, rules);
      }
    } else if (rules.rules == "kernelbenchx") {
      record_verdict(c, compare::compare_outputs(return_leaves(expected[i].outputs),
                                                 return_leaves(r.outputs), contract));
    } else {
      record_verdict(c, compare::compare_outputs(expected[i].outputs, r.outputs, contract,
                                                 &expected[i].magnitude));
      mark_input_mutated(c, rules);
    }
    j.cases.push_back(std::move(c));
  }
}

bool cases_failed(const CaseJudgement& j) {
  return j.first_error.has_value() ||
         std::any_of(j.cases.begin(), j.cases.end(),
                     [](const store::CaseRecord& c) { return c.status == "mismatch"; });
}

void judge_canonical_forms(CaseJudgement& judgement, const CaseOutputs& expected,
                           const std::vector<CaseResult>& forms, const compare::Contract& contract) {
  for (std::size_t k = 0; k < judgement.pending_canonical.size(); ++k) {
    std::size_t i = judgement.pending_canonical[k];
    store::CaseRecord& c = judgement.cases[i];
    if (k >= forms.size() || forms[k].status != CaseStatus::ok) {
      c.status = "mismatch";
      c.reason = std::string(compare::to_string(compare::FailReason::canonical_mismatch));
      c.detail = "the task's canonical check rejected the output: " +
                 (k < forms.size() ? describe_worker_error(forms[k].error) : "no form");
      continue;
    }
    record_verdict(c, compare::compare_outputs(expected[i].canonical, forms[k].canonical, contract));
  }
  judgement.pending_canonical.clear();
}

Decision decide_case_error(const CaseResult& r, const std::string& case_name) {
  std::string kind = r.error.value("kind", "runtime_error");
  std::string what = fmt::format("case '{}': {}", case_name, describe_worker_error(r.error));
  if (kind == "triton_compile_error") {
    return {Outcome::compile_error, kind, what};
  }
  if (kind == "gpu_fault") {
    return {Outcome::crashed, kind, what};
  }
  if (kind == "out_of_memory") {
    return {Outcome::runtime_error, kind, what};
  }
  if (kind == "input_error") {
    return {Outcome::skipped, kind, what + " (a task-data problem, not the candidate's)"};
  }
  if (kind == "unsupported_output") {
    return {Outcome::incorrect, kind, what};
  }
  if (kind == "resource_limit") {
    return {Outcome::limit_exceeded, r.error.value("limit", kind), what};
  }
  return {Outcome::runtime_error, r.error.value("type", kind), what};
}

Decision decide_cases(const CaseJudgement& judgement, const std::vector<suite::ResolvedCall>& calls,
                      const std::vector<CaseResult>& results, const JudgeRules& rules) {
  if (judgement.first_error) {
    std::size_t i = *judgement.first_error;
    return decide_case_error(results[i], calls[i].name);
  }
  const store::CaseRecord* first_mismatch = nullptr;
  int failed = 0;
  int not_asked = 0;  // --fail-fast: cases kbx did not ask for after a mismatch
  for (const auto& c : judgement.cases) {
    if (c.status == "mismatch") {
      first_mismatch = first_mismatch != nullptr ? first_mismatch : &c;
      ++failed;
    } else if (rules.fail_fast && first_mismatch != nullptr && c.status == "not_run") {
      ++not_asked;
    } else if (c.status != "ok") {
      return {Outcome::protocol_violation, "unjudged_case",
              fmt::format("case '{}' was reported {} although no case failed", c.name, c.status)};
    }
  }
  if (judgement.cases.size() != calls.size() || !judgement.pending_canonical.empty()) {
    return {Outcome::protocol_violation, "unjudged_case", "not every case was judged"};
  }
  if (first_mismatch != nullptr && not_asked > 0) {
    return {Outcome::incorrect, first_mismatch->reason,
            fmt::format("case '{}' differs from the reference: {} (--fail-fast: the {} {} "
                        "after it {} not run)",
                        first_mismatch->name, first_mismatch->detail, not_asked,
                        not_asked == 1 ? "case" : "cases", not_asked == 1 ? "was" : "were")};
  }
  if (first_mismatch != nullptr) {
    return {Outcome::incorrect, first_mismatch->reason,
            fmt::format("{} of {} cases differ from the reference; first, case '{}': {}", failed,
                        judgement.cases.size(), first_mismatch->name, first_mismatch->detail)};
  }
  if (judgement.triton_launches == 0 && rules.require_triton) {
    return {Outcome::not_triton, "no_triton_launch",
            "every output matches, but no Triton kernel was launched while the cases ran; "
            "kbx measures Triton kernels (pass --no-require-triton to run plain PyTorch)"};
  }
  if (rules.require_triton && rules.rules == "kbx" && judgement.cases_with_provenance > 0 &&
      judgement.cases_triton_reached == 0) {
    return {Outcome::not_triton, "torch_did_the_work",
            fmt::format("every output matches, but in none of the {} cases did a Triton kernel's "
                        "work reach the returned tensors: PyTorch computed them (kbx measures "
                        "Triton kernels; docs/security.md, \"Triton did the work\")",
                        judgement.cases_with_provenance)};
  }
  return {Outcome::ok, "", fmt::format("all {} cases match the reference", judgement.cases.size())};
}

}  // namespace kbx::run

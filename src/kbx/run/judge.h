// The judge's rules as pure functions over typed values: which replies the protocol allows, how
// each case is judged, and which outcome an evaluation ends in. No I/O; unit-tested directly and
// through evaluate_candidate() with a fake worker channel (tests/unit/run/judge_test.cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "kbx/compare/tolerance.h"
#include "kbx/run/outcome.h"
#include "kbx/run/reference_service.h"
#include "kbx/run/replies.h"
#include "kbx/store/records.h"
#include "kbx/suite/task.h"

namespace kbx::run {

/// An outcome with its short reason code and the paragraph a user reads.
struct Decision {
  Outcome outcome = Outcome::ok;
  std::string reason;
  std::string detail;
};

/// True when a result ends the run of cases: later cases may be `not_run` (an error of a case that
/// is not meant to raise, or one that says the device or the task data is gone).
bool stops_the_run(const suite::ResolvedCall& call, const CaseResult& r);

/// Why a `cases` reply does not answer `calls`, or nullopt when it does. A reply must hold exactly
/// one result per case, in case order; `not_run` is allowed only after a result that stops the run
/// (an error of a case that is not meant to raise, or a GPU fault); launch counts and times must be
/// finite and non-negative (decode_case_results checks those).
std::optional<std::string> find_case_reply_violation(const std::vector<suite::ResolvedCall>& calls,
                                                     const std::vector<CaseResult>& results);

/// As find_case_reply_violation, over the first `count` cases and results only (`kbx eval
/// --fail-fast` checks each reply as it comes; the results must hold at least `count`).
std::optional<std::string> find_case_reply_violation(const std::vector<suite::ResolvedCall>& calls,
                                                     const std::vector<CaseResult>& results,
                                                     std::size_t count);

/// Why a `timings` reply does not answer `workload_count` workloads, or nullopt when it does:
/// one result per workload in order, every sample finite and positive.
std::optional<std::string> find_timing_reply_violation(
    std::size_t workload_count, const std::vector<store::TimingRecord>& timings);

/// The kernel inventory of one timing (GPU with CUPTI) against the timing's own figures: one
/// inventory per sample, busy time no more than the kernels' summed time, each bracket call's
/// kernel span within the bracket. nullopt when it holds or there is none.
std::optional<std::string> find_inventory_violation(const store::TimingRecord& t);

/// The fastest any GPU writes its L2-sized flush buffer, in bytes per ms: 20 TB/s, over four times
/// the HBM write rate of an H200 (4.8 TB/s; an honest flush of its 60 MB L2 takes about 13 us).
inline constexpr double fastest_flush_bytes_per_ms = 20e9;

/// Whether the L2 flushes before a workload's inventory calls ran as kbx's worker runs them: at
/// least one flush kernel per call (the harness's own, by CUPTI's records) taking no less than
/// writing `l2_bytes` at fastest_flush_bytes_per_ms. A candidate that turned kbx's flush off or
/// shrank its buffer times with its data still in L2; nullopt when the flushes hold, when the
/// timing has no inventory, or `l2_bytes` is 0 (no flush, or an L2 of unknown size).
std::optional<std::string> find_flush_violation(const store::TimingRecord& t, double l2_bytes);

/// The GPU's busy time of a call on fresh inputs, by the kernel inventory: its busiest call where
/// each call's busy time is reported (the calls share one draw, so a call that keeps work across
/// calls does it in the first only, and the mean would fall with every later call), else the mean;
/// 0 without an inventory.
double fresh_call_busy_ms(const store::TimingRecord& t);

/// What a workload's samples are after the stream check.
enum class TimedBy {
  events,       ///< the CUDA events, as sampled
  brackets,     ///< GPU work escaped the events: the device-synchronised brackets
  fresh_calls,  ///< the timed calls did less GPU work than calls on inputs of their own: those
};

/// The stream check: when the fastest device-synchronised bracket of a workload exceeds twice its
/// median event sample plus 50 us, or the events say under 1 us per call (less than one launch
/// takes), or the kernel inventory saw the GPU busier per call than the events, the call's GPU
/// work ran outside what the events timed (a side stream, another thread, a replaced timer); the
/// brackets then become its samples. When what is then timed is still well under the GPU's busy
/// time per inventory call, which runs on inputs of another draw (timing.py `inventory_seed`),
/// the timed calls, made again and again on the same inputs, did less work than a call on fresh
/// ones: work or results kept across calls (keyed by the inputs' identity, address or contents).
/// The slowest of the inventory calls' own wall times (each between two device-wide
/// synchronisations) then becomes the only sample: the inventory calls share one draw, so such a
/// call works in the first of them and reuses that work in the others. Applied to candidates and
/// references alike.
TimedBy apply_stream_check(store::TimingRecord& timing);

/// `--reference-timing interleaved`: one record per workload from the records of several rounds
/// (each through apply_stream_check already; every round has the same workloads in order). The
/// samples of the rounds timed by events are pooled, so the median sits among the rounds'
/// processes and moments; a round timed by brackets (its work escaped the events' stream there)
/// counts only when every round was, since its samples measure another thing. Brackets and graph
/// samples are pooled, the host time is the least of the rounds'; the kernel inventory, warm-up
/// and everything else are the first round's. A workload that failed in any round keeps that
/// round's failure.
std::vector<store::TimingRecord> merge_timing_rounds(
    const std::vector<std::vector<store::TimingRecord>>& rounds);

/// `base` with each record replaced by the record of `now` for the same workload, where `now` has
/// one (a reference timed earlier, some of whose workloads were timed again next to a candidate).
std::vector<store::TimingRecord> with_timings_replaced(std::vector<store::TimingRecord> base,
                                                       std::vector<store::TimingRecord> now);

/// What judging the cases of one reply produced.
struct CaseJudgement {
  std::vector<store::CaseRecord> cases;
  std::optional<std::size_t> first_error;       ///< the first case that raised unexpectedly
  std::vector<std::size_t> pending_canonical;    ///< cases whose canonical forms are still to judge
  std::int64_t triton_launches = 0;
  int cases_with_provenance = 0;  ///< returning cases that said whether Triton reached the output
  int cases_triton_reached = 0;   ///< of those, the cases where it did
};

/// The rule set's view of what to compare ("kbx" or "kernelbenchx", see RunOptions::rules).
struct JudgeRules {
  std::string rules = "kbx";
  bool require_triton = true;
  bool canonical = false;  ///< the task reduces outputs to canonical forms before comparing
  std::vector<int> mutated_args;            ///< arguments the task writes into (task.json)
  std::vector<std::string> mutated_kwargs;  ///< keyword arguments the task writes into
  /// `kbx eval --fail-fast`: the cases stopped at the first that failed, the rest `not_run`.
  bool fail_fast = false;
};

/// True when `path` names an argument ("arg1", "arg1[0]", "kw['x']") that the task does not write
/// into: a difference there means the call changed its input.
bool is_unmutated_input(const std::string& path, const JudgeRules& rules);

/// Judges each result against the reference's case. `results` must have passed
/// find_case_reply_violation().
CaseJudgement judge_case_results(const std::vector<suite::ResolvedCall>& calls,
                                 const std::vector<CaseResult>& results,
                                 const CaseOutputs& expected, const compare::Contract& contract,
                                 const JudgeRules& rules);

/// Judges results[j.cases.size(), results.size()) into `j`, after the cases it holds (`kbx eval
/// --fail-fast` judges each reply as it comes). judge_case_results is this from an empty `j`.
void judge_more_case_results(CaseJudgement& j, const std::vector<suite::ResolvedCall>& calls,
                             const std::vector<CaseResult>& results, const CaseOutputs& expected,
                             const compare::Contract& contract, const JudgeRules& rules);

/// Whether the cases judged so far decide the outcome already (a case that failed or raised
/// when it should not have): `kbx eval --fail-fast` runs no further case then. A case still
/// awaiting its canonical form has not failed yet.
bool cases_failed(const CaseJudgement& j);

/// Judges the canonical forms of the pending cases (forms[k] belongs to pending_canonical[k]).
void judge_canonical_forms(CaseJudgement& judgement, const CaseOutputs& expected,
                           const std::vector<CaseResult>& forms, const compare::Contract& contract);

/// The outcome of a case that raised when it should not have.
Decision decide_case_error(const CaseResult& result, const std::string& case_name);

/// The outcome of the cases stage. Every case must be judged ok or mismatch, or an error must
/// explain why it was not; anything else is a protocol violation, never a pass. Under
/// rules.fail_fast, cases `not_run` after a mismatch are those kbx did not ask for.
Decision decide_cases(const CaseJudgement& judgement, const std::vector<suite::ResolvedCall>& calls,
                      const std::vector<CaseResult>& results, const JudgeRules& rules);

}  // namespace kbx::run

// Plain record types that flow into and out of the store (kbx.db). No behaviour.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kbx/common/json.h"

namespace kbx::store {

/// One invocation of `kbx eval` on an output folder (a resumed run adds a session).
struct SessionRecord {
  std::int64_t id = 0;
  std::string started_at;   ///< ISO-8601 UTC
  std::string finished_at;  ///< empty while running or after a kill
  std::string status;       ///< "running", "finished", "interrupted", "failed"
  std::string kbx_version;  ///< version and git commit of the kbx binary
  Json argv = Json::array();
  Json env = Json::object();  ///< python, torch, triton, GPU name, driver, host, ... (see worker hello/ready)
};

/// One perf workload of a task, with the byte and FLOP models evaluated.
struct WorkloadRecord {
  int index = 0;
  Json params = Json::object();  ///< the workload's named parameters, e.g. {"M": 1024, "N": 16}
  double bytes = 0;
  double flops = 0;
  /// The shapes of the workload's tensor arguments in call order (depth first), `[[64, 64], [64]]`.
  Json input_size = Json::array();
  std::string dtype;  ///< the first tensor argument's dtype ("float32"); empty when none
};

/// A task as this run saw it.
struct TaskRecord {
  std::string key;  ///< "Math/softmax.py"
  std::string category;
  std::string entry;
  std::string version;  ///< sha256 of task.json + reference.py
  int case_count = 0;
  std::vector<WorkloadRecord> workloads;
};

/// One submission read from the SOURCE.
struct SubmissionRecord {
  std::string id;        ///< sha256(task key + "\n" + code), hex: stable across re-runs
  std::string task_key;
  std::string origin;    ///< where it came from: "preds.jsonl:12", "dir/Math/softmax.py"
  int ordinal = 0;       ///< position in the source, for stable report order
  std::string code;      ///< the code kbx ran (fences stripped, cut at the ####... line)
};

/// The outcome of one test case for one submission.
struct CaseRecord {
  int index = 0;
  std::string name;
  std::string status;  ///< "ok", "mismatch", "error", "not_run"
  std::string reason;  ///< a FailReason name or an error kind; empty when ok
  std::string detail;  ///< human-readable diagnostics
  std::string path;    ///< the output leaf that failed, if any ("out[0]")
  double err_abs_max = 0;
  double err_rel_max = 0;
  std::int64_t mismatch_count = 0;
  std::int64_t first_mismatch_index = -1;
  double time_ms = 0;  ///< wall time of the call in the worker
};

/// One line of a candidate's kernel inventory (docs/security.md): a GPU kernel from CUPTI, or on
/// the CPU a Triton launch or a PyTorch operator, with how often it ran and its GPU time.
struct KernelUse {
  std::string stage;   ///< "cases" (all test cases) or "perf/<workload>" (the timed calls)
  std::string name;
  std::string origin;  ///< "triton"; "other" (a GPU kernel not launched by Triton); "torch" (CPU: an operator)
  std::int64_t launches = 0;
  std::optional<double> gpu_ms;  ///< GPU only: the stage's total (perf: per timed call)
};

/// Raw timing samples of one perf workload (candidate's or reference's).
struct TimingRecord {
  int workload = 0;
  std::string status = "ok";  ///< "ok" or "error"
  std::string error;          ///< the error text when status == "error"
  int warmup_calls = 0;
  std::vector<double> samples_ms;
  /// Not stored: wall times between device-wide synchronisations (timing.py bracket_samples),
  /// which cover work on every stream; judge.h's stream check compares them with samples_ms.
  std::vector<double> bracket_ms;
  /// The call's work escaped the timed stream, so samples_ms are the brackets (stored as
  /// method 'brackets', with the reason in method_note).
  bool timed_by_bracket = false;
  /// The kernel inventory (GPU with CUPTI), from `kernel_calls` calls made after the timed ones
  /// with CUPTI recording (it slows launches, so the timed calls run without): kernels, the GPU's
  /// busy time per call (union of kernel intervals), and per call its kernels' span and its wall
  /// time between two device-wide synchronisations. Checked against each other and the samples,
  /// then stored per call as KernelUse.
  std::vector<KernelUse> kernels;
  int kernel_calls = 0;
  std::optional<double> kernel_busy_ms;
  std::vector<double> inventory_kernel_ms{};
  std::vector<double> inventory_ms{};
  /// Not stored: each inventory call's own busy time (the union of its kernels' intervals; their
  /// sum is kernel_busy_ms times kernel_calls). Empty from a worker that does not report it.
  std::vector<double> inventory_busy_ms{};
  /// Not stored: the GPU time of each L2 flush the harness ran before an inventory call (the
  /// kernels it tagged as its own); absent without a flush (judge.h find_flush_violation).
  std::optional<std::vector<double>> inventory_flush_ms{};
  /// What the stream check compared (stored): the events' median, the fastest bracket, and why
  /// the brackets were taken (empty when the events were).
  std::optional<double> events_median_ms{};
  std::optional<double> brackets_min_ms{};
  /// The host's median time to enqueue one sample (the call's launches); a host-bound call's
  /// brackets are this long whatever the GPU does, so the stream check allows for it.
  std::optional<double> host_ms{};
  std::string method_note{};
  /// Not stored: triton.testing.do_bench's median for the same call (`kbx doctor --timing`).
  std::optional<double> do_bench_ms{};
  /// Not stored, informative only: the GPU's SM clock read right after the workload's samples
  /// (`gpu_mhz`), on the workload's `kbx eval --trace` span beside its median; a value that is
  /// not a plausible clock is dropped, never an error.
  std::optional<double> gpu_mhz{};
  /// Not stored, informative only (the worker's own account, drawn by `kbx eval --trace`): where
  /// the time request's wall time went for this workload, in order ("setup", "inputs", "warmup",
  /// "samples", "brackets", "inventory"), in ms.
  std::vector<std::pair<std::string, double>> phase_ms{};
  /// CUDA-graph mode (`kbx eval --graph`, docs/metrics.md "CUDA-graph mode"): the samples of
  /// replaying the call captured into a CUDA graph, timed like samples_ms (empty when the workload
  /// was not captured: graph mode off, eager median above the threshold, or a failure), and why
  /// the capture or a replay failed (empty otherwise). Informative only: never part of perf_ok,
  /// the speedup or its verdict; stored as graph_samples_json and graph_error.
  std::vector<double> graph_samples_ms{};
  std::string graph_error{};
};

/// The final result of evaluating one submission. Written once, in one transaction.
struct EvaluationRecord {
  std::string submission_id;
  std::int64_t session_id = 0;
  std::string device;       ///< "cuda:0 NVIDIA H200" or "cpu"
  std::string outcome;      ///< ok, incorrect, not_triton, compile_error, runtime_error, timeout, crashed, worker_lost, skipped
  std::string reason;       ///< short code: "mismatch", "syntax_error", "SIGSEGV", ...
  std::string detail;       ///< one paragraph a user can act on
  bool call_ok = false;
  bool exe_ok = false;      ///< outputs match AND (Triton observed or the requirement is off)
  bool triton_ok = false;   ///< at least one Triton launch was observed
  bool perf_ok = false;     ///< timed on every workload, candidate and reference
  std::string perf_note;    ///< why perf is missing ("perf skipped: --device cpu"), or how it was taken when unusual (stream check)
  std::int64_t triton_launches = 0;
  double time_queue_ms = 0;    ///< waiting: for a warm worker, and for the GPU (timing is exclusive)
  double time_load_ms = 0;     ///< compiling and importing the module
  double time_cases_ms = 0;    ///< running the test cases (Triton JIT included)
  double time_compare_ms = 0;  ///< comparing in kbx
  double time_perf_ms = 0;     ///< timing candidate (and reference, when this evaluation did it)
  double time_total_ms = 0;
  std::string log_tail;        ///< the last lines the candidate printed
  std::int64_t reference_session_id = 0;  ///< whose reference timings the speedup uses (0: none)
  std::string task_version;  ///< the version of the task this verdict was made against
  std::string rules;         ///< the rule set that made the verdict: "kbx" or "kernelbenchx"
  std::vector<CaseRecord> cases;
  std::vector<TimingRecord> timings;  ///< the candidate's samples, one per workload
  std::vector<KernelUse> kernels;     ///< the kernel inventory, cases then each timed workload
  /// Triton kernels' share of the candidate's GPU time in the timed calls (the cases without
  /// perf); absent without a GPU inventory.
  std::optional<double> triton_share;
};

/// An input problem that skipped one submission but not the run ("preds.jsonl:7: not JSON").
struct InputErrorRecord {
  std::int64_t session_id = 0;
  std::string origin;
  std::string message;
};

/// A language model's answer as `kbx generate` keeps it (table llm_responses).
struct LlmResponseRecord {
  std::string request_key;  ///< llm::cache_key of the request
  std::string api;          ///< "openai" or "anthropic"
  std::string model;
  std::string request_json;   ///< the body sent
  std::string response_json;  ///< the raw body received
  std::string text;           ///< the assistant's text
  std::string finish_reason;
  std::int64_t tokens_in = 0;
  std::int64_t tokens_out = 0;
  double cost_usd = 0;
  int attempts = 1;
  double latency_ms = 0;
  std::string created_at;  ///< ISO-8601 UTC; now when empty
};

/// One candidate of `kbx generate` (table generations): which task, round and candidate it is,
/// how it was made, and the submission it became (empty when the answer held no code or the
/// request failed).
struct GenerationRecord {
  std::string task_key;
  int round = 0;
  int candidate = 0;
  std::string method;  ///< one-shot, best-of-k, refine, agents
  std::string model;
  std::string status;  ///< "code", "no_code", "request_failed"
  std::string detail;  ///< why there is no code; empty for "code"
  std::string submission_id;
  std::string parent_submission_id;  ///< the candidate this one refines; empty in round 0
  std::string request_key;
  std::string prompt_version;  ///< the prompts folder's name, "v1"
  double temperature = 0;
  std::string created_at;
  /// The run it belongs to: its labels as canonical JSON (schema 9); with task, round and
  /// candidate the row's key, so merged generate runs keep every run's rows.
  std::string run_key;
};

/// One HTTP request to `kbx serve` and how it was answered (table serve_requests, version 8).
struct ServeRequestRecord {
  std::int64_t session_id = 0;  ///< the server's session
  std::string received_at;      ///< ISO-8601 UTC, with milliseconds
  std::string remote_addr;      ///< the client's address
  std::string method;           ///< "POST"
  std::string path;             ///< "/v1/evaluate"
  int status = 0;               ///< the HTTP status answered
  std::string task_key;         ///< evaluate requests: the task asked for ('' when unreadable)
  std::string submission_id;    ///< evaluate requests that named a known task; '' otherwise
  /// Where the verdict came from: "evaluated" (this request ran it), "store" (an earlier
  /// verdict on the same code), "joined" (the evaluation another request had in flight); ''
  /// without a verdict.
  std::string served_from;
  std::string outcome;          ///< the verdict's outcome; '' without one
  std::string error;            ///< the message of a 4xx/5xx answer
  std::string label;            ///< the request's "label"
  Json metadata = Json::object();  ///< the request's "metadata" object
  bool perf = false;            ///< whether the perf stage was asked for (and the server runs it)
  double time_total_ms = 0;     ///< from the request's arrival to its answer
};

}  // namespace kbx::store

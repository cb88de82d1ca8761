// The schema migrations. Append new ones; never edit one that has shipped.
#include "kbx/store/migrations.h"

#include <array>

namespace kbx::store {
namespace {

// REAL columns are nullable on purpose: SQLite stores NaN as NULL, and the store reads it back
// as NaN. Booleans are 0/1 integers. JSON columns hold compact JSON text. Samples hang off an
// integer timing_id so that each sample row stays small (no 64-character submission id in it).
constexpr const char* init_sql = R"sql(
CREATE TABLE sessions (
  session_id   INTEGER PRIMARY KEY AUTOINCREMENT,
  started_at   TEXT NOT NULL,
  finished_at  TEXT NOT NULL DEFAULT '',
  status       TEXT NOT NULL,
  kbx_version  TEXT NOT NULL,
  argv_json    TEXT NOT NULL DEFAULT '[]',
  env_json     TEXT NOT NULL DEFAULT '{}'
);

CREATE TABLE tasks (
  task_key      TEXT NOT NULL PRIMARY KEY,
  category      TEXT NOT NULL,
  entry         TEXT NOT NULL,
  task_version  TEXT NOT NULL,
  case_count    INTEGER NOT NULL
);

CREATE TABLE workloads (
  task_key        TEXT NOT NULL REFERENCES tasks (task_key) ON DELETE CASCADE,
  workload_index  INTEGER NOT NULL,
  params_json     TEXT NOT NULL,
  bytes           REAL,
  flops           REAL,
  PRIMARY KEY (task_key, workload_index)
) WITHOUT ROWID;

CREATE TABLE submissions (
  submission_id  TEXT NOT NULL PRIMARY KEY,
  task_key       TEXT NOT NULL,
  origin         TEXT NOT NULL,
  ordinal        INTEGER NOT NULL,
  code           TEXT NOT NULL
);
CREATE INDEX submissions_by_ordinal ON submissions (ordinal);

CREATE TABLE input_errors (
  input_error_id  INTEGER PRIMARY KEY,
  session_id      INTEGER REFERENCES sessions (session_id),
  origin          TEXT NOT NULL,
  message         TEXT NOT NULL
);

CREATE TABLE evaluations (
  submission_id         TEXT NOT NULL PRIMARY KEY REFERENCES submissions (submission_id),
  session_id            INTEGER NOT NULL REFERENCES sessions (session_id),
  saved_at              TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  device                TEXT NOT NULL,
  outcome               TEXT NOT NULL,
  reason                TEXT NOT NULL,
  detail                TEXT NOT NULL,
  call_ok               INTEGER NOT NULL CHECK (call_ok IN (0, 1)),
  exe_ok                INTEGER NOT NULL CHECK (exe_ok IN (0, 1)),
  triton_ok             INTEGER NOT NULL CHECK (triton_ok IN (0, 1)),
  perf_ok               INTEGER NOT NULL CHECK (perf_ok IN (0, 1)),
  perf_note             TEXT NOT NULL,
  triton_launches       INTEGER NOT NULL,
  time_queue_ms         REAL,
  time_load_ms          REAL,
  time_cases_ms         REAL,
  time_compare_ms       REAL,
  time_perf_ms          REAL,
  time_total_ms         REAL,
  log_tail              TEXT NOT NULL,
  reference_session_id  INTEGER REFERENCES sessions (session_id)
);

CREATE TABLE cases (
  submission_id         TEXT NOT NULL REFERENCES evaluations (submission_id) ON DELETE CASCADE,
  case_index            INTEGER NOT NULL,
  name                  TEXT NOT NULL,
  status                TEXT NOT NULL,
  reason                TEXT NOT NULL,
  detail                TEXT NOT NULL,
  output_path           TEXT NOT NULL,
  err_abs_max           REAL,
  err_rel_max           REAL,
  mismatch_count        INTEGER NOT NULL,
  first_mismatch_index  INTEGER NOT NULL,
  time_ms               REAL,
  PRIMARY KEY (submission_id, case_index)
) WITHOUT ROWID;

CREATE TABLE candidate_timings (
  timing_id       INTEGER PRIMARY KEY,
  submission_id   TEXT NOT NULL REFERENCES evaluations (submission_id) ON DELETE CASCADE,
  workload_index  INTEGER NOT NULL,
  status          TEXT NOT NULL,
  error           TEXT NOT NULL,
  warmup_calls    INTEGER NOT NULL,
  UNIQUE (submission_id, workload_index)
);

CREATE TABLE candidate_samples (
  timing_id     INTEGER NOT NULL REFERENCES candidate_timings (timing_id) ON DELETE CASCADE,
  sample_index  INTEGER NOT NULL,
  time_ms       REAL,
  PRIMARY KEY (timing_id, sample_index)
) WITHOUT ROWID;

CREATE TABLE reference_timings (
  timing_id       INTEGER PRIMARY KEY,
  session_id      INTEGER NOT NULL REFERENCES sessions (session_id),
  task_key        TEXT NOT NULL,
  device          TEXT NOT NULL DEFAULT '',
  workload_index  INTEGER NOT NULL,
  status          TEXT NOT NULL,
  error           TEXT NOT NULL,
  warmup_calls    INTEGER NOT NULL,
  UNIQUE (session_id, task_key, device, workload_index)
);

CREATE TABLE reference_samples (
  timing_id     INTEGER NOT NULL REFERENCES reference_timings (timing_id) ON DELETE CASCADE,
  sample_index  INTEGER NOT NULL,
  time_ms       REAL,
  PRIMARY KEY (timing_id, sample_index)
) WITHOUT ROWID;
)sql";

// Version 2: each verdict records the task version it was made against (resume re-evaluates a
// submission whose task changed) and the rule set that made it.
constexpr const char* verdict_provenance_sql = R"sql(
ALTER TABLE evaluations ADD COLUMN task_version TEXT NOT NULL DEFAULT '';
ALTER TABLE evaluations ADD COLUMN rules TEXT NOT NULL DEFAULT 'kbx';
)sql";

// Version 3: the kernel inventory of each evaluation (docs/security.md) and Triton's share of
// its GPU time.
constexpr const char* kernel_inventory_sql = R"sql(
ALTER TABLE evaluations ADD COLUMN triton_share REAL;
CREATE TABLE kernels (
  submission_id  TEXT NOT NULL REFERENCES evaluations (submission_id) ON DELETE CASCADE,
  stage          TEXT NOT NULL,
  name           TEXT NOT NULL,
  origin         TEXT NOT NULL,
  launches       INTEGER NOT NULL,
  gpu_ms         REAL
);
CREATE INDEX kernels_by_submission ON kernels (submission_id);
)sql";

// Version 4: how each workload was timed (CUDA events, or device-synchronised brackets when work
// escaped the events' stream), with what the stream check compared and the kernels' busy time.
constexpr const char* timing_method_sql = R"sql(
ALTER TABLE candidate_timings ADD COLUMN method TEXT NOT NULL DEFAULT 'events';
ALTER TABLE candidate_timings ADD COLUMN method_note TEXT NOT NULL DEFAULT '';
ALTER TABLE candidate_timings ADD COLUMN events_median_ms REAL;
ALTER TABLE candidate_timings ADD COLUMN brackets_min_ms REAL;
ALTER TABLE candidate_timings ADD COLUMN kernel_busy_ms REAL;
ALTER TABLE candidate_timings ADD COLUMN host_ms REAL;
ALTER TABLE reference_timings ADD COLUMN method TEXT NOT NULL DEFAULT 'events';
ALTER TABLE reference_timings ADD COLUMN method_note TEXT NOT NULL DEFAULT '';
ALTER TABLE reference_timings ADD COLUMN events_median_ms REAL;
ALTER TABLE reference_timings ADD COLUMN brackets_min_ms REAL;
ALTER TABLE reference_timings ADD COLUMN kernel_busy_ms REAL;
ALTER TABLE reference_timings ADD COLUMN host_ms REAL;
)sql";

// Version 5: reference timings taken for one submission, in its own GPU slot right after it was
// timed (`--reference-timing adjacent`), beside the session-wide ones of reference_timings.
constexpr const char* adjacent_reference_sql = R"sql(
CREATE TABLE submission_reference_timings (
  timing_id         INTEGER PRIMARY KEY,
  submission_id     TEXT NOT NULL REFERENCES submissions (submission_id) ON DELETE CASCADE,
  session_id        INTEGER NOT NULL REFERENCES sessions (session_id),
  task_key          TEXT NOT NULL,
  device            TEXT NOT NULL DEFAULT '',
  workload_index    INTEGER NOT NULL,
  status            TEXT NOT NULL,
  error             TEXT NOT NULL,
  warmup_calls      INTEGER NOT NULL,
  method            TEXT NOT NULL DEFAULT 'events',
  method_note       TEXT NOT NULL DEFAULT '',
  events_median_ms  REAL,
  brackets_min_ms   REAL,
  kernel_busy_ms    REAL,
  host_ms           REAL,
  UNIQUE (submission_id, session_id, device, workload_index)
);
CREATE TABLE submission_reference_samples (
  timing_id     INTEGER NOT NULL REFERENCES submission_reference_timings (timing_id) ON DELETE CASCADE,
  sample_index  INTEGER NOT NULL,
  time_ms       REAL,
  PRIMARY KEY (timing_id, sample_index)
) WITHOUT ROWID;
)sql";

// Version 6: `kbx generate`. Answers of language models, keyed by a hash of the request, so a
// resumed run pays for no answer twice; and one row per generated candidate with its labels.
constexpr const char* generation_sql = R"sql(
CREATE TABLE llm_responses (
  request_key    TEXT PRIMARY KEY,
  api            TEXT NOT NULL,
  model          TEXT NOT NULL,
  request_json   TEXT NOT NULL,
  response_json  TEXT NOT NULL,
  text           TEXT NOT NULL,
  finish_reason  TEXT NOT NULL,
  tokens_in      INTEGER NOT NULL,
  tokens_out     INTEGER NOT NULL,
  cost_usd       REAL,
  attempts       INTEGER NOT NULL,
  latency_ms     REAL,
  created_at     TEXT NOT NULL
);
CREATE TABLE generations (
  task_key              TEXT NOT NULL,
  round                 INTEGER NOT NULL,
  candidate             INTEGER NOT NULL,
  method                TEXT NOT NULL,
  model                 TEXT NOT NULL,
  status                TEXT NOT NULL,
  detail                TEXT NOT NULL,
  submission_id         TEXT REFERENCES submissions (submission_id),
  parent_submission_id  TEXT,
  request_key           TEXT,
  prompt_version        TEXT NOT NULL,
  temperature           REAL,
  created_at            TEXT NOT NULL,
  PRIMARY KEY (task_key, round, candidate)
);
CREATE INDEX generations_by_submission ON generations (submission_id);
)sql";

// Version 7: each workload's input sizes and dtype as the public harness reports them (the shapes
// of the call's tensor arguments, in order, and the first one's dtype).
constexpr const char* workload_inputs_sql = R"sql(
ALTER TABLE workloads ADD COLUMN input_size_json TEXT NOT NULL DEFAULT '[]';
ALTER TABLE workloads ADD COLUMN dtype TEXT NOT NULL DEFAULT '';
)sql";

// Version 8: `kbx serve`. One row per HTTP request with how it was answered; the verdicts
// themselves are ordinary evaluations of ordinary submissions.
constexpr const char* serve_requests_sql = R"sql(
CREATE TABLE serve_requests (
  request_id     INTEGER PRIMARY KEY,
  session_id     INTEGER REFERENCES sessions (session_id),
  received_at    TEXT NOT NULL,
  remote_addr    TEXT NOT NULL,
  method         TEXT NOT NULL,
  path           TEXT NOT NULL,
  status         INTEGER NOT NULL,
  task_key       TEXT NOT NULL,
  submission_id  TEXT REFERENCES submissions (submission_id),
  served_from    TEXT NOT NULL,
  outcome        TEXT NOT NULL,
  error          TEXT NOT NULL,
  label          TEXT NOT NULL,
  metadata_json  TEXT NOT NULL,
  perf           INTEGER NOT NULL CHECK (perf IN (0, 1)),
  time_total_ms  REAL
);
CREATE INDEX serve_requests_by_submission ON serve_requests (submission_id);
)sql";

// Version 9: a generation row belongs to its run (run_key: the run's labels, canonical JSON, at
// least method and model), so `kbx merge --combine` of two generate runs keeps both runs' rows
// for the same task, round and candidate. Rows of older stores get {"method": ..., "model": ...}.
constexpr const char* generation_runs_sql = R"sql(
CREATE TABLE generations_v9 (
  run_key               TEXT NOT NULL,
  task_key              TEXT NOT NULL,
  round                 INTEGER NOT NULL,
  candidate             INTEGER NOT NULL,
  method                TEXT NOT NULL,
  model                 TEXT NOT NULL,
  status                TEXT NOT NULL,
  detail                TEXT NOT NULL,
  submission_id         TEXT REFERENCES submissions (submission_id),
  parent_submission_id  TEXT,
  request_key           TEXT,
  prompt_version        TEXT NOT NULL,
  temperature           REAL,
  created_at            TEXT NOT NULL,
  PRIMARY KEY (run_key, task_key, round, candidate)
);
INSERT INTO generations_v9 SELECT json_object('method', method, 'model', model), task_key, round,
  candidate, method, model, status, detail, submission_id, parent_submission_id, request_key,
  prompt_version, temperature, created_at FROM generations;
DROP TABLE generations;
ALTER TABLE generations_v9 RENAME TO generations;
CREATE INDEX generations_by_submission ON generations (submission_id);
)sql";

// Version 10: baselines besides eager (`kbx eval --baseline eager,compile`): the raw samples of
// torch.compile of each task's reference, per session, task, device and baseline, shaped like
// reference_timings. Eager's stay in reference_timings; stores before 10 have eager alone.
constexpr const char* baseline_timings_sql = R"sql(
CREATE TABLE baseline_timings (
  timing_id         INTEGER PRIMARY KEY,
  session_id        INTEGER NOT NULL REFERENCES sessions (session_id),
  task_key          TEXT NOT NULL,
  device            TEXT NOT NULL DEFAULT '',
  baseline          TEXT NOT NULL,
  workload_index    INTEGER NOT NULL,
  status            TEXT NOT NULL,
  error             TEXT NOT NULL,
  warmup_calls      INTEGER NOT NULL,
  method            TEXT NOT NULL DEFAULT 'events',
  method_note       TEXT NOT NULL DEFAULT '',
  events_median_ms  REAL,
  brackets_min_ms   REAL,
  kernel_busy_ms    REAL,
  host_ms           REAL,
  UNIQUE (session_id, task_key, device, baseline, workload_index)
);
CREATE TABLE baseline_samples (
  timing_id     INTEGER NOT NULL REFERENCES baseline_timings (timing_id) ON DELETE CASCADE,
  sample_index  INTEGER NOT NULL,
  time_ms       REAL,
  PRIMARY KEY (timing_id, sample_index)
) WITHOUT ROWID;
)sql";

// Version 11: CUDA-graph mode (`kbx eval --graph`, docs/metrics.md): per timing row, the samples
// of replaying the call as a CUDA graph (a JSON list, '[]' when it was not captured) and why the
// capture or a replay failed. Informative figures, read whole with their row: the eager samples
// that verdicts rest on stay one row each.
constexpr const char* graph_timings_sql = R"sql(
ALTER TABLE candidate_timings ADD COLUMN graph_samples_json TEXT NOT NULL DEFAULT '[]';
ALTER TABLE candidate_timings ADD COLUMN graph_error TEXT NOT NULL DEFAULT '';
ALTER TABLE reference_timings ADD COLUMN graph_samples_json TEXT NOT NULL DEFAULT '[]';
ALTER TABLE reference_timings ADD COLUMN graph_error TEXT NOT NULL DEFAULT '';
ALTER TABLE submission_reference_timings ADD COLUMN graph_samples_json TEXT NOT NULL DEFAULT '[]';
ALTER TABLE submission_reference_timings ADD COLUMN graph_error TEXT NOT NULL DEFAULT '';
ALTER TABLE baseline_timings ADD COLUMN graph_samples_json TEXT NOT NULL DEFAULT '[]';
ALTER TABLE baseline_timings ADD COLUMN graph_error TEXT NOT NULL DEFAULT '';
)sql";

constexpr std::array<Migration, 11> all_migrations{{
    {1, "init", init_sql},
    {2, "verdict_provenance", verdict_provenance_sql},
    {3, "kernel_inventory", kernel_inventory_sql},
    {4, "timing_method", timing_method_sql},
    {5, "adjacent_reference", adjacent_reference_sql},
    {6, "generation", generation_sql},
    {7, "workload_inputs", workload_inputs_sql},
    {8, "serve_requests", serve_requests_sql},
    {9, "generation_runs", generation_runs_sql},
    {10, "baseline_timings", baseline_timings_sql},
    {11, "graph_timings", graph_timings_sql},
}};

}  // namespace

std::span<const Migration> migrations() { return all_migrations; }

int latest_schema_version() { return all_migrations.back().version; }

}  // namespace kbx::store

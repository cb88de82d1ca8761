// Database: the run's single source of truth, an SQLite file (<out>/kbx.db). Schema: docs/store-schema.md.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kbx/common/json.h"
#include "kbx/store/records.h"

struct sqlite3;

namespace kbx::store {

/// An open kbx.db. Creates and migrates the schema on open. All methods are thread-safe
/// (one connection behind a mutex); every write is its own transaction, so a kill -9 loses at
/// most the evaluation in flight. Failures throw kbx::Error(ErrorKind::store) naming the file.
class Database {
 public:
  /// Opens (creating if needed) the database at `path`, in WAL mode.
  static std::unique_ptr<Database> open(const std::filesystem::path& path);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

  /// The run's configuration as first written (device, seed, suite, require_triton, ...).
  std::optional<Json> run_config();
  /// Records the configuration if none is recorded yet; a later call keeps the first, so a
  /// resumed run compares its own configuration against run_config().
  void set_run_config(const Json& config);

  /// Starts a session; returns its id. status = "running".
  std::int64_t begin_session(const SessionRecord& session);
  /// Records the environment once the workers have reported it.
  void set_session_env(std::int64_t session_id, const Json& env);
  /// Marks the session "finished", "interrupted" or "failed" with the current time.
  void end_session(std::int64_t session_id, const std::string& status);
  /// Marks every session still "running" as "lost" (its process ended without ending it: kill -9,
  /// a crash, a power cut; finished_at stays empty) and returns how many there were. Only for a
  /// caller that holds the folder's lock (FolderLock), so that no live process owns one.
  int close_lost_sessions();
  std::vector<SessionRecord> sessions();

  /// Inserts or replaces the task and its workloads.
  void upsert_task(const TaskRecord& task);
  std::vector<TaskRecord> tasks();

  /// Inserts the submission if its id is new (re-runs keep the first origin and ordinal).
  void upsert_submission(const SubmissionRecord& submission);
  std::vector<SubmissionRecord> submissions();

  /// The submission with this id, if stored.
  std::optional<SubmissionRecord> submission(const std::string& submission_id);

  void add_input_error(const InputErrorRecord& error);
  std::vector<InputErrorRecord> input_errors();

  /// Ids of submissions that already have an evaluation (resume skips them).
  std::set<std::string> evaluated_submission_ids();
  /// Each evaluated submission's task version (empty for verdicts stored before version 2).
  std::map<std::string, std::string> evaluated_task_versions();

  /// Writes the evaluation with its cases and samples in one transaction, replacing any earlier
  /// evaluation of the same submission.
  void save_evaluation(const EvaluationRecord& evaluation);
  std::vector<EvaluationRecord> evaluations();
  /// One submission's evaluation with its cases and samples (not its kernels), if any.
  std::optional<EvaluationRecord> evaluation(const std::string& submission_id);

  /// Records one request to `kbx serve` (table serve_requests).
  void add_serve_request(const ServeRequestRecord& request);
  /// Every recorded request, in arrival order.
  std::vector<ServeRequestRecord> serve_requests();

  /// The reference's samples for a task in a session on one device (what speedups divide by);
  /// `device` is the evaluation's device label ("cuda:1 NVIDIA H200"), so with several GPUs each
  /// candidate is divided by the reference timed on its own GPU. Saving replaces that triple.
  /// With `submission_id`, the timings belong to that submission alone (taken in its GPU slot,
  /// `--reference-timing adjacent`); '' is the session's timings shared by its submissions.
  void save_reference_timings(std::int64_t session_id, const std::string& task_key,
                              const std::vector<TimingRecord>& timings,
                              const std::string& device = "",
                              const std::string& submission_id = "");
  /// Samples of another baseline than eager for a task in a session on one device (schema 10,
  /// table baseline_timings): `baseline` is "compile" (torch.compile of the reference). Saving
  /// replaces that (session, task, device, baseline); error rows keep why a workload has none.
  void save_baseline_timings(std::int64_t session_id, const std::string& task_key,
                             const std::string& baseline, const std::vector<TimingRecord>& timings,
                             const std::string& device = "");
  /// The timings save_baseline_timings stored; nullopt when there are none.
  std::optional<std::vector<TimingRecord>> baseline_timings(std::int64_t session_id,
                                                            const std::string& task_key,
                                                            const std::string& baseline,
                                                            const std::string& device = "");
  /// Copies every row of the store at `source` (which must have this kbx's schema version: open
  /// it with Database::open first) into this one, in one transaction, for `kbx merge`. Its
  /// sessions and timing ids are renumbered past this store's (references between them follow);
  /// each copied session's environment gets `source_note` as "merge_source". Tasks, workloads and
  /// submissions already present are kept; an evaluation already present is an error (overlap).
  /// Refuses a source holding rows in a table it does not know. Returns the evaluations copied.
  int import_rows(const std::filesystem::path& source, const Json& source_note);
  /// The tables import_rows copies, in the order it copies them (every table but meta).
  static const std::vector<std::string>& imported_tables();

  std::optional<std::vector<TimingRecord>> reference_timings(std::int64_t session_id,
                                                             const std::string& task_key,
                                                             const std::string& device = "",
                                                             const std::string& submission_id = "");

  /// The cached answer with this request key, if any (`kbx generate`'s response cache).
  std::optional<LlmResponseRecord> llm_response(const std::string& request_key);
  /// Stores an answer; an existing key keeps its first answer.
  void put_llm_response(const LlmResponseRecord& response);
  /// Count and summed tokens and cost of the cached answers.
  LlmResponseRecord llm_response_totals();

  /// Inserts or replaces the generation row of (task_key, round, candidate).
  void upsert_generation(const GenerationRecord& generation);
  /// Every generation row, by task, round and candidate.
  std::vector<GenerationRecord> generations();

 private:
  explicit Database(std::filesystem::path path);
  void migrate();
  void exec(const char* sql);

  std::filesystem::path path_;
  sqlite3* db_ = nullptr;
  std::recursive_mutex mutex_;
};

}  // namespace kbx::store

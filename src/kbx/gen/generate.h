// Generation methods (one-shot, best-of-k, refine, agents): ask a model for kernels round by
// round, evaluate each round through run/, and feed the verdicts back.
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kbx/gen/prompt.h"
#include "kbx/llm/client.h"
#include "kbx/run/options.h"
#include "kbx/run/runner.h"
#include "kbx/suite/suite.h"

namespace kbx::gen {

enum class Method { one_shot, best_of_k, refine, agents };

std::string_view to_string(Method method);
/// "one-shot", "best-of-k", "refine" or "agents"; nullopt for anything else.
std::optional<Method> parse_method(std::string_view name);

struct GenerateOptions {
  Method method = Method::one_shot;
  std::string model;
  int rounds = 1;      ///< refine: rounds in all (round 0 included); agents: repair rounds
  int candidates = 1;  ///< per task: independent chains (refine, agents) or samples (best-of-k)
  /// Sampling temperature; agents spread their workers' temperatures from `temperature` to
  /// `temperature_max`.
  double temperature = 0.0;
  double temperature_max = 1.0;
  int max_tokens = 4096;
  PromptTemplates prompts;
  run::RunOptions run;  ///< how candidates are evaluated (source unused; labels method and model)
};

/// How generation ended.
struct GenerateSummary {
  int rounds_run = 0;
  int candidates = 0;  ///< candidates asked for (all rounds)
  int with_code = 0;
  int no_code = 0;         ///< answers with no usable code
  int request_failed = 0;  ///< requests that failed after every retry (retried on resume)
  int tasks = 0;
  int tasks_correct = 0;  ///< tasks with at least one `ok` candidate
  llm::Usage usage;       ///< this process's spend (cache hits cost nothing)
  bool interrupted = false;
};

/// Runs `method` over `tasks`: each round builds the prompts (the task's for a chain's first
/// candidate; refine.txt with the previous candidate and kbx's feedback after a failure;
/// optimize.txt with the speedups after a success that was timed), asks `client` for every
/// active chain at once (the client limits concurrency), extracts code, records every candidate
/// in the store's generations table with method, model, round and candidate, and evaluates the
/// round's code with run::run_submissions. Resumable: answers come from the store's cache and
/// finished evaluations are kept, so a rerun repeats the same rounds without new requests.
GenerateSummary run_generate(const GenerateOptions& options, const suite::Suite& suite,
                             const std::vector<const suite::Task*>& tasks, llm::Client& client,
                             store::Database& db, run::ProgressSink& progress,
                             const std::atomic<bool>& stop);

}  // namespace kbx::gen

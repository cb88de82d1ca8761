// The generation loop: chains of candidates per task, one request per active chain and round,
// each round's code evaluated through run/ and its verdicts turned into the next prompts.
#include "kbx/gen/generate.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <thread>

#include "kbx/gen/extract.h"
#include "kbx/gen/feedback.h"
#include "kbx/report/report_model.h"

namespace kbx::gen {
namespace {

enum class ChainState { fresh, repair, optimize, done };

/// One line of candidates for one task: each round's candidate builds on the previous one.
struct Chain {
  const suite::Task* task = nullptr;
  int task_index = 0;
  int candidate = 0;
  double temperature = 0;
  ChainState state = ChainState::fresh;
  std::string code;           ///< the latest candidate that had code
  std::string submission_id;  ///< its submission
  std::string feedback;       ///< kbx's verdict on it, for the next prompt
  bool optimized = false;     ///< agents: its optimise round was asked for
};

/// One request of a round and what came of it.
struct Ask {
  Chain* chain = nullptr;
  bool asked = false;
  bool cached = false;
  store::GenerationRecord record;
  std::optional<submit::Submission> submission;
};

double temperature_of(const GenerateOptions& o, int candidate) {
  if (o.method != Method::agents || o.candidates <= 1) {
    return o.temperature;
  }
  return o.temperature +
         (o.temperature_max - o.temperature) * candidate / static_cast<double>(o.candidates - 1);
}

llm::ChatRequest request_for(const GenerateOptions& o, const Chain& c) {
  auto values = task_values(*c.task);
  llm::ChatRequest r;
  r.model = o.model;
  r.temperature = c.temperature;
  r.max_tokens = o.max_tokens;
  r.system = render(o.prompts.system, values, o.prompts.version + "/system.txt");
  if (c.state == ChainState::fresh || c.code.empty()) {
    r.messages.push_back({"user", render(o.prompts.task, values, o.prompts.version + "/task.txt")});
    return r;
  }
  values["previous_code"] = c.code;
  values["feedback"] = c.feedback;
  const bool optimize = c.state == ChainState::optimize;
  r.messages.push_back(
      {"user", render(optimize ? o.prompts.optimize : o.prompts.refine, values,
                      o.prompts.version + (optimize ? "/optimize.txt" : "/refine.txt"))});
  return r;
}

void ask(const GenerateOptions& o, llm::Client& client, int round, int task_count, Ask& a) {
  Chain& c = *a.chain;
  auto request = request_for(o, c);
  const int sample = round * 10'000 + c.candidate;  // distinct answers per round and candidate
  auto& g = a.record;
  g.task_key = c.task->key;
  g.round = round;
  g.candidate = c.candidate;
  g.method = std::string(to_string(o.method));
  g.model = o.model;
  g.run_key = Json(o.run.labels).dump();  // std::map: keys sorted, so one text per run
  g.parent_submission_id = c.state == ChainState::fresh ? "" : c.submission_id;
  g.prompt_version = o.prompts.version;
  g.temperature = c.temperature;
  g.request_key = llm::cache_key(client.options().endpoint.api, request, sample);
  auto completion = client.complete(request, sample);
  a.asked = true;
  if (!completion) {
    g.status = "request_failed";
    g.detail = completion.error().what();
    return;
  }
  a.cached = completion->cached;
  auto extraction = extract_code(completion->answer.answer.text, c.task->entry);
  if (extraction.status != ExtractStatus::code) {
    g.status = "no_code";
    g.detail = extraction.detail;
    if (completion->answer.answer.finish_reason == "length" ||
        completion->answer.answer.finish_reason == "max_tokens") {
      g.detail += " (the answer was cut at max_tokens)";
    }
    return;
  }
  g.status = "code";
  submit::Submission s;
  s.task_key = c.task->key;
  s.code = extraction.code;
  s.origin = fmt::format("generate {} round {} candidate {}", c.task->key, round, c.candidate);
  s.slot = fmt::format("generate:{}:round {}:candidate {}", c.task->key, round, c.candidate);
  s.ordinal = (round * task_count + c.task_index) * std::max(1, o.candidates) + c.candidate;
  a.submission = std::move(s);
}

/// Asks every chain of the round, `concurrency` at a time (the client also limits them).
void ask_all(const GenerateOptions& o, llm::Client& client, int round, int task_count,
             std::vector<Ask>& asks, const std::atomic<bool>& stop) {
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next.fetch_add(1); i < asks.size() && !stop.load();
         i = next.fetch_add(1)) {
      ask(o, client, round, task_count, asks[i]);
    }
  };
  const int threads = std::clamp(client.options().concurrency, 1, static_cast<int>(asks.size()));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back(work);
  }
  for (auto& t : pool) {
    t.join();
  }
}

bool may_ask(const GenerateOptions& o, const Chain& c, int round) {
  if (c.state == ChainState::done) {
    return false;
  }
  if (round < o.rounds) {
    return true;
  }
  // agents: the optimise round of a kernel that became correct in the last repair round
  return o.method == Method::agents && c.state == ChainState::optimize && round == o.rounds;
}

/// The next state of a chain whose candidate was evaluated (refine; one-shot and best-of-k end).
void advance_refine(const GenerateOptions& o, Chain& c, bool ok, const report::SubmissionRow* row) {
  if (o.method == Method::one_shot || o.method == Method::best_of_k) {
    c.state = ChainState::done;
  } else if (!ok) {
    c.state = ChainState::repair;
  } else if (row != nullptr && row->perf_ok) {
    c.state = ChainState::optimize;  // GEAK: a correct kernel is refined for speed
  } else {
    c.state = ChainState::done;  // correct, and no timings to improve on
  }
}

/// agents: the first correct worker of a task goes on to one optimise round, the others stop.
void advance_agents(std::vector<Ask>& asks, const std::map<std::string, bool>& ok_by_id) {
  std::map<std::string, Chain*> first_ok;
  for (auto& a : asks) {
    Chain& c = *a.chain;
    bool ok = a.submission && ok_by_id.count(c.submission_id) && ok_by_id.at(c.submission_id);
    if (c.state == ChainState::optimize) {
      c.state = ChainState::done;  // its optimise round is over, whatever came of it
    } else if (ok && first_ok.find(c.task->key) == first_ok.end()) {
      first_ok[c.task->key] = &c;
    } else if (c.state == ChainState::fresh && !c.code.empty()) {
      c.state = ChainState::repair;
    }
  }
  for (auto& a : asks) {
    Chain& c = *a.chain;
    auto it = first_ok.find(c.task->key);
    if (it == first_ok.end()) {
      continue;
    }
    if (it->second == &c && !c.optimized) {
      c.state = ChainState::optimize;
      c.optimized = true;
    } else {
      c.state = ChainState::done;  // another worker found a correct kernel: stop
    }
  }
}

std::vector<Chain> make_chains(const GenerateOptions& o,
                               const std::vector<const suite::Task*>& tasks) {
  std::vector<Chain> chains;
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    for (int k = 0; k < std::max(1, o.candidates); ++k) {
      Chain c;
      c.task = tasks[t];
      c.task_index = static_cast<int>(t);
      c.candidate = k;
      c.temperature = temperature_of(o, k);
      chains.push_back(std::move(c));
    }
  }
  return chains;
}

std::vector<Ask> active_asks(const GenerateOptions& o, std::vector<Chain>& chains, int round) {
  std::vector<Ask> asks;
  for (auto& c : chains) {
    if (may_ask(o, c, round)) {
      Ask a;
      a.chain = &c;
      asks.push_back(std::move(a));
    }
  }
  return asks;
}

/// Counts the round's answers into `summary`, reports them with the token spend, and returns
/// the round's submissions.
submit::SourceContents tally_round(const std::vector<Ask>& asks, int round,
                                   const llm::Usage& before, const llm::Usage& after,
                                   GenerateSummary& summary, run::ProgressSink& progress) {
  submit::SourceContents contents;
  int no_code = 0;
  int failed = 0;
  int cached = 0;
  const Ask* first_failure = nullptr;
  for (const auto& a : asks) {
    summary.candidates += a.asked ? 1 : 0;
    cached += a.cached ? 1 : 0;
    no_code += a.record.status == "no_code" ? 1 : 0;
    if (a.record.status == "request_failed") {
      ++failed;
      first_failure = first_failure != nullptr ? first_failure : &a;
    }
    if (a.submission) {
      contents.submissions.push_back(*a.submission);
    }
  }
  summary.with_code += static_cast<int>(contents.submissions.size());
  summary.no_code += no_code;
  summary.request_failed += failed;
  const auto answers = after.answers - before.answers;
  const auto requests = after.requests - before.requests;
  progress.on_status(fmt::format(
      "round {}: {} answer{} ({} from the store's cache, {} HTTP request{}), {} without code, "
      "{} failed; tokens this round {} in / {} out; this run so far {} in / {} out, ${:.4f}",
      round, answers, answers == 1 ? "" : "s", cached, requests, requests == 1 ? "" : "s", no_code,
      failed, after.tokens_in - before.tokens_in, after.tokens_out - before.tokens_out,
      after.tokens_in, after.tokens_out, after.cost_usd));
  if (first_failure != nullptr) {  // one example; every failure is in the generations table
    progress.on_status(fmt::format(
        "{} round {} candidate {}: request failed: {}", first_failure->record.task_key, round,
        first_failure->record.candidate, first_failure->record.detail.substr(0, 300)));
  }
  return contents;
}

/// Stores the round's candidates (submission first, then its generation row).
void record_candidates(store::Database& db, const std::vector<Ask>& asks) {
  for (const auto& a : asks) {
    if (!a.asked) {
      continue;
    }
    auto g = a.record;
    if (a.submission) {
      const auto& s = *a.submission;
      g.submission_id = run::submission_id(s);
      db.upsert_submission({g.submission_id, s.task_key, s.origin, s.ordinal, s.code});
    }
    db.upsert_generation(g);
  }
}

/// Reads the round's verdicts and moves every chain to its next state and prompt.
void advance_chains(const GenerateOptions& o, store::Database& db, std::vector<Ask>& asks) {
  auto model = report::build_report_model(db);
  std::map<std::string, const report::SubmissionRow*> rows;
  for (const auto& r : model.rows) {
    rows[r.submission_id] = &r;
  }
  std::map<std::string, store::EvaluationRecord> evaluations;
  for (auto& e : db.evaluations()) {
    evaluations[e.submission_id] = std::move(e);
  }
  std::map<std::string, bool> ok_by_id;
  for (auto& a : asks) {
    Chain& c = *a.chain;
    if (!a.submission) {
      if (o.method == Method::one_shot || o.method == Method::best_of_k ||
          c.state == ChainState::optimize) {
        c.state = ChainState::done;
      }
      continue;  // refine, agents: ask again next round from the same point
    }
    c.code = a.submission->code;
    c.submission_id = run::submission_id(*a.submission);
    auto e = evaluations.find(c.submission_id);
    if (e == evaluations.end()) {
      continue;  // not evaluated (interrupted): the next session redoes it
    }
    auto row = rows.find(c.submission_id);
    const report::SubmissionRow* r = row == rows.end() ? nullptr : row->second;
    const bool ok = e->second.outcome == "ok";
    ok_by_id[c.submission_id] = ok;
    c.feedback = feedback_for(e->second, r);
    if (o.method != Method::agents) {
      advance_refine(o, c, ok, r);
    }
  }
  if (o.method == Method::agents) {
    advance_agents(asks, ok_by_id);
  }
}

/// Tasks with at least one generated candidate judged `ok`.
int count_correct(store::Database& db, const std::vector<const suite::Task*>& tasks) {
  std::map<std::string, std::string> outcome_by_id;
  for (const auto& e : db.evaluations()) {
    outcome_by_id[e.submission_id] = e.outcome;
  }
  std::map<std::string, bool> correct;
  for (const auto& g : db.generations()) {
    auto it = outcome_by_id.find(g.submission_id);
    if (it != outcome_by_id.end() && it->second == "ok") {
      correct[g.task_key] = true;
    }
  }
  int n = 0;
  for (const auto* t : tasks) {
    n += correct.count(t->key) ? 1 : 0;
  }
  return n;
}

}  // namespace

std::string_view to_string(Method method) {
  switch (method) {
    case Method::one_shot:
      return "one-shot";
    case Method::best_of_k:
      return "best-of-k";
    case Method::refine:
      return "refine";
    case Method::agents:
      return "agents";
  }
  return "?";
}

std::optional<Method> parse_method(std::string_view name) {
  for (Method m : {Method::one_shot, Method::best_of_k, Method::refine, Method::agents}) {
    if (to_string(m) == name) {
      return m;
    }
  }
  return std::nullopt;
}

GenerateSummary run_generate(const GenerateOptions& o, const suite::Suite& suite,
                             const std::vector<const suite::Task*>& tasks, llm::Client& client,
                             store::Database& db, run::ProgressSink& progress,
                             const std::atomic<bool>& stop) {
  auto chains = make_chains(o, tasks);
  GenerateSummary summary;
  summary.tasks = static_cast<int>(tasks.size());
  for (int round = 0; !stop.load(); ++round) {
    auto asks = active_asks(o, chains, round);
    if (asks.empty()) {
      break;
    }
    auto before = client.usage();
    progress.on_status(fmt::format("round {}: asking {} for {} candidate{} ...", round, o.model,
                                   asks.size(), asks.size() == 1 ? "" : "s"));
    ask_all(o, client, round, static_cast<int>(tasks.size()), asks, stop);
    auto contents = tally_round(asks, round, before, client.usage(), summary, progress);
    if (stop.load()) {
      break;
    }
    record_candidates(db, asks);  // first, so the round's exports carry the labels
    run::RunOptions ro = o.run;
    ro.tasks_pattern.clear();  // the tasks were chosen already
    auto ran = run::run_submissions(ro, suite, std::move(contents), progress, stop);
    summary.rounds_run = round + 1;
    if (ran.interrupted || stop.load()) {
      break;
    }
    advance_chains(o, db, asks);
  }
  summary.interrupted = stop.load();
  summary.usage = client.usage();
  summary.tasks_correct = count_correct(db, tasks);
  return summary;
}

}  // namespace kbx::gen

// RunOptions: `--baseline` parsing, the baselines and graph mode in the run's identity, and a
// resume that would change them refused; the timing settings sent to the worker.
#include "kbx/run/options.h"

#include <gtest/gtest.h>

#include "kbx/common/error.h"
#include "kbx/run/runner.h"
#include "kbx/store/database.h"
#include "support/test_support.h"

namespace kbx::run {
namespace {

using kbx::testing::ScopedTempDir;
using Names = std::vector<std::string>;

TEST(ParseBaselines, EagerIsAlwaysFirstAndCompileAloneMeansBoth) {
  EXPECT_EQ(parse_baselines("eager").value(), (Names{"eager"}));
  EXPECT_EQ(parse_baselines("eager,compile").value(), (Names{"eager", "compile"}));
  EXPECT_EQ(parse_baselines("compile").value(), (Names{"eager", "compile"}));
  EXPECT_EQ(parse_baselines("compile, eager,compile").value(), (Names{"eager", "compile"}));
}

TEST(ParseBaselines, AnythingElseIsAUsageErrorNamingTheChoices) {
  for (const char* bad : {"", "inductor", "eager,,compile", "eager;compile"}) {
    auto parsed = parse_baselines(bad);
    ASSERT_FALSE(parsed) << bad;
    EXPECT_EQ(parsed.error().kind(), ErrorKind::usage);
    EXPECT_NE(std::string(parsed.error().what()).find("eager, compile or eager,compile"),
              std::string::npos);
  }
}

TEST(RunOptionsIdentity, HoldsTheBaselinesOnlyWhenCompileIsAmongThem) {
  RunOptions o;
  EXPECT_FALSE(o.identity().contains("baselines"));  // runs made before: eager implicitly
  EXPECT_FALSE(o.compile_baseline());
  o.baselines = {"eager", "compile"};
  EXPECT_EQ(o.identity()["baselines"], Json::array({"eager", "compile"}));
  EXPECT_TRUE(o.compile_baseline());
}

// check_identity refuses `options` on `db` with a usage error whose message holds `needle`.
void expect_refused(store::Database& db, const RunOptions& options, const suite::Suite& suite,
                    const std::string& needle) {
  try {
    check_identity(db, options, suite);
    FAIL() << "a resume with other options was accepted (expected one naming " << needle << ")";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(CheckIdentity, AResumeMayNeitherAddNorDropTheCompileBaseline) {
  ScopedTempDir dir;
  suite::Suite suite;
  RunOptions eager;
  eager.out_dir = dir.path();
  RunOptions both = eager;
  both.baselines = {"eager", "compile"};
  {
    auto db = store::Database::open(dir.path() / "eager.db");
    check_identity(*db, eager, suite);
    check_identity(*db, eager, suite);  // the same options resume
    EXPECT_THROW(check_identity(*db, both, suite), Error);
  }
  auto db = store::Database::open(dir.path() / "both.db");
  check_identity(*db, both, suite);
  check_identity(*db, both, suite);
  expect_refused(*db, eager, suite, "baselines");  // a resume without the compile baseline
}

TEST(TimingSettings, GraphModeIsSentOnlyWhenOnSoCacheKeysStayAsTheyWere) {
  TimingSettings off;
  Json plain = off.to_json();
  EXPECT_FALSE(plain.contains("graph"));
  EXPECT_FALSE(plain.contains("graph_max_ms"));
  off.graph_max_ms = 0.2;  // the threshold alone changes nothing
  EXPECT_EQ(off.to_json(), plain);
  TimingSettings on;
  on.graph = true;
  on.graph_max_ms = 0.02;
  Json sent = on.to_json();
  EXPECT_EQ(sent["graph"], true);
  EXPECT_EQ(sent["graph_max_ms"], 0.02);
  sent.erase("graph");
  sent.erase("graph_max_ms");
  EXPECT_EQ(sent, plain);
}

TEST(TimingSettings, LongCallSamplesAreSentOnlyWhenNotTheDefaultSoCacheKeysStayAsTheyWere) {
  TimingSettings plain;
  EXPECT_EQ(plain.long_call_samples, 5);
  EXPECT_FALSE(plain.to_json().contains("long_call_samples"));
  TimingSettings fewer = plain;
  fewer.long_call_samples = 3;  // `--long-call-samples 3`
  Json sent = fewer.to_json();
  EXPECT_EQ(sent["long_call_samples"], 3);
  sent.erase("long_call_samples");
  EXPECT_EQ(sent, plain.to_json());
}

TEST(TimingSettings, ShortCallBudgetIsSentOnlyWhenSetSoCacheKeysStayAsTheyWere) {
  TimingSettings plain;
  EXPECT_EQ(plain.short_call_budget_ms, 0);
  EXPECT_FALSE(plain.to_json().contains("short_call_budget_ms"));
  TimingSettings shorter = plain;
  shorter.short_call_budget_ms = 12;  // `--short-call-budget-ms 12`
  Json sent = shorter.to_json();
  EXPECT_EQ(sent["short_call_budget_ms"], 12.0);
  sent.erase("short_call_budget_ms");
  EXPECT_EQ(sent, plain.to_json());
}

TEST(TimingSettings, FastCpusAreSentOnlyWhenOnSoCacheKeysStayAsTheyWere) {
  TimingSettings plain;
  plain.spread_cpus = false;
  EXPECT_FALSE(plain.fast_cpus);
  EXPECT_FALSE(plain.to_json().contains("fast_cpus"));
  TimingSettings fast = plain;
  fast.fast_cpus = true;
  Json sent = fast.to_json();
  EXPECT_EQ(sent["fast_cpus"], true);
  sent.erase("fast_cpus");
  EXPECT_EQ(sent, plain.to_json());
  RunOptions o;
  o.device = "cuda";
  EXPECT_FALSE(o.identity().contains("fast_cpus"));
  o.timing.fast_cpus = true;  // `--timing-cpus fast`: a resume keeps it
  EXPECT_EQ(o.identity()["fast_cpus"], true);
}

TEST(TimingSettings, SpreadCpusAreTheDefaultAndLeftOutWhenOff) {
  TimingSettings spread;
  EXPECT_TRUE(spread.spread_cpus);  // session 33: steadier calls that include host work
  Json sent = spread.to_json();
  EXPECT_EQ(sent["spread_cpus"], true);
  TimingSettings any;
  any.spread_cpus = false;  // `--timing-cpus any`: the settings (and cache keys) as before
  EXPECT_FALSE(any.to_json().contains("spread_cpus"));
  sent.erase("spread_cpus");
  EXPECT_EQ(sent, any.to_json());
}

TEST(RunOptionsIdentity, HoldsSpreadCpusOnlyWhereSomethingIsTimed) {
  RunOptions o;  // the CPU: nothing is timed, so an old CPU run still resumes
  EXPECT_FALSE(o.identity().contains("spread_cpus"));
  o.device = "cuda";
  EXPECT_EQ(o.identity()["spread_cpus"], true);
  o.perf = false;
  EXPECT_FALSE(o.identity().contains("spread_cpus"));
  o.perf = true;
  o.timing.spread_cpus = false;  // `--timing-cpus any`
  EXPECT_FALSE(o.identity().contains("spread_cpus"));
}

TEST(CheckIdentity, AResumeKeepsHowSamplesWereSpreadOverTheCpus) {
  ScopedTempDir dir;
  suite::Suite suite;
  RunOptions spread;
  spread.device = "cuda";
  spread.out_dir = dir.path();
  RunOptions any = spread;
  any.timing.spread_cpus = false;
  {  // a run timed before spread became the default: the message says how to resume it
    auto db = store::Database::open(dir.path() / "any.db");
    check_identity(*db, any, suite);
    expect_refused(*db, spread, suite, "--timing-cpus any");
    check_identity(*db, any, suite);
  }
  auto db = store::Database::open(dir.path() / "spread.db");
  check_identity(*db, spread, suite);
  check_identity(*db, spread, suite);
  EXPECT_THROW(check_identity(*db, any, suite), Error);  // nor the other way round
  RunOptions fast = any;
  fast.timing.fast_cpus = true;
  EXPECT_THROW(check_identity(*db, fast, suite), Error);
  // A run pinned to a CPU list, resumed with the default: refused with the general message (repeat
  // the original options), not the hint for runs timed anywhere (`--timing-cpus any` would not
  // resume it).
  RunOptions pinned = any;
  pinned.timing_cpus = {0};
  auto pinned_db = store::Database::open(dir.path() / "pinned.db");
  check_identity(*pinned_db, pinned, suite);
  expect_refused(*pinned_db, spread, suite, "repeat the original options");
}

TEST(RunOptionsIdentity, HoldsTheCudaConnectionsWhereSomethingIsTimedOnAGpu) {
  RunOptions o;
  EXPECT_EQ(o.cuda_connections, 1);  // session 37: half the cost of contexts made side by side
  EXPECT_FALSE(o.identity().contains("cuda_connections"));  // the CPU: an old run resumes
  o.device = "cuda";
  EXPECT_EQ(o.identity()["cuda_connections"], 1);
  o.perf = false;
  EXPECT_FALSE(o.identity().contains("cuda_connections"));
  o.perf = true;
  o.cuda_connections = 0;  // as kbx's environment has it: what kbx did before the option
  EXPECT_FALSE(o.identity().contains("cuda_connections"));
}

TEST(CheckIdentity, AResumeKeepsTheCudaConnections) {
  ScopedTempDir dir;
  suite::Suite suite;
  RunOptions one;
  one.device = "cuda";
  one.out_dir = dir.path();
  RunOptions inherited = one;
  inherited.cuda_connections = 0;
  RunOptions eight = one;
  eight.cuda_connections = 8;
  {  // a run timed before the option (or with 0): the message says how to resume it
    auto db = store::Database::open(dir.path() / "old.db");
    check_identity(*db, inherited, suite);
    expect_refused(*db, one, suite, "--cuda-connections 0");
    check_identity(*db, inherited, suite);
  }
  auto db = store::Database::open(dir.path() / "one.db");
  check_identity(*db, one, suite);
  check_identity(*db, one, suite);
  expect_refused(*db, eight, suite, "cuda_connections=1");
  expect_refused(*db, inherited, suite, "repeat the original options");
}

TEST(CheckIdentity, AResumeMayNeitherAddNorDropGraphMode) {
  ScopedTempDir dir;
  suite::Suite suite;
  RunOptions eager;
  eager.out_dir = dir.path();
  EXPECT_FALSE(eager.identity().contains("graph_max_ms"));
  RunOptions graph = eager;
  graph.timing.graph = true;
  EXPECT_EQ(graph.identity()["graph_max_ms"], 0.05);
  RunOptions other_threshold = graph;
  other_threshold.timing.graph_max_ms = 0.1;
  {
    auto db = store::Database::open(dir.path() / "eager.db");
    check_identity(*db, eager, suite);
    EXPECT_THROW(check_identity(*db, graph, suite), Error);
  }
  auto db = store::Database::open(dir.path() / "graph.db");
  check_identity(*db, graph, suite);
  check_identity(*db, graph, suite);
  EXPECT_THROW(check_identity(*db, other_threshold, suite), Error);
  try {
    check_identity(*db, eager, suite);
    FAIL() << "a resume without graph mode was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("graph_max_ms"), std::string::npos) << e.what();
  }
}

// Session 35: another process creating its CUDA context slows a timing run's large workloads, so
// worker starts hold the GPU lock shared unless asked not to (--worker-start-hold none); either
// way the verdicts are the same, so the choice stays out of the identity.
TEST(RunOptionsDefaults, WorkerStartsHoldTheGpuShared) {
  RunOptions o;
  EXPECT_TRUE(o.worker_start_hold);
  Json held = o.identity();
  o.worker_start_hold = false;
  EXPECT_EQ(o.identity(), held);
}

// --fail-fast can name another failure than a full run (a mismatch before an error), so a run
// resumed keeps whichever it was made with; runs made before the option ran every case.
TEST(CheckIdentity, AResumeKeepsFailFast) {
  ScopedTempDir dir;
  suite::Suite suite;
  RunOptions full;
  full.out_dir = dir.path();
  RunOptions fast = full;
  fast.fail_fast = true;
  EXPECT_FALSE(full.identity().contains("fail_fast"));
  EXPECT_EQ(fast.identity()["fail_fast"], true);
  for (const auto& [made, resumed] : {std::pair{full, fast}, std::pair{fast, full}}) {
    auto db = store::Database::open(dir.path() / (made.fail_fast ? "fast.db" : "full.db"));
    check_identity(*db, made, suite);
    check_identity(*db, made, suite);  // the same options resume
    expect_refused(*db, resumed, suite, "fail_fast");
  }
}

TEST(CheckIdentity, ARunMadeBeforeBaselinesExistedResumesWithEager) {
  ScopedTempDir dir;
  auto db = store::Database::open(dir.path() / "kbx.db");
  RunOptions o;
  Json old = o.identity();
  old.erase("baselines");
  db->set_run_config(old);
  EXPECT_NO_THROW(check_identity(*db, o, suite::Suite{}));
}

}  // namespace
}  // namespace kbx::run

// Tests of iterations(): lineages by parent and by labels, per-round rates, transitions, and
// rescued against persistently correct kernels.
#include "kbx/report/iterations.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kbx::report {
namespace {

// A generated candidate: its round, its parent, correct or not, timed when speedup > 0.
SubmissionRow candidate(const std::string& id, const std::string& task, int round,
                        const std::string& parent, bool ok, double speedup = 0) {
  SubmissionRow r;
  r.submission_id = id;
  r.file = task;
  r.category = task.substr(0, task.find('/'));
  r.outcome = ok ? "ok" : "incorrect";
  r.call_ok = true;
  r.exe_ok = ok;
  r.perf_ok = speedup > 0;
  r.speedup = speedup;
  r.parent_submission_id = parent;
  r.labels = {{"method", "refine"}, {"round", std::to_string(round)}, {"candidate", "0"}};
  return r;
}

NamedRun refine_run() {
  NamedRun run;
  run.name = "runs/refine";
  run.model.rows = {
      // a: correct at once (persistent, 2.0x), then an optimise round that breaks it
      candidate("a0", "Math/a.py", 0, "", true, 2.0),
      candidate("a1", "Math/a.py", 1, "a0", false),
      // b: wrong, wrong, then correct (rescued in round 2, 0.5x)
      candidate("b0", "Math/b.py", 0, "", false),
      candidate("b1", "Math/b.py", 1, "b0", false),
      candidate("b2", "Math/b.py", 2, "b1", true, 0.5),
      // c: wrong then correct untimed (rescued in round 1)
      candidate("c0", "Reduce/c.py", 0, "", false),
      candidate("c1", "Reduce/c.py", 1, "c0", true),
      // d: never correct, one round only
      candidate("d0", "Reduce/d.py", 0, "", false),
  };
  return run;
}

TEST(Iterations, FollowsParentsIntoLineagesAndCountsTransitions) {
  auto its = iterations({refine_run()});
  ASSERT_EQ(its.size(), 1U);
  const Iterations& it = its[0];
  EXPECT_EQ(it.method, "refine");
  EXPECT_EQ(it.lineages, 4);
  EXPECT_EQ(it.total.pass_to_fail, 1);  // a0 -> a1
  EXPECT_EQ(it.total.fail_to_fail, 1);  // b0 -> b1
  EXPECT_EQ(it.total.fail_to_pass, 2);  // b1 -> b2, c0 -> c1
  EXPECT_EQ(it.total.pass_to_pass, 0);
  ASSERT_EQ(it.steps.size(), 2U);
  EXPECT_EQ(it.steps[0].from, "0");
  EXPECT_EQ(it.steps[0].to, "1");
  EXPECT_EQ(it.steps[0].counts.fail_to_pass, 1);
  EXPECT_EQ(it.steps[0].counts.pass_to_fail, 1);
  EXPECT_EQ(it.steps[1].counts.fail_to_pass, 1);
}

TEST(Iterations, SeparatesRescuedFromPersistentlyCorrectWithTheirFirstCorrectSpeedup) {
  const Iterations it = iterations({refine_run()})[0];
  EXPECT_EQ(it.persistent.lineages, 1);
  EXPECT_EQ(it.persistent.timed, 1);
  EXPECT_DOUBLE_EQ(*it.persistent.geomean_speedup, 2.0);
  EXPECT_EQ(it.rescued.lineages, 2);
  EXPECT_EQ(it.rescued.timed, 1);  // c1 was not timed
  EXPECT_DOUBLE_EQ(*it.rescued.geomean_speedup, 0.5);
  EXPECT_EQ(it.never_correct, 1);
}

TEST(Iterations, RatesPerRoundAndLineagesSolvedByEachRound) {
  const Iterations it = iterations({refine_run()})[0];
  ASSERT_EQ(it.rounds.size(), 3U);
  EXPECT_EQ(it.rounds[0].submissions, 4);
  EXPECT_EQ(it.rounds[0].exe_pass, 1);
  EXPECT_EQ(it.rounds[0].lineages, 4);
  EXPECT_EQ(it.rounds[0].solved_by_round, 1);
  EXPECT_EQ(it.rounds[1].submissions, 3);
  EXPECT_EQ(it.rounds[1].exe_pass, 1);
  EXPECT_EQ(it.rounds[1].solved_by_round, 2);  // a (round 0), c (round 1)
  EXPECT_EQ(it.rounds[2].solved_by_round, 3);
  EXPECT_DOUBLE_EQ(*it.rounds[0].geomean_speedup, 2.0);
  EXPECT_FALSE(it.rounds[1].geomean_speedup);
}

// Eval runs labelled --round N: lineages by task, device and the other labels.
NamedRun labelled_run(const std::string& name, const std::string& round,
                      std::vector<std::pair<std::string, bool>> tasks) {
  NamedRun run;
  run.name = name;
  run.model.device = "cpu";
  run.model.labels = {{"method", "repair"}, {"round", round}, {"model", "m"}};
  for (const auto& [task, ok] : tasks) {
    SubmissionRow r;
    r.submission_id = name + task;
    r.file = task;
    r.category = "Math";
    r.outcome = ok ? "ok" : "compile_error";
    r.exe_ok = ok;
    r.call_ok = ok;
    run.model.rows.push_back(r);
  }
  return run;
}

TEST(Iterations, JoinsRunsLabelledWithRoundsByTaskAndOtherLabels) {
  auto its = iterations({labelled_run("r0", "0", {{"Math/x.py", false}, {"Math/y.py", true}}),
                         labelled_run("r1", "1", {{"Math/x.py", true}, {"Math/y.py", true}}),
                         labelled_run("r10", "10", {{"Math/x.py", true}})});
  ASSERT_EQ(its.size(), 1U);
  const Iterations& it = its[0];
  EXPECT_EQ(it.lineages, 2);
  ASSERT_EQ(it.rounds.size(), 3U);
  EXPECT_EQ(it.rounds[2].round, "10");  // numeric order, not "1" < "10" < ... by text alone
  EXPECT_EQ(it.total.fail_to_pass, 1);
  EXPECT_EQ(it.total.pass_to_pass, 2);  // y 0 -> 1, x 1 -> 10
  EXPECT_EQ(it.rescued.lineages, 1);
  EXPECT_EQ(it.persistent.lineages, 1);
}

TEST(Iterations, LeavesOutRunsWithoutRoundsAndSingleRoundMethods) {
  auto one_shot = labelled_run("a", "0", {{"Math/x.py", true}});
  one_shot.model.labels["method"] = "one-shot";
  auto unlabelled = labelled_run("b", "0", {{"Math/x.py", true}});
  unlabelled.model.labels.erase("round");
  EXPECT_TRUE(iterations({one_shot, unlabelled}).empty());
}

TEST(Iterations, JsonAndCsvCarryEveryFigure) {
  auto its = iterations({refine_run()});
  Json j = iterations_json(its);
  EXPECT_EQ(j[0]["transitions"]["fail_to_pass"], 2);
  EXPECT_EQ(j[0]["rescued"]["lineages"], 2);
  EXPECT_EQ(j[0]["rounds"][2]["solved_by_round"], 3);
  std::string csv = iterations_csv(its);
  EXPECT_NE(csv.find("round,refine,1,3,3,1,0,,4,2\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("step,refine,0,1,1,1,0,1\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("lineage,refine,rescued,2,1,0.5\n"), std::string::npos) << csv;
  EXPECT_NE(render_iterations(its).find("rescued 2"), std::string::npos);
}

}  // namespace
}  // namespace kbx::report

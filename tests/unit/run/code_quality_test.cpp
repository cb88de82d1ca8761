// Tests of measure_code_quality's plumbing with stand-in interpreters (shell scripts): the request
// it writes, the reply it reads, and a note instead of figures when the step fails.
#include "kbx/run/code_quality.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "support/test_support.h"

namespace kbx::run {
namespace {

using kbx::testing::ScopedTempDir;
namespace fs = std::filesystem;

report::ReportModel two_rows() {
  report::ReportModel m;
  m.rows.resize(2);
  m.rows[0].submission_id = "s1";
  m.rows[0].code = "def f():\n    return 1\n";
  m.rows[1].submission_id = "s2";
  m.rows[1].code = "x = 1\n";
  return m;
}

// An executable script standing in for Python: called as SCRIPT -m kbx_worker.code_quality IN OUT.
std::string fake_python(const ScopedTempDir& dir, const std::string& body) {
  fs::path script = dir.write("python", "#!/bin/sh\n" + body + "\n");
  fs::permissions(script, fs::perms::owner_all);
  return script.string();
}

TEST(CodeQuality, SendsEverySourceByIdAndReturnsTheReply) {
  ScopedTempDir dir;
  // Echo the request's ids back with figures, and check the arguments and PYTHONPATH on the way.
  std::string python = fake_python(
      dir,
      "[ \"$1 $2\" = \"-m kbx_worker.code_quality\" ] || exit 9\n"
      "[ \"$PYTHONPATH\" = \"/opt/worker\" ] || exit 8\n"
      "grep -q '\"s1\":\"def f():' \"$3\" && grep -q '\"s2\":\"x = 1' \"$3\" || exit 7\n"
      "echo '{\"radon\": \"6.0.1\", \"note\": \"\", \"results\": {\"s1\": {\"code_quality\": 1,"
      " \"maintainability\": 90, \"error\": \"\"}}}' > \"$4\"");
  Json reply = measure_code_quality({python, "/opt/worker"}, two_rows());
  EXPECT_EQ(reply["radon"], "6.0.1");
  EXPECT_EQ(reply["results"]["s1"]["maintainability"], 90);
}

TEST(CodeQuality, AMissingInterpreterGivesANoteAndNoResults) {
  Json reply = measure_code_quality({"/nonexistent/python3", "/opt/worker"}, two_rows());
  EXPECT_EQ(reply["results"], Json::object());
  EXPECT_NE(reply["note"].get<std::string>().find("cannot start '/nonexistent/python3'"),
            std::string::npos)
      << reply.dump();
}

TEST(CodeQuality, AFailingStepGivesANoteWithItsExitStatusAndOutput) {
  ScopedTempDir dir;
  std::string python = fake_python(dir, "echo 'Traceback: boom' >&2\nexit 3");
  Json reply = measure_code_quality({python, "/opt/worker"}, two_rows());
  std::string note = reply["note"];
  EXPECT_NE(note.find("exited with status 3"), std::string::npos) << note;
  EXPECT_NE(note.find("Traceback: boom"), std::string::npos) << note;
  EXPECT_EQ(reply["results"], Json::object());
}

TEST(CodeQuality, AStepPastItsDeadlineIsKilled) {
  ScopedTempDir dir;
  std::string python = fake_python(dir, "exec sleep 30");
  CodeQualityStep step{python, "/opt/worker"};
  step.timeout = std::chrono::seconds(1);
  Json reply = measure_code_quality(step, two_rows());
  EXPECT_NE(reply["note"].get<std::string>().find("ran past 1 s and was killed"), std::string::npos)
      << reply.dump();
}

TEST(CodeQuality, AReplyThatIsNotJsonGivesANote) {
  ScopedTempDir dir;
  std::string python = fake_python(dir, "echo 'not json' > \"$4\"");
  Json reply = measure_code_quality({python, "/opt/worker"}, two_rows());
  EXPECT_NE(reply["note"].get<std::string>().find("not a JSON object"), std::string::npos);
}

}  // namespace
}  // namespace kbx::run

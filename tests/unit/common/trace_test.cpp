// Tests of Trace: spans per thread lane and named lane, Chrome's trace-event JSON, the file.
#include "kbx/common/trace.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <thread>

#include "kbx/common/files.h"
#include "support/test_support.h"

namespace kbx {
namespace {

using Clock = Trace::Clock;
using std::chrono::milliseconds;

/// The complete ("X") events of a trace, and the lane names by tid.
struct Parsed {
  std::vector<Json> spans;
  std::map<int, std::string> lanes;
};

Parsed parse(const Json& j) {
  Parsed p;
  for (const Json& e : j.at("traceEvents")) {
    if (e.at("ph") == "X") {
      p.spans.push_back(e);
    } else if (e.at("name") == "thread_name") {
      p.lanes[e.at("tid").get<int>()] = e.at("args").at("name").get<std::string>();
    }
  }
  return p;
}

TEST(Trace, SpansAreMicrosecondsFromTheOriginOnTheirLanes) {
  auto origin = Clock::now();
  Trace trace(origin);
  trace.span("cases", "stage", origin + milliseconds(2), origin + milliseconds(5),
             Json{{"task", "Math/abs.py"}});
  trace.span_on("exclusive cuda:0", "Math/abs.py", "exclusive", origin + milliseconds(5),
                origin + milliseconds(9));
  std::thread other([&] {
    trace.span("load", "stage", origin + milliseconds(1), origin + milliseconds(2));
  });
  other.join();
  auto p = parse(trace.to_json());
  ASSERT_EQ(p.spans.size(), 3U);
  EXPECT_EQ(trace.size(), 3U);
  EXPECT_EQ(p.spans[0].at("name"), "cases");
  EXPECT_DOUBLE_EQ(p.spans[0].at("ts").get<double>(), 2000.0);
  EXPECT_DOUBLE_EQ(p.spans[0].at("dur").get<double>(), 3000.0);
  EXPECT_EQ(p.spans[0].at("args").at("task"), "Math/abs.py");
  EXPECT_FALSE(p.spans[1].contains("args"));  // no empty args
  // Three lanes: this thread, the named one, the other thread; each span on its own.
  std::set<int> tids;
  for (const auto& s : p.spans) {
    tids.insert(s.at("tid").get<int>());
  }
  EXPECT_EQ(tids.size(), 3U);
  EXPECT_EQ(p.lanes.at(p.spans[0].at("tid").get<int>()), "thread 0");
  EXPECT_EQ(p.lanes.at(p.spans[1].at("tid").get<int>()), "exclusive cuda:0");
  EXPECT_EQ(p.lanes.at(p.spans[2].at("tid").get<int>()), "thread 1");
}

TEST(Trace, AnEndBeforeItsBeginIsAnEmptySpan) {
  auto origin = Clock::now();
  Trace trace(origin);
  trace.span("odd", "stage", origin + milliseconds(3), origin + milliseconds(1));
  auto p = parse(trace.to_json());
  ASSERT_EQ(p.spans.size(), 1U);
  EXPECT_DOUBLE_EQ(p.spans[0].at("dur").get<double>(), 0.0);
}

TEST(TraceScope, RecordsOneSpanAndNothingWithoutATrace) {
  Trace trace;
  { TraceScope scope(&trace, "perf recheck", "stage"); }
  { TraceScope none(nullptr, "ignored", "stage"); }
  EXPECT_EQ(trace.size(), 1U);
}

TEST(Trace, WritesAFileChromeCanRead) {
  kbx::testing::ScopedTempDir dir;
  Trace trace;
  trace.span("cases", "stage", Clock::now(), Clock::now());
  auto path = dir.path() / "trace.json";
  trace.write(path);
  Json j = Json::parse(read_file(path));
  EXPECT_EQ(j.at("displayTimeUnit"), "ms");
  EXPECT_EQ(parse(j).spans.size(), 1U);
}

}  // namespace
}  // namespace kbx

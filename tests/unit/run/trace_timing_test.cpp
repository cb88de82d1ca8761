// Tests of trace_time_request: a time request's phases laid end to end inside its span.
#include "kbx/run/trace_timing.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace kbx::run {
namespace {

using Clock = Trace::Clock;
using std::chrono::milliseconds;

store::TimingRecord timed(int workload, std::vector<std::pair<std::string, double>> phases) {
  store::TimingRecord t;
  t.workload = workload;
  t.samples_ms = {0.1, 0.1};
  t.phase_ms = std::move(phases);
  return t;
}

TEST(TraceTimeRequest, LaysPhasesEndToEndWithTheInventoryLast) {
  auto origin = Clock::now();
  Trace trace(origin);
  std::vector<store::TimingRecord> timings{
      timed(0, {{"inputs", 1}, {"warmup", 2}, {"samples", 10}, {"brackets", 1}, {"setup", 5},
                {"inventory", 3}}),
      timed(1, {{"inputs", 1}, {"samples", 4}, {"inventory", 2}})};
  trace_time_request(&trace, "", "candidate timing", Json{{"task", "T"}}, origin,
                     origin + milliseconds(40), timings);
  std::vector<std::tuple<std::string, double, double>> spans;  // name, begin, end in ms
  Json j = trace.to_json();
  for (const Json& e : j.at("traceEvents")) {
    if (e.at("ph") == "X") {
      double b = e.at("ts").get<double>() / 1e3;
      spans.emplace_back(e.at("name").get<std::string>(), b, b + e.at("dur").get<double>() / 1e3);
    }
  }
  using S = std::tuple<std::string, double, double>;
  std::vector<S> want{S{"candidate timing", 0, 40}, S{"setup", 0, 5},     S{"workload 0", 5, 19},
                      S{"inputs", 5, 6},            S{"warmup", 6, 8},    S{"samples", 8, 18},
                      S{"brackets", 18, 19},        S{"workload 1", 19, 24}, S{"inputs", 19, 20},
                      S{"samples", 20, 24},         S{"inventory 0", 24, 27},
                      S{"inventory 1", 27, 29}};
  ASSERT_EQ(spans.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(std::get<0>(spans[i]), std::get<0>(want[i])) << i;
    EXPECT_NEAR(std::get<1>(spans[i]), std::get<1>(want[i]), 1e-3) << i;
    EXPECT_NEAR(std::get<2>(spans[i]), std::get<2>(want[i]), 1e-3) << i;
  }
}

TEST(TraceTimeRequest, EachWorkloadSpanCarriesItsMedianAndTheGpuClock) {
  auto origin = Clock::now();
  Trace trace(origin);
  auto clocked = timed(0, {{"samples", 10}});
  clocked.samples_ms = {0.3, 0.1, 0.2, 0.5};
  clocked.gpu_mhz = 1755.5;
  std::vector<store::TimingRecord> timings{clocked, timed(1, {{"samples", 4}})};
  trace_time_request(&trace, "", "candidate timing", Json{{"task", "T"}}, origin,
                     origin + milliseconds(40), timings);
  std::map<std::string, Json> args;
  Json j = trace.to_json();  // kept: a range over a temporary's member would dangle
  for (const Json& e : j.at("traceEvents")) {
    if (e.at("ph") == "X" && e.at("name").get<std::string>().rfind("workload", 0) == 0) {
      args[e.at("name").get<std::string>()] = e.at("args");
    }
  }
  EXPECT_EQ(args["workload 0"]["median_ms"], 0.25);  // the report's median (stats::summarize)
  EXPECT_EQ(args["workload 0"]["gpu_mhz"], 1755.5);
  EXPECT_EQ(args["workload 1"]["median_ms"], 0.1);
  EXPECT_FALSE(args["workload 1"].contains("gpu_mhz"));
}

TEST(TraceTimeRequest, PhasesNeverRunPastTheRequestAndNothingWithoutATrace) {
  auto origin = Clock::now();
  Trace trace(origin);
  trace_time_request(&trace, "exclusive cuda:0", "T", Json::object(), origin,
                     origin + milliseconds(5), {timed(0, {{"samples", 100}})});
  Json j = trace.to_json();
  for (const Json& e : j.at("traceEvents")) {
    if (e.at("ph") == "X") {
      EXPECT_LE(e.at("ts").get<double>() + e.at("dur").get<double>(), 5000.0 + 1e-6);
    }
  }
  trace_time_request(nullptr, "", "T", Json::object(), origin, origin, {timed(0, {})});
}

}  // namespace
}  // namespace kbx::run

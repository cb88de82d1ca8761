// Tests of decoding `cases` and `timings` replies, and of describing worker errors.
#include "kbx/run/replies.h"
#include "kbx/common/strings.h"
#include "support/test_support.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace kbx::run {
namespace {


sandbox::Frame reply(const Json& header, std::vector<std::uint8_t> payload = {}) {
  sandbox::Frame f;
  f.header = header;
  f.payload = std::move(payload);
  return f;
}

sandbox::Frame cases_reply(const Json& results, std::vector<std::uint8_t> payload = {}) {
  return reply(Json{{"op", "cases"}, {"results", results}, {"triton_launches", 1}},
               std::move(payload));
}

sandbox::Frame timings_reply(const Json& results) {
  return reply(Json{{"op", "timings"}, {"results", results}});
}

std::string case_error(const sandbox::Frame& f) {
  auto r = decode_case_results(f);
  if (r) {
    ADD_FAILURE() << "expected an error for " << f.header.dump();
    return {};
  }
  EXPECT_EQ(r.error().kind(), ErrorKind::protocol);
  return r.error().what();
}

std::string timings_error(const sandbox::Frame& f) {
  auto r = decode_timings(f);
  if (r) {
    ADD_FAILURE() << "expected an error for " << f.header.dump();
    return {};
  }
  EXPECT_EQ(r.error().kind(), ErrorKind::protocol);
  return r.error().what();
}

TEST(DecodeCaseResults, DecodesOkErrorAndNotRunResultsInOrder) {
  std::vector<std::uint8_t> payload(8);
  float values[2] = {1.5F, -1.0F};
  std::memcpy(payload.data(), values, 8);
  Json results = Json::array(
      {{{"index", 0},
        {"status", "ok"},
        {"time_ms", 1.25},
        {"triton_launches", 2},
        {"outputs",
         {{{"path", "out"},
           {"kind", "tensor"},
           {"tensor",
            {{"dtype", "float32"},
             {"shape", {2}},
             {"device", "cuda"},
             {"offset", 0},
             {"nbytes", 8}}}}}}},
       {{"index", 1},
        {"status", "error"},
        {"time_ms", 0.5},
        {"error", {{"kind", "runtime_error"}, {"type", "ValueError"}, {"message", "bad"}}}},
       {{"index", 2}, {"status", "not_run"}}});
  auto r = decode_case_results(cases_reply(results, payload));
  ASSERT_TRUE(r.ok()) << r.error().what();
  ASSERT_EQ(r->size(), 3U);
  const auto& ok = (*r)[0];
  EXPECT_EQ(ok.index, 0);
  EXPECT_EQ(ok.status, CaseStatus::ok);
  EXPECT_EQ(ok.time_ms, 1.25);
  EXPECT_EQ(ok.triton_launches, 2);
  ASSERT_EQ(ok.outputs.size(), 1U);
  EXPECT_EQ(ok.outputs[0].tensor.real_at(0), 1.5);
  const auto& err = (*r)[1];
  EXPECT_EQ(err.status, CaseStatus::error);
  EXPECT_EQ(err.triton_launches, 0);
  EXPECT_EQ(err.error["type"], "ValueError");
  EXPECT_TRUE(err.outputs.empty());
  EXPECT_EQ((*r)[2].status, CaseStatus::not_run);
  EXPECT_EQ((*r)[2].time_ms, 0);
}

TEST(DecodeCaseResults, OkResultWithoutOutputsHasNoLeaves) {
  auto r = decode_case_results(cases_reply(Json::array({{{"index", 0}, {"status", "ok"}}})));
  ASSERT_TRUE(r.ok()) << r.error().what();
  EXPECT_TRUE((*r)[0].outputs.empty());
}

TEST(DecodeCaseResults, ReplyOfAnotherOpIsAnErrorNamingItEvenWithResults) {
  EXPECT_CONTAINS(case_error(reply(Json{{"op", "error"}, {"error", {{"kind", "protocol_error"}}}})),
                  "got 'error'");
  Json results = Json::array({{{"index", 0}, {"status", "not_run"}}});
  EXPECT_CONTAINS(case_error(reply(Json{{"op", "timings"}, {"results", results}})),
                  "got 'timings'");
}

TEST(DecodeCaseResults, ReplyWithoutAResultsArrayIsAnError) {
  case_error(reply(Json{{"op", "cases"}}));
  case_error(reply(Json{{"op", "cases"}, {"results", {{"index", 0}}}}));
}

TEST(DecodeCaseResults, ResultMissingItsIndexOrStatusIsAnError) {
  EXPECT_CONTAINS(case_error(cases_reply(Json::array({{{"status", "ok"}}}))),
                  "malformed 'cases' reply");
  case_error(cases_reply(Json::array({{{"index", 0}}})));
  case_error(cases_reply(Json::array({{{"index", "0"}, {"status", "ok"}}})));
  case_error(cases_reply(Json::array({1, 2})));
}

TEST(DecodeCaseResults, ResultWithIllTypedNumbersIsAnError) {
  case_error(cases_reply(Json::array({{{"index", 0}, {"status", "ok"}, {"time_ms", "fast"}}})));
  case_error(
      cases_reply(Json::array({{{"index", 0}, {"status", "ok"}, {"triton_launches", nullptr}}})));
}

// Found by fuzz/worker_reply_fuzz.cpp: get<int>() and value<std::int64_t>() cast floats unchecked
// (undefined behaviour for 1e300); an index or count must be an integer its type can hold.
TEST(DecodeCaseResults, FloatOrOutOfRangeIndexesAndCountsAreErrors) {
  for (const Json& bad : {Json(1e300), Json(0.5), Json(std::uint64_t{1} << 63)}) {
    EXPECT_CONTAINS(case_error(cases_reply(Json::array({{{"index", bad}, {"status", "ok"}}}))),
                    "index is not an integer");
    for (const char* field : {"triton_launches", "torch_ops"}) {
      EXPECT_CONTAINS(
          case_error(cases_reply(Json::array({{{"index", 0}, {"status", "ok"}, {field, bad}}}))),
          "is not an integer");
    }
  }
}

TEST(DecodeCaseResults, UnknownStatusIsAnError) {
  EXPECT_CONTAINS(case_error(cases_reply(Json::array({{{"index", 0}, {"status", "maybe"}}}))),
                  "unknown case status \"maybe\"");
}

TEST(DecodeCaseResults, ErrorResultWhoseErrorIsNotAnObjectIsAnError) {
  case_error(cases_reply(Json::array({{{"index", 0}, {"status", "error"}, {"error", "boom"}}})));
}

TEST(DecodeCaseResults, OutputThatDoesNotFitThePayloadIsAnError) {
  Json results = Json::array(
      {{{"index", 0},
        {"status", "ok"},
        {"outputs",
         {{{"path", "out"},
           {"kind", "tensor"},
           {"tensor", {{"dtype", "float32"}, {"shape", {4}}, {"offset", 0}, {"nbytes", 16}}}}}}}});
  EXPECT_CONTAINS(case_error(cases_reply(results, std::vector<std::uint8_t>(8))), "does not fit");
}

TEST(DecodeTimings, DecodesTheKernelInventoryWithEachCallsBusyTime) {
  Json inventory = {{"index", 0},
                    {"status", "ok"},
                    {"samples_ms", {0.5, 0.5}},
                    {"warmup_calls", 3},
                    {"kernels", {{{"name", "k"}, {"origin", "triton"}, {"launches", 2},
                                  {"gpu_ms", 0.9}}}},
                    {"kernel_calls", 2},
                    {"kernel_busy_ms", 0.45},
                    {"inventory_kernel_ms", {0.5, 0.4}},
                    {"inventory_ms", {0.6, 0.5}}};
  auto before = decode_timings(timings_reply(Json::array({inventory})));
  ASSERT_TRUE(before.ok()) << before.error().what();
  EXPECT_TRUE((*before)[0].inventory_busy_ms.empty());  // a worker that does not report it
  inventory["inventory_busy_ms"] = {0.5, 0.4};
  auto r = decode_timings(timings_reply(Json::array({inventory})));
  ASSERT_TRUE(r.ok()) << r.error().what();
  EXPECT_EQ((*r)[0].kernel_calls, 2);
  EXPECT_EQ((*r)[0].inventory_ms, (std::vector<double>{0.6, 0.5}));
  EXPECT_EQ((*r)[0].inventory_busy_ms, (std::vector<double>{0.5, 0.4}));
}

TEST(DecodeTimings, DecodesSamplesAndErrors) {
  Json results = Json::array(
      {{{"index", 0}, {"status", "ok"}, {"samples_ms", {0.5, 0.25}}, {"warmup_calls", 3}},
       {{"index", 1},
        {"status", "error"},
        {"error",
         {{"kind", "out_of_memory"}, {"type", "OutOfMemoryError"}, {"message", "CUDA"}}}}});
  auto r = decode_timings(timings_reply(results));
  ASSERT_TRUE(r.ok()) << r.error().what();
  ASSERT_EQ(r->size(), 2U);
  EXPECT_EQ((*r)[0].workload, 0);
  EXPECT_EQ((*r)[0].status, "ok");
  EXPECT_EQ((*r)[0].samples_ms, (std::vector<double>{0.5, 0.25}));
  EXPECT_EQ((*r)[0].warmup_calls, 3);
  EXPECT_EQ((*r)[1].workload, 1);
  EXPECT_EQ((*r)[1].status, "error");
  EXPECT_EQ((*r)[1].error, "OutOfMemoryError: CUDA");
  EXPECT_TRUE((*r)[1].samples_ms.empty());
}

TEST(DecodeTimings, PhasesAreReadInOrderAndMustBeTimes) {
  auto r = decode_timings(timings_reply(Json::array(
      {{{"index", 0},
        {"status", "ok"},
        {"samples_ms", {0.5}},
        {"phase_ms", {{"setup", 50.0}, {"inputs", 1.5}, {"samples", 20.0}}}}})));
  ASSERT_TRUE(r.ok()) << r.error().what();
  using Phases = std::vector<std::pair<std::string, double>>;
  EXPECT_EQ((*r)[0].phase_ms, (Phases{{"setup", 50.0}, {"inputs", 1.5}, {"samples", 20.0}}));
  EXPECT_CONTAINS(timings_error(timings_reply(Json::array(
                      {{{"index", 0}, {"status", "ok"}, {"samples_ms", {0.5}},
                        {"phase_ms", {{"samples", -1.0}}}}}))),
                  "phase_ms.samples");
  EXPECT_CONTAINS(timings_error(timings_reply(Json::array(
                      {{{"index", 0}, {"status", "ok"}, {"samples_ms", {0.5}},
                        {"phase_ms", Json::array({1.0})}}}))),
                  "phase_ms");
  auto odd = decode_timings(timings_reply(Json::array(
      {{{"index", 0},
        {"status", "ok"},
        {"samples_ms", {0.5}},
        {"phase_ms", {{"samples", 2.0}, {"\xff\xfe forged", 1.0}}}}})));
  ASSERT_TRUE(odd.ok()) << odd.error().what();
  EXPECT_EQ((*odd)[0].phase_ms, (Phases{{"samples", 2.0}}));  // unknown names are not kept
  Json many = Json::object();
  for (int i = 0; i < 9; ++i) {
    many[fmt::format("p{}", i)] = 1.0;
  }
  EXPECT_CONTAINS(timings_error(timings_reply(Json::array(
                      {{{"index", 0}, {"status", "ok"}, {"samples_ms", {0.5}}, {"phase_ms", many}}}))),
                  "at most 8");
}

TEST(DecodeTimings, TheGpuClockIsKeptWhenPlausibleAndNeverAnError) {
  auto with = [](Json mhz) {
    return decode_timings(timings_reply(Json::array(
        {{{"index", 0}, {"status", "ok"}, {"samples_ms", {0.5}}, {"gpu_mhz", std::move(mhz)}}})));
  };
  auto r = with(1980.0);
  ASSERT_TRUE(r.ok()) << r.error().what();
  EXPECT_EQ((*r)[0].gpu_mhz, 1980.0);
  for (const Json& odd : {Json(-5.0), Json(0.0), Json(1e9), Json("fast"), Json(nullptr)}) {
    auto o = with(odd);  // informative: a forged or broken clock is dropped, the timing stands
    ASSERT_TRUE(o.ok()) << odd.dump() << ": " << o.error().what();
    EXPECT_FALSE((*o)[0].gpu_mhz.has_value()) << odd.dump();
  }
}

TEST(DecodeTimings, HostTimeIsReadAndMustBeANonNegativeNumber) {
  auto r = decode_timings(timings_reply(Json::array(
      {{{"index", 0}, {"status", "ok"}, {"samples_ms", {0.5}}, {"host_ms", 0.08}}})));
  ASSERT_TRUE(r.ok()) << r.error().what();
  EXPECT_EQ((*r)[0].host_ms, 0.08);
  auto none = decode_timings(
      timings_reply(Json::array({{{"index", 0}, {"status", "ok"}, {"samples_ms", {0.5}}}})));
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE((*none)[0].host_ms.has_value());
  EXPECT_CONTAINS(timings_error(timings_reply(Json::array(
                      {{{"index", 0}, {"status", "ok"}, {"samples_ms", {0.5}}, {"host_ms", -1.0}}}))),
                  "host_ms");
}

TEST(DecodeTimings, OkResultWithNoSamplesBecomesAnError) {
  auto r = decode_timings(timings_reply(
      Json::array({{{"index", 0}, {"status", "ok"}, {"samples_ms", Json::array()}}})));
  ASSERT_TRUE(r.ok()) << r.error().what();
  EXPECT_EQ((*r)[0].status, "error");
  EXPECT_EQ((*r)[0].error, "no samples");
}

TEST(DecodeTimings, ReplyOfAnotherOpOrWithoutResultsIsAnError) {
  EXPECT_CONTAINS(timings_error(reply(Json{{"op", "cases"}, {"results", Json::array()}})),
                  "got 'cases'");
  timings_error(reply(Json{{"op", "timings"}}));
}

TEST(DecodeTimings, ResultsThatAreNotAnArrayAreAnError) {
  timings_error(
      reply(Json{{"op", "timings"},
                 {"results", {{"w", {{"index", 0}, {"status", "ok"}, {"samples_ms", {1.0}}}}}}}));
  timings_error(reply(Json{{"op", "timings"}, {"results", 3}}));
}

TEST(DecodeTimings, MalformedResultsAreErrors) {
  EXPECT_CONTAINS(timings_error(timings_reply(Json::array({{{"index", 0}, {"status", "ok"}}}))),
                  "malformed 'timings' reply");
  timings_error(
      timings_reply(Json::array({{{"index", 0}, {"status", "ok"}, {"samples_ms", {"x"}}}})));
  timings_error(timings_reply(Json::array({{{"status", "ok"}, {"samples_ms", {1.0}}}})));
  timings_error(
      timings_reply(Json::array({{{"index", 0}, {"status", "error"}, {"error", "boom"}}})));
}

TEST(DecodeTimings, FloatOrOutOfRangeIndexesAndCountsAreErrors) {
  for (const Json& bad : {Json(1e300), Json(-0.5), Json(std::int64_t{1} << 40)}) {
    EXPECT_CONTAINS(timings_error(timings_reply(
                        Json::array({{{"index", bad}, {"status", "ok"}, {"samples_ms", {1.0}}}}))),
                    "index is not an integer");
    EXPECT_CONTAINS(
        timings_error(timings_reply(Json::array(
            {{{"index", 0}, {"status", "ok"}, {"samples_ms", {1.0}}, {"warmup_calls", bad}}}))),
        "warmup_calls is not an integer");
  }
}

Json ok_timing(const Json& extra) {
  Json r{{"index", 0}, {"status", "ok"}, {"samples_ms", {0.5}}};
  r.update(extra);
  return Json::array({r});
}

TEST(DecodeTimings, GraphSamplesAndErrorsAreReadBesideTheEagerSamples) {
  auto r = decode_timings(timings_reply(ok_timing({{"graph_samples_ms", {0.004, 0.005}}})));
  ASSERT_TRUE(r.ok()) << r.error().what();
  EXPECT_EQ((*r)[0].samples_ms, (std::vector<double>{0.5}));
  EXPECT_EQ((*r)[0].graph_samples_ms, (std::vector<double>{0.004, 0.005}));
  EXPECT_TRUE((*r)[0].graph_error.empty());
  auto failed = decode_timings(timings_reply(
      ok_timing({{"graph_error", "RuntimeError: operation not permitted when stream is "
                                 "capturing"}})));
  ASSERT_TRUE(failed.ok()) << failed.error().what();
  EXPECT_EQ((*failed)[0].status, "ok");
  EXPECT_TRUE((*failed)[0].graph_samples_ms.empty());
  EXPECT_EQ((*failed)[0].graph_error,
            "RuntimeError: operation not permitted when stream is capturing");
  auto none = decode_timings(timings_reply(ok_timing(Json::object())));
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE((*none)[0].graph_samples_ms.empty());
  EXPECT_TRUE((*none)[0].graph_error.empty());
}

TEST(DecodeTimings, MalformedGraphFiguresAreProtocolErrors) {
  for (const Json& bad : {Json(0.0), Json(-1.0), Json("x"), Json(nullptr),
                          Json(std::numeric_limits<double>::infinity())}) {
    EXPECT_CONTAINS(timings_error(timings_reply(ok_timing({{"graph_samples_ms", {0.1, bad}}}))),
                    "graph sample");
  }
  EXPECT_CONTAINS(timings_error(timings_reply(ok_timing({{"graph_samples_ms", 0.1}}))),
                  "graph_samples_ms must be a list");
  EXPECT_CONTAINS(timings_error(timings_reply(ok_timing({{"graph_samples_ms", Json::array()}}))),
                  "graph_samples_ms must be a list");
  Json many = Json::array();
  for (std::size_t i = 0; i <= max_graph_samples; ++i) {
    many.push_back(0.01);
  }
  EXPECT_CONTAINS(timings_error(timings_reply(ok_timing({{"graph_samples_ms", many}}))),
                  "1 to 100000");
  EXPECT_CONTAINS(timings_error(timings_reply(ok_timing({{"graph_error", 3}}))),
                  "graph_error is not a string");
  EXPECT_CONTAINS(timings_error(timings_reply(ok_timing(
                      {{"graph_samples_ms", {0.1}}, {"graph_error", "RuntimeError: x"}}))),
                  "both");
}

TEST(DecodeTimings, AGraphErrorIsCutTo200PrintableBytes) {
  std::string long_text = "RuntimeError: " + std::string(500, 'x');
  auto r = decode_timings(timings_reply(ok_timing({{"graph_error", long_text}})));
  ASSERT_TRUE(r.ok()) << r.error().what();
  EXPECT_EQ((*r)[0].graph_error.size(), max_graph_error_bytes);
  EXPECT_EQ((*r)[0].graph_error, long_text.substr(0, max_graph_error_bytes));
  std::string accents = "a";  // then é, two bytes each: byte 200 falls inside one
  for (int i = 0; i < 150; ++i) {
    accents += "\xc3\xa9";
  }
  auto cut = decode_timings(timings_reply(ok_timing({{"graph_error", accents + "\n"}})));
  ASSERT_TRUE(cut.ok());
  EXPECT_EQ((*cut)[0].graph_error.size(), max_graph_error_bytes - 1);
  EXPECT_EQ(utf8_valid_prefix((*cut)[0].graph_error), (*cut)[0].graph_error.size());
}

TEST(DecodeTimings, AnErrorResultKeepsNoGraphFigures) {
  auto r = decode_timings(timings_reply(
      Json::array({{{"index", 0}, {"status", "ok"}, {"samples_ms", Json::array()},
                    {"graph_samples_ms", {0.1}}}})));
  ASSERT_TRUE(r.ok()) << r.error().what();
  EXPECT_EQ((*r)[0].status, "error");
  EXPECT_TRUE((*r)[0].graph_samples_ms.empty());
}

TEST(DescribeWorkerError, JoinsTypeAndMessage) {
  EXPECT_EQ(describe_worker_error(
                Json{{"kind", "runtime_error"},
                     {"type", "TypeError"},
                     {"message", "softmax() missing 1 required positional argument: 'dim'"},
                     {"traceback", "..."}}),
            "TypeError: softmax() missing 1 required positional argument: 'dim'");
}

TEST(DescribeWorkerError, FallsBackFromTypeToMessageToKind) {
  EXPECT_EQ(describe_worker_error(Json{{"type", "KeyError"}, {"message", ""}}), "KeyError");
  EXPECT_EQ(describe_worker_error(Json{{"message", "no entry point"}}), "no entry point");
  EXPECT_EQ(describe_worker_error(Json{{"kind", "no_entry"}}), "no_entry");
  EXPECT_EQ(describe_worker_error(Json::object()), "error");
}

TEST(DescribeWorkerError, MalformedErrorsAreDescribedRatherThanThrown) {
  EXPECT_NO_THROW((void)describe_worker_error(Json("boom")));
  EXPECT_CONTAINS(describe_worker_error(Json("boom")), "boom");
  EXPECT_NO_THROW((void)describe_worker_error(Json(nullptr)));
  EXPECT_NO_THROW((void)describe_worker_error(Json{{"type", 3}, {"message", {1}}}));
  EXPECT_EQ(describe_worker_error(Json{{"type", 3}, {"message", "text"}}), "text");
}

}  // namespace
}  // namespace kbx::run

// Trace: where a run's wall time went, as spans written in Chrome's trace-event format.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kbx/common/json.h"

namespace kbx {

/// Spans (name, category, lane, begin, end, args) collected from any thread, written as one JSON
/// file that chrome://tracing and https://ui.perfetto.dev open (`kbx eval --trace FILE`). A lane is
/// a row of the timeline: each evaluating thread gets its own ("thread 3"), and named lanes
/// ("GPU 0 exclusive") gather spans from many threads. Thread-safe; a run without --trace has no
/// Trace (callers hold a nullable pointer), so tracing costs nothing unless asked for.
class Trace {
 public:
  using Clock = std::chrono::steady_clock;

  explicit Trace(Clock::time_point origin = Clock::now()) : origin_(origin) {}

  /// A span on the calling thread's lane.
  void span(std::string name, std::string category, Clock::time_point begin,
            Clock::time_point end, Json args = Json::object());
  /// A span on a named lane.
  void span_on(const std::string& lane, std::string name, std::string category,
               Clock::time_point begin, Clock::time_point end, Json args = Json::object());

  /// The trace as Chrome's JSON object format: {"traceEvents": [...], "displayTimeUnit": "ms"}.
  [[nodiscard]] Json to_json() const;
  /// Writes to_json() to `path` (atomically); throws kbx::Error naming the path on failure.
  void write(const std::filesystem::path& path) const;
  [[nodiscard]] std::size_t size() const;

 private:
  struct Event {
    std::string name;
    std::string category;
    int lane = 0;
    double begin_us = 0;
    double duration_us = 0;
    Json args;
  };
  int lane_of_thread();
  int lane_named(const std::string& lane);
  void add(int lane, std::string name, std::string category, Clock::time_point begin,
           Clock::time_point end, Json args);

  Clock::time_point origin_;
  mutable std::mutex mutex_;
  std::vector<Event> events_;
  std::map<std::string, int> lanes_;  ///< lane name -> id (threads are named "thread N")
  std::map<std::thread::id, int> thread_lanes_;
  int threads_ = 0;
};

/// A span from construction to destruction on the calling thread's lane; nothing without a trace.
class TraceScope {
 public:
  TraceScope(Trace* trace, std::string name, std::string category, Json args = Json::object())
      : trace_(trace), name_(std::move(name)), category_(std::move(category)),
        args_(std::move(args)), begin_(Trace::Clock::now()) {}
  ~TraceScope() {
    if (trace_ != nullptr) {
      trace_->span(std::move(name_), std::move(category_), begin_, Trace::Clock::now(),
                   std::move(args_));
    }
  }
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;

 private:
  Trace* trace_;
  std::string name_;
  std::string category_;
  Json args_;
  Trace::Clock::time_point begin_;
};

}  // namespace kbx

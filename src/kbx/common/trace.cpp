#include "kbx/common/trace.h"

#include <fmt/format.h>

#include "kbx/common/files.h"

namespace kbx {

void Trace::span(std::string name, std::string category, Clock::time_point begin,
                 Clock::time_point end, Json args) {
  std::lock_guard<std::mutex> l(mutex_);
  add(lane_of_thread(), std::move(name), std::move(category), begin, end, std::move(args));
}

void Trace::span_on(const std::string& lane, std::string name, std::string category,
                    Clock::time_point begin, Clock::time_point end, Json args) {
  std::lock_guard<std::mutex> l(mutex_);
  add(lane_named(lane), std::move(name), std::move(category), begin, end, std::move(args));
}

int Trace::lane_named(const std::string& lane) {
  auto [it, added] = lanes_.try_emplace(lane, static_cast<int>(lanes_.size()) + 1);
  return it->second;
}

int Trace::lane_of_thread() {
  auto it = thread_lanes_.find(std::this_thread::get_id());
  if (it != thread_lanes_.end()) {
    return it->second;
  }
  int lane = lane_named(fmt::format("thread {}", threads_++));
  thread_lanes_.emplace(std::this_thread::get_id(), lane);
  return lane;
}

void Trace::add(int lane, std::string name, std::string category, Clock::time_point begin,
                Clock::time_point end, Json args) {
  auto us = [&](Clock::time_point t) {
    return std::chrono::duration<double, std::micro>(t - origin_).count();
  };
  double b = us(begin);
  events_.push_back(Event{std::move(name), std::move(category), lane, b,
                          std::max(0.0, us(end) - b), std::move(args)});
}

Json Trace::to_json() const {
  std::lock_guard<std::mutex> l(mutex_);
  Json events = Json::array();
  for (const auto& [name, lane] : lanes_) {  // lane names; the sort index keeps first use first
    events.push_back(Json{{"ph", "M"}, {"name", "thread_name"}, {"pid", 1}, {"tid", lane},
                          {"args", {{"name", name}}}});
    events.push_back(Json{{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", 1}, {"tid", lane},
                          {"args", {{"sort_index", lane}}}});
  }
  events.push_back(
      Json{{"ph", "M"}, {"name", "process_name"}, {"pid", 1}, {"args", {{"name", "kbx"}}}});
  for (const Event& e : events_) {
    Json j{{"ph", "X"},       {"name", e.name}, {"cat", e.category}, {"pid", 1},
           {"tid", e.lane},   {"ts", e.begin_us}, {"dur", e.duration_us}};
    if (!e.args.empty()) {
      j["args"] = e.args;
    }
    events.push_back(std::move(j));
  }
  return Json{{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}};
}

void Trace::write(const std::filesystem::path& path) const {
  write_file_atomic(path, to_json().dump());
}

std::size_t Trace::size() const {
  std::lock_guard<std::mutex> l(mutex_);
  return events_.size();
}

}  // namespace kbx

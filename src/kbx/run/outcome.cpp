// Names of outcomes and case statuses, as stored and printed.
#include "kbx/run/outcome.h"

#include <array>
#include <utility>

namespace kbx::run {
namespace {

constexpr std::array<std::pair<Outcome, std::string_view>, 13> outcome_names{{
    {Outcome::ok, "ok"},
    {Outcome::incorrect, "incorrect"},
    {Outcome::not_triton, "not_triton"},
    {Outcome::compile_error, "compile_error"},
    {Outcome::runtime_error, "runtime_error"},
    {Outcome::timeout, "timeout"},
    {Outcome::crashed, "crashed"},
    {Outcome::limit_exceeded, "limit_exceeded"},
    {Outcome::protocol_violation, "protocol_violation"},
    {Outcome::tampered, "tampered"},
    {Outcome::worker_lost, "worker_lost"},
    {Outcome::skipped, "skipped"},
    {Outcome::cancelled, "cancelled"},
}};

constexpr std::array<std::pair<CaseStatus, std::string_view>, 3> status_names{{
    {CaseStatus::ok, "ok"},
    {CaseStatus::error, "error"},
    {CaseStatus::not_run, "not_run"},
}};

}  // namespace

std::string_view to_string(Outcome outcome) {
  for (const auto& [o, name] : outcome_names) {
    if (o == outcome) {
      return name;
    }
  }
  return "unknown";
}

std::optional<Outcome> parse_outcome(std::string_view name) {
  for (const auto& [o, n] : outcome_names) {
    if (n == name) {
      return o;
    }
  }
  return std::nullopt;
}

std::string_view to_string(CaseStatus status) {
  for (const auto& [s, name] : status_names) {
    if (s == status) {
      return name;
    }
  }
  return "unknown";
}

std::optional<CaseStatus> parse_case_status(std::string_view name) {
  for (const auto& [s, n] : status_names) {
    if (n == name) {
      return s;
    }
  }
  return std::nullopt;
}

}  // namespace kbx::run

// judge_speedup: the verdict rule on a speedup interval.
#include "kbx/stats/speedup_verdict.h"

namespace kbx::stats {

SpeedupVerdict judge_speedup(bool timed, const std::optional<Interval>& interval, double margin) {
  if (!timed) {
    return SpeedupVerdict::none;
  }
  if (!interval) {
    return SpeedupVerdict::ambiguous;
  }
  if (interval->low >= 1 / (1 + margin) && interval->high <= 1 + margin) {
    return SpeedupVerdict::same;
  }
  if (interval->low > 1) {
    return SpeedupVerdict::faster;
  }
  if (interval->high < 1) {
    return SpeedupVerdict::slower;
  }
  return SpeedupVerdict::ambiguous;
}

Interval widen(const Interval& interval, double margin) {
  return {interval.low / (1 + margin), interval.high * (1 + margin)};
}

std::string_view to_string(SpeedupVerdict verdict) {
  switch (verdict) {
    case SpeedupVerdict::faster:
      return "faster";
    case SpeedupVerdict::same:
      return "same";
    case SpeedupVerdict::slower:
      return "slower";
    case SpeedupVerdict::ambiguous:
      return "ambiguous";
    case SpeedupVerdict::none:
      return "none";
  }
  return "none";
}

}  // namespace kbx::stats

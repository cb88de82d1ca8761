// task_summary_json() and task_detail_json().
#include "kbx/suite/task_json.h"

namespace kbx::suite {

Json task_summary_json(const Task& t) {
  return Json{{"key", t.key},          {"entry", t.entry},
              {"category", t.category}, {"difficulty", t.difficulty},
              {"signature", t.signature}, {"dtypes", t.dtypes},
              {"cases", t.cases.size()}, {"workloads", t.workloads.size()},
              {"version", t.version.substr(0, 12)}};
}

Json task_detail_json(const Task& t) {
  Json j = task_summary_json(t);
  j["description"] = t.description;
  j["notes"] = t.notes;
  j["precision"] = t.precision;
  j["entry_names"] = t.entry_names();
  j["version"] = t.version;
  if (!t.then.empty()) {
    j["then"] = t.then;
  }
  if (t.compare_requires_grad) {
    j["compare_requires_grad"] = true;
  }
  Json cases = Json::array();
  for (const auto& c : t.cases) {
    cases.push_back(
        Json{{"name", c.name}, {"args", c.args}, {"kwargs", c.kwargs}, {"kbx_only", c.kbx_only}});
    if (!t.then.empty()) {
      cases.back()["then_calls"] = c.then_calls;
    }
  }
  j["cases"] = cases;
  Json loads = Json::array();
  for (const auto& w : t.workloads) {
    loads.push_back(
        Json{{"index", w.index}, {"params", w.params}, {"bytes", w.bytes}, {"flops", w.flops}});
  }
  j["workloads"] = loads;
  return j;
}

}  // namespace kbx::suite

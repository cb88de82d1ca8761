// A task as JSON: the summary `kbx suite list --json` prints and the detail of `suite show --json`
// (and of kbx serve's GET /v1/tasks).
#pragma once

#include "kbx/common/json.h"
#include "kbx/suite/task.h"

namespace kbx::suite {

/// key, entry, category, difficulty, signature, dtypes, case and workload counts, short version.
Json task_summary_json(const Task& task);

/// The summary plus description, notes, precision, entry names, full version, every case's
/// arguments and every workload's parameters, bytes and FLOPs.
Json task_detail_json(const Task& task);

}  // namespace kbx::suite

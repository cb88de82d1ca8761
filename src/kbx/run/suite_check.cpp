// suite check: generated control submissions, evaluated like any other, judged against their
// expected verdicts.
#include "kbx/run/suite_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "kbx/common/files.h"
#include "kbx/report/report_model.h"
#include "kbx/store/database.h"

namespace kbx::run {
namespace {

namespace fs = std::filesystem;

// Every control imports the task's reference by path and transforms what it computes. The
// reference runs first, so cases that must raise still raise.
constexpr const char* prelude = R"py(# kbx suite check control '{name}' for {key}
import importlib.util as _util

import torch

_spec = _util.spec_from_file_location("kbx_control_reference", {path})
_ref = _util.module_from_spec(_spec)
_spec.loader.exec_module(_ref)
_MUTATED = {mutated}
_MUTATED_KW = {mutated_kw}


def _map(value, fn):
    if isinstance(value, torch.Tensor):
        return fn(value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*[_map(v, fn) for v in value])
    if isinstance(value, (list, tuple)):
        return type(value)(_map(v, fn) for v in value)
    if isinstance(value, dict):
        return {{k: _map(v, fn) for k, v in value.items()}}
    return value


def _tensors(value):
    found = []
    _map(value, found.append)
    return found


def _written(args, kwargs):
    out = [args[i] for i in _MUTATED if i < len(args)]
    out += [kwargs.get(n) for n in _MUTATED_KW]
    return _tensors(out)


def _replace(out, fn, fallback):
    """`out` with every tensor mapped by fn; `fallback` when it holds no tensor at all."""
    return _map(out, fn) if _tensors(out) else fallback

)py";

constexpr const char* eager_body = R"py(
def {entry}(*args, **kwargs):
    return _ref.{entry}(*args, **kwargs)
)py";

constexpr const char* zeros_body = R"py(
def {entry}(*args, **kwargs):
    out = _ref.{entry}(*args, **kwargs)
    with torch.no_grad():
        for t in _written(args, kwargs):
            t.zero_()
    return _replace(out, torch.zeros_like, torch.zeros(1))
)py";

constexpr const char* noise_body = R"py(
def _noise(t):
    if t.dtype == torch.bool:
        return ~t
    if t.is_floating_point() or t.is_complex():
        return torch.randn_like(t)
    return t + torch.randint_like(t, 1, 100)


def {entry}(*args, **kwargs):
    out = _ref.{entry}(*args, **kwargs)
    with torch.no_grad():
        for t in _written(args, kwargs):
            t.copy_(_noise(t))
    return _replace(out, _noise, torch.randn(1))
)py";

constexpr const char* first_input_body = R"py(
def {entry}(*args, **kwargs):
    tensors = _tensors([list(args), list(kwargs.values())])
    first = tensors[0].detach().clone() if tensors else None
    before = [t.detach().clone() for t in _written(args, kwargs)]
    out = _ref.{entry}(*args, **kwargs)
    with torch.no_grad():
        for t, b in zip(_written(args, kwargs), before):
            t.copy_(b)  # the identity leaves its inputs as they were
    if first is None:
        return _replace(out, torch.zeros_like, torch.zeros(1))

    def same(t):
        if first.numel() != t.numel():
            return first.clone()
        return first.reshape(t.shape).to(t.dtype).clone()

    return _replace(out, same, first)
)py";

constexpr const char* low_precision_body = R"py(
_LOW = torch.{dtype}


def _low(value):
    return _map(value, lambda t: t.to(_LOW) if t.dtype == torch.float32 else t)


def {entry}(*args, **kwargs):
    low_args = [_low(a) for a in args]
    low_kwargs = {{k: _low(v) for k, v in kwargs.items()}}
    out = _ref.{entry}(*low_args, **low_kwargs)
    with torch.no_grad():
        for i in _MUTATED:
            if i < len(args) and isinstance(args[i], torch.Tensor):
                args[i].copy_(low_args[i])
        for n in _MUTATED_KW:
            if isinstance(kwargs.get(n), torch.Tensor):
                kwargs[n].copy_(low_kwargs[n])
    return _map(out, lambda t: t.to(torch.float32) if t.dtype == _LOW else t)
)py";

constexpr const char* upstream_body = R"py(
def {entry}(*args, **kwargs):
    return _ref.upstream_reference(*args, **kwargs)
)py";

bool has_float32_data(const suite::Task& task) {
  return std::find(task.dtypes.begin(), task.dtypes.end(), "float32") != task.dtypes.end();
}

bool defines_upstream_reference(const suite::Task& task) {
  std::error_code ec;
  if (!fs::exists(task.reference_path(), ec)) {
    return false;
  }
  return read_file(task.reference_path()).find("def upstream_reference(") != std::string::npos;
}

std::string control_code(const suite::Task& task, const std::string& name) {
  std::string head = fmt::format(fmt::runtime(prelude), fmt::arg("name", name),
                                 fmt::arg("key", task.key),
                                 fmt::arg("path", Json(task.reference_path().string()).dump()),
                                 fmt::arg("mutated", Json(task.mutated_args).dump()),
                                 fmt::arg("mutated_kw", Json(task.mutated_kwargs).dump()));
  const char* body = name == "eager"         ? eager_body
                     : name == "zeros"       ? zeros_body
                     : name == "noise"       ? noise_body
                     : name == "first_input" ? first_input_body
                     : name == "upstream"    ? upstream_body
                                             : low_precision_body;
  return head + fmt::format(fmt::runtime(body), fmt::arg("entry", task.entry),
                            fmt::arg("dtype", name));
}

bool infrastructure_failure(const std::string& outcome) {
  return outcome == "skipped" || outcome == "worker_lost" || outcome == "pending" ||
         outcome == "cancelled";
}

}  // namespace

const std::vector<std::string>& control_names() {
  static const std::vector<std::string> names{"eager", "zeros",   "first_input", "noise",
                                              "float16", "bfloat16", "upstream"};
  return names;
}

std::vector<Control> task_controls(const suite::Task& task, const std::vector<std::string>& which) {
  std::vector<Control> out;
  for (const auto& name : control_names()) {
    if (!which.empty() && std::find(which.begin(), which.end(), name) == which.end()) {
      continue;
    }
    if ((name == "float16" || name == "bfloat16") && !has_float32_data(task)) {
      continue;
    }
    if ((name == "upstream" && !defines_upstream_reference(task)) ||
        task.control_exemptions.count(name) != 0) {
      continue;
    }
    out.push_back({name, control_code(task, name), name == "eager"});
  }
  return out;
}

suite::Task with_seeds(const suite::Task& task, int seeds) {
  suite::Task out = task;
  out.cases.clear();
  out.draws = std::max(1, seeds);
  for (int k = 0; k < out.draws; ++k) {
    for (const auto& c : task.cases) {
      suite::TestCase copy = c;
      if (k > 0) {
        copy.name = fmt::format("{}@seed{}", c.name, k);
      }
      out.cases.push_back(std::move(copy));
    }
  }
  return out;
}

bool ControlResult::as_expected() const {
  if (must_pass) {
    return outcome == "ok";
  }
  return outcome != "ok" && !infrastructure_failure(outcome);
}

int CheckReport::unexpected() const {
  return static_cast<int>(
      std::count_if(results.begin(), results.end(), [](const auto& r) { return !r.as_expected(); }));
}

CheckReport run_suite_check(const CheckOptions& options, const suite::Suite& suite,
                            const std::vector<const suite::Task*>& tasks, ProgressSink& progress,
                            const std::atomic<bool>& stop) {
  suite::Suite expanded;
  expanded.root = suite.root;
  for (const auto* t : tasks) {
    expanded.tasks.push_back(with_seeds(*t, options.seeds));
  }
  std::sort(expanded.tasks.begin(), expanded.tasks.end(),
            [](const suite::Task& a, const suite::Task& b) { return a.key < b.key; });

  fs::create_directories(options.run.out_dir);
  fs::path source = options.run.out_dir / "controls.jsonl";
  std::string lines;
  std::map<std::string, std::pair<std::string, Control>> by_origin;  // "controls.jsonl:N"
  int line = 0;
  for (const auto& t : expanded.tasks) {
    for (auto& c : task_controls(t, options.controls)) {
      lines += Json{{"file", t.key}, {"predict", c.code}}.dump() + "\n";
      by_origin[fmt::format("{}:{}", source.string(), ++line)] = {t.key, std::move(c)};
    }
  }
  write_file_atomic(source, lines);

  RunOptions run = options.run;
  run.source = source;
  run.require_triton = false;
  run_eval(run, expanded, progress, stop);

  auto db = store::Database::open(run.out_dir / "kbx.db");
  auto model = report::build_report_model(*db);
  CheckReport report;
  report.tasks = static_cast<int>(expanded.tasks.size());
  for (const auto& row : model.rows) {
    // The store may also hold submissions of an earlier check into the same folder, whose
    // controls.jsonl had other lines: only the submission of this line's task and code counts.
    auto it = by_origin.find(row.origin);
    if (it == by_origin.end() || row.file != it->second.first || row.code != it->second.second.code) {
      continue;
    }
    const auto& [key, control] = it->second;
    report.results.push_back(
        {key, control.name, control.must_pass, row.outcome, row.reason, row.detail});
  }
  return report;
}

}  // namespace kbx::run

// Loading and validating task.json files (docs/suite-format.md).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <concepts>
#include <fstream>
#include <set>
#include <sstream>
#include <type_traits>

#include "kbx/common/expr.h"
#include "kbx/common/hash.h"
#include "kbx/common/json.h"
#include "kbx/common/strings.h"
#include "kbx/suite/suite.h"

namespace kbx::suite {
namespace {

namespace fs = std::filesystem;

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(ErrorKind::suite, "{}: cannot read", path.string());
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Keys longer than this get no closest keys in unknown_key_message (every key is far shorter).
constexpr std::size_t max_key_bytes_compared = 256;

Json number_json(double v) {
  if (std::floor(v) == v && std::abs(v) < 9.0e15) {
    return static_cast<std::int64_t>(v);
  }
  return v;
}

// Tensor fields whose strings are expressions in perf templates.
constexpr std::array<const char*, 8> numeric_tensor_fields{"low", "high", "value", "p",
                                                           "mean", "std", "start", "step"};

Json resolve_value(const Json& spec, const ExprVars& vars, const std::string& where);

/// Resolves each value of a keyword-argument (or builder-parameter) object.
Json resolve_object(const Json& object, const ExprVars& vars, const std::string& where) {
  if (!object.is_object()) {
    throw Error(ErrorKind::suite, "{}: expected an object, got {}", where, object.dump());
  }
  Json out = Json::object();
  for (const auto& [name, value] : object.items()) {
    out[name] = resolve_value(value, vars, where + " '" + name + "'");
  }
  return out;
}

Json resolve_tensor(const Json& body, const ExprVars& vars, const std::string& where) {
  if (!body.is_object()) {
    throw Error(ErrorKind::suite, "{}: 'tensor' takes an object", where);
  }
  Json out = body;
  if (!body.contains("shape") || !body["shape"].is_array()) {
    throw Error(ErrorKind::suite, "{}: tensor needs a 'shape' array", where);
  }
  Json shape = Json::array();
  for (const auto& d : body["shape"]) {
    if (d.is_string()) {
      auto v = eval_expr(d.get<std::string>(), vars);
      if (!v) {
        throw Error(ErrorKind::suite, "{}: {}", where, v.error().what());
      }
      if (!(*v >= 0) || std::floor(*v) != *v) {
        throw Error(ErrorKind::suite, "{}: shape entry '{}' gives {}, not a non-negative integer",
                    where, d.get<std::string>(), *v);
      }
      shape.push_back(number_json(*v));
    } else if (d.is_number_integer() && d.get<std::int64_t>() >= 0) {
      shape.push_back(d);
    } else {
      throw Error(ErrorKind::suite, "{}: shape entries must be non-negative integers or expressions, got {}",
                  where, d.dump());
    }
  }
  out["shape"] = shape;
  for (const char* field : numeric_tensor_fields) {
    if (body.contains(field) && body[field].is_string()) {
      auto v = eval_expr(body[field].get<std::string>(), vars);
      if (!v) {
        throw Error(ErrorKind::suite, "{}: {}", where, v.error().what());
      }
      out[field] = number_json(*v);
    }
  }
  return out;
}

Json resolve_value(const Json& spec, const ExprVars& vars, const std::string& where) {
  if (spec.is_array()) {
    Json out = Json::array();
    for (const auto& v : spec) {
      out.push_back(resolve_value(v, vars, where));
    }
    return out;
  }
  if (!spec.is_object()) {
    return spec;
  }
  if (spec.contains("builder")) {
    Json out = spec;
    if (spec.contains("params")) {
      out["params"] = resolve_object(spec["params"], vars, where + " builder params");
    }
    return out;
  }
  if (spec.size() == 1 && spec.contains("expr")) {
    if (!spec["expr"].is_string()) {
      throw Error(ErrorKind::suite, "{}: 'expr' takes a string, got {}", where, spec.dump());
    }
    auto v = eval_expr(spec["expr"].get<std::string>(), vars);
    if (!v) {
      throw Error(ErrorKind::suite, "{}: {}", where, v.error().what());
    }
    return number_json(*v);
  }
  if (spec.size() == 1 && spec.contains("tensor")) {
    return Json{{"tensor", resolve_tensor(spec["tensor"], vars, where)}};
  }
  static const std::set<std::string> known{"tuple", "dtype", "device", "generator", "float"};
  if (spec.size() != 1 || known.count(spec.begin().key()) == 0) {
    throw Error(ErrorKind::suite, "{}: unknown value spec {}", where, spec.dump());
  }
  if (spec.begin().key() != "tuple") {
    return spec;  // {"dtype": ...}, {"device": ...}, {"generator": ...}, {"float": "inf"}: literals
  }
  Json out = Json::object();
  out[spec.begin().key()] = resolve_value(spec.begin().value(), vars, where);
  return out;
}

/// `v` as an integer of type T; an error naming the field otherwise. (get<int>() would cast a float
/// such as 1e300 unchecked: undefined behaviour, found by fuzz/task_fuzz.cpp.)
template <std::integral T>
T integer_value(const Json& v, const char* field, const std::string& where) {
  auto n = json_integer<T>(v);
  if (!n) {
    throw Error(ErrorKind::suite, "{}: '{}' must be an integer (got {})", where, field,
                printable(v.dump(), 80));
  }
  return *n;
}

template <typename T>
T get_field(const Json& j, const char* field, const std::string& where) {
  if (!j.contains(field)) {
    throw Error(ErrorKind::suite, "{}: missing field '{}'", where, field);
  }
  if constexpr (std::is_integral_v<T>) {
    return integer_value<T>(j[field], field, where);
  } else {
    try {
      return j[field].get<T>();
    } catch (const Json::exception& e) {
      throw Error(ErrorKind::suite, "{}: field '{}' has the wrong type ({})", where, field,
                  e.what());
    }
  }
}

/// An optional boolean field, false when absent; an error naming the field when not a boolean.
bool optional_bool(const Json& j, const char* field, const std::string& where) {
  if (!j.contains(field)) {
    return false;
  }
  if (!j[field].is_boolean()) {
    throw Error(ErrorKind::suite, "{}: '{}' must be true or false", where, field);
  }
  return j[field].get<bool>();
}

/// An optional list of integers.
std::vector<int> integer_list(const Json& j, const char* field, const std::string& where) {
  std::vector<int> out;
  if (!j.contains(field)) {
    return out;
  }
  if (!j[field].is_array()) {
    throw Error(ErrorKind::suite, "{}: '{}' must be a list of integers", where, field);
  }
  for (const auto& v : j[field]) {
    out.push_back(integer_value<int>(v, field, where));
  }
  return out;
}

/// An optional list of non-empty strings.
std::vector<std::string> name_list(const Json& j, const char* field, const std::string& where) {
  if (!j.contains(field)) {
    return {};
  }
  const Json& v = j[field];
  std::vector<std::string> out;
  bool ok = v.is_array();
  for (std::size_t i = 0; ok && i < v.size(); ++i) {
    ok = v[i].is_string() && !v[i].get<std::string>().empty();
    if (ok) {
      out.push_back(v[i].get<std::string>());
    }
  }
  if (!ok) {
    throw Error(ErrorKind::suite, "{}: '{}' must be a list of non-empty strings", where, field);
  }
  return out;
}

void load_cases(Task& task, const Json& j, const std::string& where) {
  if (!j.contains("cases") || !j["cases"].is_array() || j["cases"].empty()) {
    throw Error(ErrorKind::suite, "{}: 'cases' must be a non-empty array", where);
  }
  std::set<std::string> names;
  for (const auto& c : j["cases"]) {
    TestCase tc;
    tc.name = get_field<std::string>(c, "name", where);
    std::string case_where = fmt::format("{} case '{}'", where, tc.name);
    if (!names.insert(tc.name).second) {
      throw Error(ErrorKind::suite, "{}: duplicate case name", case_where);
    }
    tc.args = resolve_value(c.value("args", Json::array()), {}, case_where);
    tc.kwargs = resolve_object(c.value("kwargs", Json::object()), {}, case_where + " kwargs");
    if (!tc.args.is_array() || !tc.kwargs.is_object()) {
      throw Error(ErrorKind::suite, "{}: 'args' must be an array and 'kwargs' an object", case_where);
    }
    if (c.contains("raises")) {
      tc.raises = name_list(c, "raises", case_where);
      if (tc.raises.empty()) {
        throw Error(ErrorKind::suite, "{}: 'raises' must name at least one exception class", case_where);
      }
    }
    tc.kbx_only = optional_bool(c, "kbx_only", case_where);
    if (c.contains("then_calls")) {
      const Json& n = c["then_calls"];
      if (!n.is_number_integer() || n.get<int>() < 1 || n.get<int>() > 100) {
        throw Error(ErrorKind::suite, "{}: 'then_calls' must be an integer from 1 to 100", case_where);
      }
      tc.then_calls = n.get<int>();
    }
    task.cases.push_back(std::move(tc));
  }
  if (std::all_of(task.cases.begin(), task.cases.end(),
                  [](const TestCase& c) { return c.kbx_only; })) {
    throw Error(ErrorKind::suite,
                "{}: every case is 'kbx_only': at least one must mirror a public test call, for "
                "--rules kernelbenchx",
                where);
  }
}

// Resolves perf workload `i` of `perf` with the parameter values `vars`.
Workload resolve_workload(const Task& task, const Json& perf, std::size_t i, const ExprVars& vars,
                          const Json& params, const std::string& w_where) {
  Workload w;
  w.index = static_cast<int>(i);
  w.params = params;
  w.args = resolve_value(perf.value("args", Json::array()), vars, w_where);
  w.kwargs = resolve_object(perf.value("kwargs", Json::object()), vars, w_where + " kwargs");
  auto bytes = eval_expr(task.bytes_model, vars);
  auto flops = eval_expr(task.flops_model, vars);
  if (!bytes || !flops) {
    throw Error(ErrorKind::suite, "{}: {}", w_where, (!bytes ? bytes.error() : flops.error()).what());
  }
  w.bytes = *bytes;
  w.flops = *flops;
  return w;
}

ExprVars workload_vars(const Json& params, const std::string& w_where) {
  ExprVars vars;
  for (const auto& [name, value] : params.items()) {
    if (!value.is_number()) {
      throw Error(ErrorKind::suite, "{}: parameter '{}' must be a number", w_where, name);
    }
    vars[name] = value.get<double>();
  }
  return vars;
}

void load_perf(Task& task, const Json& j, const std::string& where) {
  if (!j.contains("perf") || j["perf"].is_null()) {
    return;
  }
  const Json& perf = j["perf"];
  std::string perf_where = where + " perf";
  task.bytes_model = get_field<std::string>(perf, "bytes", perf_where);
  task.flops_model = get_field<std::string>(perf, "flops", perf_where);
  const Json& loads = perf.value("workloads", Json::array());
  if (!loads.is_array() || loads.empty()) {
    throw Error(ErrorKind::suite, "{}: 'workloads' must be a non-empty array", perf_where);
  }
  for (std::size_t i = 0; i < loads.size(); ++i) {
    std::string w_where = fmt::format("{} workload {}", perf_where, i);
    task.workloads.push_back(
        resolve_workload(task, perf, i, workload_vars(loads[i], w_where), loads[i], w_where));
  }
  task.perf_spec = perf;
}

// Adds the identifiers of the expression `text` to `out`.
void add_identifiers(const std::string& text, std::set<std::string>& out) {
  for (std::size_t i = 0; i < text.size();) {
    if (std::isalpha(static_cast<unsigned char>(text[i])) != 0 || text[i] == '_') {
      std::size_t end = i;
      while (end < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[end])) != 0 || text[end] == '_')) {
        ++end;
      }
      out.insert(text.substr(i, end - i));
      i = end;
    } else {
      ++i;
    }
  }
}

// Every identifier in the strings of `j` (expressions, and {"expr": ...} values).
void add_all_identifiers(const Json& j, std::set<std::string>& out) {
  if (j.is_string()) {
    add_identifiers(j.get<std::string>(), out);
  } else if (j.is_structured()) {
    for (const auto& v : j) {
      add_all_identifiers(v, out);
    }
  }
}

// The identifiers that size the perf template's inputs: those in tensor shapes and in builder
// parameters (which are sizes and shapes in every suite task).
void add_size_identifiers(const Json& spec, std::set<std::string>& out) {
  if (spec.is_array()) {
    for (const auto& v : spec) {
      add_size_identifiers(v, out);
    }
    return;
  }
  if (!spec.is_object()) {
    return;
  }
  if (spec.contains("tensor") && spec["tensor"].is_object() && spec["tensor"].contains("shape")) {
    add_all_identifiers(spec["tensor"]["shape"], out);
  }
  if (spec.contains("builder") && spec.contains("params")) {
    add_all_identifiers(spec["params"], out);
  }
  for (const auto& [name, v] : spec.items()) {
    if (name != "tensor" && name != "params") {
      add_size_identifiers(v, out);
    }
  }
}

// `value` times `factor`, at least 1, kept on the multiple of a power of two (up to 16) that
// `value` was on when the result is that large (sizes a kernel tiles by stay tileable).
double scaled_size(double value, double factor) {
  double target = value * factor;
  double align = 1;
  while (align < 16 && std::fmod(value, align * 2) == 0) {
    align *= 2;
  }
  double aligned = std::round(target / align) * align;
  return aligned >= align ? aligned : std::max(1.0, std::round(target));
}

}  // namespace

void apply_perf_scale(Task& task, double scale) {
  if (scale == 1 || task.workloads.empty()) {
    return;
  }
  if (!(scale > 0 && scale < 1)) {
    throw Error(ErrorKind::usage, "perf scale {} is outside (0, 1]", scale);
  }
  const Json& perf = task.perf_spec;
  std::set<std::string> sizes;
  add_size_identifiers(perf.value("args", Json::array()), sizes);
  add_size_identifiers(perf.value("kwargs", Json::object()), sizes);
  std::string where = fmt::format("{} perf (scaled by {})", (task.dir / "task.json").string(), scale);
  for (Workload& w : task.workloads) {
    std::string w_where = fmt::format("{} workload {}", where, w.index);
    ExprVars original = workload_vars(w.params, w_where);
    auto scaled_vars = [&](double factor) {
      ExprVars vars = original;
      for (auto& [name, value] : vars) {
        if (sizes.count(name) != 0 && value >= 1 && std::floor(value) == value) {
          value = scaled_size(value, factor);
        }
      }
      return vars;
    };
    auto bytes_at = [&](double factor) {
      auto b = eval_expr(task.bytes_model, scaled_vars(factor));
      return b ? *b : 0.0;
    };
    double goal = scale * w.bytes;
    if (!(w.bytes > 0)) {
      continue;
    }
    // The largest factor whose sizes give at most `goal` bytes (sizes are rounded, so the bytes
    // are a step function of the factor); factor 0 gives every size 1.
    double lo = 0;
    double hi = 1;
    for (int step = 0; step < 50; ++step) {
      double mid = 0.5 * (lo + hi);
      (bytes_at(mid) <= goal ? lo : hi) = mid;
    }
    ExprVars vars = scaled_vars(lo);
    Json params = Json::object();
    for (const auto& [name, value] : w.params.items()) {
      params[name] = value.is_number_integer() ? Json(static_cast<std::int64_t>(vars[name]))
                                               : Json(vars[name]);
    }
    w = resolve_workload(task, perf, static_cast<std::size_t>(w.index), vars, params, w_where);
  }
  task.version += fmt::format("+perf-scale={}", scale);
}

void apply_rules(Task& task, std::string_view rules) {
  if (rules != "kernelbenchx") {
    return;
  }
  std::erase_if(task.cases, [](const TestCase& c) { return c.kbx_only; });
  task.recheck = false;
  if (task.cases.empty()) {  // the loader refuses such a task; a hand-built one may still have it
    throw Error(ErrorKind::suite, "{}: no case mirrors a public test call, so --rules kernelbenchx "
                "has nothing to run", task.key);
  }
}

bool select_cases(Task& task, std::string_view patterns) {
  std::vector<std::string> globs;
  for (const auto& p : split(patterns, ',')) {
    if (!trim(p).empty()) {
      globs.emplace_back(trim(p));
    }
  }
  if (globs.empty()) {
    return !task.cases.empty();
  }
  std::erase_if(task.cases, [&](const TestCase& c) {
    return std::none_of(globs.begin(), globs.end(),
                        [&](const std::string& g) { return glob_match(g, c.name); });
  });
  task.recheck = false;
  task.version += fmt::format("+cases={}", fmt::join(globs, ","));
  return !task.cases.empty();
}

namespace {

Task parse_task(std::string_view text, const fs::path& dir, const std::string& key) {
  std::string where = (dir / "task.json").string();
  auto parsed = parse_untrusted_json(text);
  if (!parsed) {
    throw Error(ErrorKind::suite, "{}: not valid JSON: {}", where, parsed.error().what());
  }
  Json j = std::move(parsed).value();
  if (get_field<int>(j, "format", where) != 1) {
    throw Error(ErrorKind::suite, "{}: unsupported format {} (this kbx reads format 1)", where,
                j["format"].dump());
  }
  Task task;
  task.key = get_field<std::string>(j, "key", where);
  if (task.key != key) {
    throw Error(ErrorKind::suite, "{}: key '{}' does not match its folder (expected '{}')", where,
                task.key, key);
  }
  task.entry = get_field<std::string>(j, "entry", where);
  task.category = get_field<std::string>(j, "category", where);
  task.difficulty = j.contains("difficulty") ? get_field<int>(j, "difficulty", where) : 0;
  task.signature = get_field<std::string>(j, "signature", where);
  task.description = get_field<std::string>(j, "description", where);
  task.notes = j.value("notes", "");
  task.dtypes = j.value("dtypes", std::vector<std::string>{});
  task.precision = j.value("precision", Json("default"));
  task.kernelbenchx_precision = j.value("kernelbenchx_precision", Json(nullptr));
  task.mutated_args = integer_list(j, "mutated_args", where);
  task.mutated_kwargs = name_list(j, "mutated_kwargs", where);
  task.errata = name_list(j, "errata", where);
  task.canonical = j.value("canonical", "");
  task.then = j.value("then", "");
  if (!task.then.empty() &&
      (task.then.front() == '_' || std::isdigit(static_cast<unsigned char>(task.then.front())) != 0 ||
       !std::all_of(task.then.begin(), task.then.end(), [](char ch) {
         return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_';
       }))) {
    throw Error(ErrorKind::suite,
                "{}: 'then' must name a public method of the returned object (letters, digits and "
                "'_', not starting with '_' or a digit), got '{}'",
                where, task.then);
  }
  if (j.contains("control_exemptions")) {
    const Json& ex = j["control_exemptions"];
    if (!ex.is_object()) {
      throw Error(ErrorKind::suite, "{}: 'control_exemptions' must map control names to reasons",
                  where);
    }
    for (const auto& [name, why] : ex.items()) {
      if (!why.is_string() || why.get<std::string>().empty() || name == "eager") {
        throw Error(ErrorKind::suite,
                    "{}: control_exemptions.{} must give the reason as text (and eager is never "
                    "exempt)",
                    where, name);
      }
      task.control_exemptions[name] = why.get<std::string>();
    }
  }
  task.exact_reference = optional_bool(j, "exact_reference", where);
  if (task.exact_reference && (!task.mutated_args.empty() || !task.mutated_kwargs.empty())) {
    throw Error(ErrorKind::suite, "{}: 'exact_reference' cannot be combined with mutated arguments",
                where);
  }
  task.compare_requires_grad = optional_bool(j, "compare_requires_grad", where);
  task.dir = dir;
  load_cases(task, j, where);
  for (const auto& c : task.cases) {
    if (c.then_calls != 1 && task.then.empty()) {
      throw Error(ErrorKind::suite, "{} case '{}': 'then_calls' needs the task's 'then' method",
                  where, c.name);
    }
  }
  load_perf(task, j, where);
  return task;
}

}  // namespace

Result<Task> parse_task_json(std::string_view text, const fs::path& dir, const std::string& key) {
  try {
    return parse_task(text, dir, key);
  } catch (const Error& e) {
    return e;
  } catch (const Json::exception& e) {  // a field of the wrong type, read with Json::value()
    return Error(ErrorKind::suite, "{}: {}", (dir / "task.json").string(), e.what());
  }
}

Result<Task> load_task(const fs::path& dir, const std::string& key) {
  try {
    std::string text = read_all(dir / "task.json");
    if (!fs::exists(dir / "reference.py")) {
      throw Error(ErrorKind::suite, "{}: missing reference.py beside task.json", dir.string());
    }
    auto task = parse_task_json(text, dir, key);
    if (task) {
      task->version = sha256_hex(text + read_all(dir / "reference.py"));
    }
    return task;
  } catch (const Error& e) {
    return e;
  }
}

Suite load_suite(const fs::path& root) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    throw Error(ErrorKind::suite, "suite folder '{}' does not exist; pass --suite DIR or set KBX_SUITE",
                root.string());
  }
  Suite suite;
  suite.root = root;
  for (const auto& category : fs::directory_iterator(root)) {
    if (!category.is_directory()) {
      continue;
    }
    for (const auto& task_dir : fs::directory_iterator(category.path())) {
      if (!task_dir.is_directory() || !fs::exists(task_dir.path() / "task.json")) {
        continue;
      }
      std::string key = fmt::format("{}/{}.py", category.path().filename().string(),
                                    task_dir.path().filename().string());
      auto task = load_task(task_dir.path(), key);
      if (task) {
        suite.tasks.push_back(std::move(task).value());
      } else {
        suite.errors.push_back(task.error());
      }
    }
  }
  std::sort(suite.tasks.begin(), suite.tasks.end(),
            [](const Task& a, const Task& b) { return a.key < b.key; });
  return suite;
}

const Task* Suite::find(std::string_view key) const {
  auto it = std::lower_bound(tasks.begin(), tasks.end(), key,
                             [](const Task& t, std::string_view k) { return t.key < k; });
  return it != tasks.end() && it->key == key ? &*it : nullptr;
}

const Task* Suite::find_by_name(std::string_view name) const {
  const Task* found = nullptr;
  for (const auto& t : tasks) {
    if (t.entry == name || t.stem() == name) {
      if (found != nullptr && found != &t) {
        return nullptr;
      }
      found = &t;
    }
  }
  return found;
}

std::vector<std::string> Suite::keys() const {
  std::vector<std::string> out;
  out.reserve(tasks.size());
  for (const auto& t : tasks) {
    out.push_back(t.key);
  }
  return out;
}

std::vector<std::string> Suite::closest_keys(std::string_view key, std::size_t limit) const {
  std::string_view stem = key.substr(key.rfind('/') == std::string_view::npos ? 0 : key.rfind('/') + 1);
  if (stem.ends_with(".py")) {
    stem.remove_suffix(3);
  }
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& t : tasks) {
    std::size_t d = std::min(levenshtein(key, t.key), levenshtein(stem, t.stem()));
    scored.emplace_back(d, t.key);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < limit; ++i) {
    out.push_back(scored[i].second);
  }
  return out;
}

std::string Suite::unknown_key_message(std::string_view key, bool with_closest) const {
  if (key.size() > max_key_bytes_compared) {  // edit distances would cost time for nothing
    return fmt::format("unknown task '{}': no task key is that long (see `kbx suite list`)",
                       printable(key, 80));
  }
  if (!with_closest) {
    return fmt::format("unknown task '{}' (see `kbx suite list`)", printable(key));
  }
  auto near = closest_keys(key, 3);
  if (near.empty()) {
    return fmt::format("unknown task '{}' (the suite at {} has no tasks)", printable(key),
                       root.string());
  }
  return fmt::format("unknown task '{}'; closest: {} (see `kbx suite list`)", printable(key),
                     fmt::join(near, ", "));
}

}  // namespace kbx::suite

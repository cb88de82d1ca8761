// Prompt templates: loading, rendering, and the values a task fills in.
#include "kbx/gen/prompt.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kbx/common/error.h"
#include "kbx/common/files.h"

namespace kbx::gen {
namespace {

namespace fs = std::filesystem;

std::string read_template(const fs::path& dir, const char* name) {
  fs::path p = dir / name;
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) {
    throw Error(ErrorKind::input,
                "{}: prompt template missing (a prompts folder holds system.txt, "
                "task.txt, refine.txt and optimize.txt; see docs/generation.md)",
                p.string());
  }
  return read_file(p);
}

std::string describe_value(const Json& v) {
  if (v.is_object() && v.contains("tensor") && v["tensor"].is_object()) {
    const Json& t = v["tensor"];
    std::vector<std::string> dims;
    for (const auto& d : t.value("shape", Json::array())) {
      dims.push_back(d.is_string() ? d.get<std::string>() : d.dump());
    }
    return fmt::format("<{} tensor [{}]>", t.value("dtype", "float32"), fmt::join(dims, ", "));
  }
  return v.dump();
}

}  // namespace

PromptTemplates load_templates(const fs::path& dir) {
  PromptTemplates t;
  t.version = fs::path(dir).lexically_normal().filename().string();
  if (t.version.empty()) {
    t.version = fs::path(dir).lexically_normal().parent_path().filename().string();
  }
  t.system = read_template(dir, "system.txt");
  t.task = read_template(dir, "task.txt");
  t.refine = read_template(dir, "refine.txt");
  t.optimize = read_template(dir, "optimize.txt");
  return t;
}

std::string render(const std::string& text, const std::map<std::string, std::string>& values,
                   const std::string& template_name) {
  std::string out;
  std::size_t pos = 0;
  while (true) {
    auto open = text.find("{{", pos);
    if (open == std::string::npos) {
      out.append(text, pos);
      return out;
    }
    auto close = text.find("}}", open + 2);
    if (close == std::string::npos) {
      throw Error(ErrorKind::input, "prompt template {}: '{{{{' without '}}}}'", template_name);
    }
    std::string name = text.substr(open + 2, close - open - 2);
    auto it = values.find(name);
    if (it == values.end()) {
      throw Error(ErrorKind::input, "prompt template {}: unknown placeholder {{{{{}}}}}",
                  template_name, name);
    }
    out.append(text, pos, open - pos);
    out += it->second;
    pos = close + 2;
  }
}

std::string example_call(const suite::Task& task) {
  if (task.cases.empty()) {
    return task.signature;
  }
  const auto& c = task.cases.front();
  std::vector<std::string> parts;
  for (const auto& a : c.args) {
    parts.push_back(describe_value(a));
  }
  for (const auto& [k, v] : c.kwargs.items()) {
    parts.push_back(fmt::format("{}={}", k, describe_value(v)));
  }
  return fmt::format("{}({})", task.entry, fmt::join(parts, ", "));
}

std::map<std::string, std::string> task_values(const suite::Task& task) {
  std::vector<std::string> constraints;
  constraints.push_back(fmt::format(
      "Define a Python function named `{}` with the signature `{}`; the tests call it with "
      "tensors on the GPU (or on the CPU under Triton's interpreter).",
      task.entry, task.signature));
  constraints.push_back(
      "Its arithmetic must run in Triton kernels (@triton.jit) that it launches; use PyTorch only "
      "to allocate outputs and make views.");
  constraints.push_back(fmt::format("Input dtypes: {}.", fmt::join(task.dtypes, ", ")));
  constraints.push_back(
      fmt::format("Outputs are compared with the PyTorch reference under the "
                  "precision contract {}.",
                  task.precision.dump()));
  if (!task.mutated_args.empty()) {
    constraints.push_back(fmt::format("Arguments {} are written in place, as the reference does.",
                                      fmt::join(task.mutated_args, ", ")));
  }
  std::string list;
  for (const auto& c : constraints) {
    list += "- " + c + "\n";
  }
  return {{"key", task.key},
          {"entry", task.entry},
          {"category", task.category},
          {"signature", task.signature},
          {"description", task.description},
          {"dtypes", fmt::format("{}", fmt::join(task.dtypes, ", "))},
          {"constraints", list},
          {"example_call", example_call(task)}};
}

}  // namespace kbx::gen

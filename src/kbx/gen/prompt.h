// Prompts: versioned template files (prompts/v1/*.txt) filled from a task's data.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "kbx/suite/task.h"

namespace kbx::gen {

/// The templates of one prompts folder: system.txt, task.txt, refine.txt and optimize.txt.
/// Placeholders are {{name}}; the names each may use are listed in docs/generation.md.
struct PromptTemplates {
  std::string version;  ///< the folder's name, "v1": recorded with every candidate
  std::string system;
  std::string task;
  std::string refine;
  std::string optimize;
};

/// Reads the four templates from `dir`. Throws Error(input) naming a missing or unreadable file.
PromptTemplates load_templates(const std::filesystem::path& dir);

/// `text` with every {{name}} replaced by values[name]. Throws Error(input) naming the template
/// and the placeholder when a name has no value (a typo in a template must not reach a model).
std::string render(const std::string& text, const std::map<std::string, std::string>& values,
                   const std::string& template_name);

/// The values a task gives its prompts: key, entry, category, signature, description, dtypes,
/// constraints (entry names, in-place arguments, precision, Triton required) and example_call
/// (its first test case as a call).
std::map<std::string, std::string> task_values(const suite::Task& task);

/// One test case's call, readably: "softmax(<float32 tensor [4, 8]>, dim=-1)".
std::string example_call(const suite::Task& task);

}  // namespace kbx::gen

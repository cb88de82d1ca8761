// Helpers for the suite tests: task.json documents and task folders written into a temp dir.
#pragma once

#include <filesystem>
#include <string>

#include "kbx/common/json.h"
#include "support/test_support.h"

namespace kbx::suite::testing {

/// A valid format-1 task.json for `key` ("Math/softmax.py") with one case, which tests alter.
inline Json valid_task(const std::string& key, const std::string& entry) {
  std::string category = key.substr(0, key.find('/'));
  return Json{
      {"format", 1},
      {"key", key},
      {"entry", entry},
      {"category", category},
      {"difficulty", 2},
      {"signature", entry + "(input, dim)"},
      {"description", "what " + entry + " computes"},
      {"dtypes", {"float32"}},
      {"precision", "default"},
      {"mutated_args", Json::array()},
      {"cases",
       {{{"name", "small"},
         {"args", {{{"tensor", {{"shape", {2, 3}}, {"dtype", "float32"}, {"init", "randn"}}}}}},
         {"kwargs", {{"dim", 1}}}}}},
  };
}

/// "Math/softmax" for "Math/softmax.py": the folder a key lives in, relative to the suite root.
inline std::string folder_of(const std::string& key) { return key.substr(0, key.size() - 3); }

/// Writes `text` as <root>/<folder>/task.json and, unless `with_reference` is false, a
/// reference.py beside it. Returns the task folder.
inline std::filesystem::path write_task_text(const kbx::testing::ScopedTempDir& root,
                                             const std::string& folder, const std::string& text,
                                             bool with_reference = true) {
  root.write(folder + "/task.json", text);
  if (with_reference) {
    root.write(folder + "/reference.py", "import torch\n");
  }
  return root.path() / folder;
}

/// Writes `task` into the folder its key names.
inline std::filesystem::path write_task(const kbx::testing::ScopedTempDir& root, const Json& task,
                                        bool with_reference = true) {
  return write_task_text(root, folder_of(task["key"].get<std::string>()), task.dump(2),
                         with_reference);
}

}  // namespace kbx::suite::testing

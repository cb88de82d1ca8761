// Code extraction: the kernel source inside a model's answer (fences, several blocks, prose).
#pragma once

#include <string>
#include <string_view>

namespace kbx::gen {

/// What an answer gave.
enum class ExtractStatus {
  code,     ///< usable code
  no_code,  ///< the answer holds no code (a refusal, prose only, an empty answer)
};

struct Extraction {
  ExtractStatus status = ExtractStatus::no_code;
  std::string code;    ///< cut at the 146-# separator; empty unless status == code
  std::string detail;  ///< why there is no code; which blocks were taken otherwise
};

std::string_view to_string(ExtractStatus status);

/// The code in a model's answer, for a task whose entry function is `entry`:
/// - fenced blocks (``` or ~~~, any label): python/py/triton/unlabelled blocks count, others
///   (bash, text, json, ...) are ignored; an unterminated fence runs to the end;
/// - one usable block: it; several: the one that defines `def entry(` and launches Triton if
///   exactly one does, else every python block in order joined (kernel and wrapper often come
///   in separate blocks), leaving out blocks that only call the entry (usage examples);
/// - no fence: the whole answer when it reads as Python (an `import` or a `def` at the start of
///   a line), prose lines before the first such line dropped;
/// - the result is cut at KernelBench-X's line of 146 '#' (the tests that follow it).
/// no_code when nothing usable remains or the code defines no function.
Extraction extract_code(std::string_view answer, std::string_view entry);

}  // namespace kbx::gen

// Result<T>: a value or an Error, for per-item failures that the caller records and survives.
#pragma once

#include <utility>
#include <variant>

#include "kbx/common/check.h"
#include "kbx/common/error.h"

namespace kbx {

/// Either a T or an Error. Swap for std::expected once the project moves to C++23.
/// Example: `Result<Task> r = load_task(path); if (!r) log(r.error().what());`
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}            // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}        // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    KBX_CHECK(ok()) << "Result::value() on an error: " << std::get<1>(v_).what();
    return std::get<0>(v_);
  }
  const T& value() const& {
    KBX_CHECK(ok()) << "Result::value() on an error: " << std::get<1>(v_).what();
    return std::get<0>(v_);
  }
  T&& value() && {
    KBX_CHECK(ok()) << "Result::value() on an error: " << std::get<1>(v_).what();
    return std::get<0>(std::move(v_));
  }
  [[nodiscard]] const Error& error() const {
    KBX_CHECK(!ok()) << "Result::error() on a value";
    return std::get<1>(v_);
  }

  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Error> v_;
};

}  // namespace kbx

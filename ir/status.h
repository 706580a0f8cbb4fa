// Status and StatusOr: the library's error channel. Exceptions are used only
// at the public API edge (CLI); everything below returns a Status so that a
// malformed model or a runtime fault becomes a message, never a crash.
#pragma once

#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "ir/str_cat.h"

namespace sy {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,     // malformed model, bad user input
  kNotFound,            // missing file, missing value
  kUnimplemented,       // op/type we do not support
  kFailedPrecondition,  // API misuse
  kOutOfRange,          // runtime index out of range
  kResourceExhausted,   // allocation too large
  kInternal,            // invariant broken inside Switchyard
  kRuntime,             // kernel failure at run time
  kDeadlineExceeded,    // a run went past its time limit
  kCancelled,           // a run was cancelled by its caller
};

const char* status_code_name(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK; holds no allocation so the hot path stays cheap
  Status(StatusCode code, std::string message)
      : state_(code == StatusCode::kOk ? nullptr : std::make_shared<State>(State{code, std::move(message)})) {}

  static Status ok_status() { return Status(); }
  bool ok() const { return state_ == nullptr; }
  StatusCode code() const { return state_ ? state_->code : StatusCode::kOk; }
  const std::string& message() const {
    static const std::string kEmpty;
    return state_ ? state_->message : kEmpty;
  }
  std::string to_string() const;
  // Returns a copy whose message is prefixed with `context: `, unless it
  // already starts with that.
  Status with_context(const std::string& context) const;

 private:
  struct State {
    StatusCode code;
    std::string message;
  };
  std::shared_ptr<const State> state_;
};

inline Status OkStatus() { return Status(); }

template <typename... Args>
Status InvalidArgument(Args&&... a) { return Status(StatusCode::kInvalidArgument, str_cat(std::forward<Args>(a)...)); }
template <typename... Args>
Status NotFound(Args&&... a) { return Status(StatusCode::kNotFound, str_cat(std::forward<Args>(a)...)); }
template <typename... Args>
Status Unimplemented(Args&&... a) { return Status(StatusCode::kUnimplemented, str_cat(std::forward<Args>(a)...)); }
template <typename... Args>
Status FailedPrecondition(Args&&... a) { return Status(StatusCode::kFailedPrecondition, str_cat(std::forward<Args>(a)...)); }
template <typename... Args>
Status OutOfRange(Args&&... a) { return Status(StatusCode::kOutOfRange, str_cat(std::forward<Args>(a)...)); }
template <typename... Args>
Status ResourceExhausted(Args&&... a) { return Status(StatusCode::kResourceExhausted, str_cat(std::forward<Args>(a)...)); }
template <typename... Args>
Status Internal(Args&&... a) { return Status(StatusCode::kInternal, str_cat(std::forward<Args>(a)...)); }
template <typename... Args>
Status RuntimeError(Args&&... a) { return Status(StatusCode::kRuntime, str_cat(std::forward<Args>(a)...)); }

template <typename... Args>
Status DeadlineExceeded(Args&&... a) { return Status(StatusCode::kDeadlineExceeded, str_cat(std::forward<Args>(a)...)); }
template <typename... Args>
Status Cancelled(Args&&... a) { return Status(StatusCode::kCancelled, str_cat(std::forward<Args>(a)...)); }

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(const Status& s) : v_(s) { assert(!s.ok() && "StatusOr built from OK status"); }
  StatusOr(Status&& s) : v_(std::move(s)) { assert(!std::get<Status>(v_).ok()); }
  StatusOr(const T& v) : v_(v) {}
  StatusOr(T&& v) : v_(std::move(v)) {}
  template <typename U, typename = std::enable_if_t<std::is_convertible_v<U&&, T> && !std::is_same_v<std::decay_t<U>, Status> &&
                                                   !std::is_same_v<std::decay_t<U>, T>>>
  StatusOr(U&& v) : v_(T(std::forward<U>(v))) {}

  bool ok() const { return std::holds_alternative<T>(v_); }
  Status status() const { return ok() ? Status() : std::get<Status>(v_); }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<Status, T> v_;
};

namespace internal {
inline Status to_status(const Status& s) { return s; }
template <typename T>
Status to_status(const StatusOr<T>& s) { return s.status(); }
}  // namespace internal

}  // namespace sy

#define SY_CONCAT_INNER(a, b) a##b
#define SY_CONCAT(a, b) SY_CONCAT_INNER(a, b)

#define RETURN_IF_ERROR(expr)                                         \
  do {                                                                \
    ::sy::Status sy_status_ = ::sy::internal::to_status((expr));      \
    if (!sy_status_.ok()) return sy_status_;                          \
  } while (0)

#define SY_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()

// Expands to several statements: wrap it in braces when it is the body of an
// if/else/for.
#define ASSIGN_OR_RETURN(lhs, expr) SY_ASSIGN_OR_RETURN_IMPL(SY_CONCAT(sy_statusor_, __LINE__), lhs, expr)

// CHECK is for programmer invariants only, never for input validation.
#define SY_CHECK(cond)                                                              \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                 \
    }                                                                               \
  } while (0)

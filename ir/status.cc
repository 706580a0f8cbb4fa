#include "ir/status.h"

namespace sy {

const char* status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kNotFound: return "not found";
    case StatusCode::kUnimplemented: return "unimplemented";
    case StatusCode::kFailedPrecondition: return "failed precondition";
    case StatusCode::kOutOfRange: return "out of range";
    case StatusCode::kResourceExhausted: return "resource exhausted";
    case StatusCode::kInternal: return "internal";
    case StatusCode::kRuntime: return "runtime error";
    case StatusCode::kDeadlineExceeded: return "deadline exceeded";
    case StatusCode::kCancelled: return "cancelled";
  }
  return "unknown";
}

std::string Status::to_string() const {
  if (ok()) return "OK";
  return message();
}

Status Status::with_context(const std::string& context) const {
  if (ok()) return *this;
  // Kernels often name their node themselves; the caller that adds the
  // node again would print it twice.
  if (message().size() > context.size() && message().compare(0, context.size(), context) == 0 &&
      message()[context.size()] == ':')
    return *this;
  return Status(code(), context + ": " + message());
}

}  // namespace sy

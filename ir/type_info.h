// Static type of a graph value: tensor (element type + possibly symbolic
// shape), sequence of a type, or optional of a type.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/data_type.h"

namespace sy {

// One dimension of a declared shape: a known size, a named symbol, or unknown.
struct Dim {
  int64_t value = -1;  // >= 0 when known
  std::string symbol;  // non-empty for a named symbolic dimension
  bool known() const { return value >= 0; }
};

struct TypeInfo {
  enum class Kind : uint8_t { kUnknown, kTensor, kSequence, kOptional };
  Kind kind = Kind::kUnknown;
  DataType elem = DataType::kUndefined;  // for kTensor
  bool has_shape = false;
  std::vector<Dim> shape;               // for kTensor when has_shape
  std::shared_ptr<TypeInfo> inner;      // for kSequence / kOptional

  std::string to_string() const;
};

}  // namespace sy

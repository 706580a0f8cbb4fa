// RuntimeValue: what a graph value holds during a run. ONNX values are
// tensors, sequences of tensors, or optionals; an empty optional (and an
// omitted value) is kNone.
#pragma once

#include <memory>
#include <vector>

#include "devices/tensor.h"

namespace sy {

struct Sequence {
  DataType elem = DataType::kUndefined;
  std::vector<Tensor> items;
};

class RuntimeValue {
 public:
  enum class Kind : uint8_t { kNone, kTensor, kSequence };

  RuntimeValue() = default;
  RuntimeValue(Tensor t) : kind_(Kind::kTensor), tensor_(std::move(t)) {}  // NOLINT: implicit by design
  RuntimeValue(std::shared_ptr<const Sequence> s) : kind_(Kind::kSequence), seq_(std::move(s)) {}  // NOLINT

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::kNone; }
  bool is_tensor() const { return kind_ == Kind::kTensor; }
  bool is_sequence() const { return kind_ == Kind::kSequence; }
  const Tensor& tensor() const { return tensor_; }
  Tensor& mutable_tensor() { return tensor_; }
  const std::shared_ptr<const Sequence>& sequence() const { return seq_; }

  // Marks a value that came from an Optional wrapper (Optional op, optional
  // graph input). The contents are used the same way; the flag only matters
  // when writing outputs.
  bool is_optional() const { return optional_; }
  void set_optional(bool v) { optional_ = v; }

  void reset() {
    kind_ = Kind::kNone;
    tensor_ = Tensor();
    seq_.reset();
    optional_ = false;
  }

 private:
  Kind kind_ = Kind::kNone;
  bool optional_ = false;
  Tensor tensor_;
  std::shared_ptr<const Sequence> seq_;
};

}  // namespace sy

// Tensor: element type + concrete dims + a reference to a Buffer. Copying a
// Tensor shares the buffer (like a view); kernels write only to tensors they
// allocated as outputs.
#pragma once

#include <memory>
#include <string>

#include "devices/buffer.h"
#include "ir/data_type.h"
#include "ir/dims.h"
#include "ir/status.h"
#include "ir/tensor_data.h"

namespace sy {

class Tensor {
 public:
  Tensor() = default;
  Tensor(DataType dtype, Dims dims, BufferRef buffer, size_t byte_offset = 0)
      : dtype_(dtype), dims_(std::move(dims)), buffer_(std::move(buffer)), offset_(byte_offset) {}

  // Allocates a host tensor (kHostSpace). Thread-safe.
  static StatusOr<Tensor> host(DataType dtype, const Dims& dims);
  // Wraps IR-owned constant data without copying; keeps `data` alive.
  static Tensor borrow(std::shared_ptr<const TensorData> data);
  // Deep copy into a new host tensor.
  StatusOr<Tensor> clone_to_host() const;
  // Copies `src`'s elements into this tensor, which has its dtype and
  // element count; both must be host-readable. Strings by assignment.
  void copy_elements_from(const Tensor& src);

  bool defined() const { return dtype_ != DataType::kUndefined; }
  DataType dtype() const { return dtype_; }
  const Dims& dims() const { return dims_; }
  size_t rank() const { return dims_.size(); }
  int64_t dim(size_t i) const { return dims_[i]; }
  int64_t numel() const { return dims_.numel(); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype_); }
  MemorySpace space() const { return buffer_ ? buffer_->space : kHostSpace; }
  const BufferRef& buffer() const { return buffer_; }
  size_t byte_offset() const { return offset_; }

  void* raw() { return buffer_ ? static_cast<char*>(buffer_->data) + offset_ : nullptr; }
  const void* raw() const { return buffer_ ? static_cast<const char*>(buffer_->data) + offset_ : nullptr; }
  template <typename T>
  T* data() { return static_cast<T*>(raw()); }
  template <typename T>
  const T* data() const { return static_cast<const T*>(raw()); }

  // A tensor sharing this buffer with other dims (same element count).
  Tensor reshaped(Dims dims) const { return Tensor(dtype_, std::move(dims), buffer_, offset_); }

  // Reads element i of an integer or float tensor as int64 / double (host
  // memory only). Used for shape inputs such as Reshape's shape or TopK's K.
  int64_t int_at(int64_t i) const;
  double double_at(int64_t i) const;

  std::string describe() const;  // "float32[2,3]"

 private:
  DataType dtype_ = DataType::kUndefined;
  Dims dims_;
  BufferRef buffer_;
  size_t offset_ = 0;
};

// Checks that `dims` is a valid shape (no negatives) whose byte size fits in
// memory bookkeeping; returns the byte count. Callers use it before
// allocating anything whose size came from data.
StatusOr<size_t> checked_nbytes(DataType dtype, const Dims& dims);

}  // namespace sy

// Shared helpers for the CPU shape / data-movement kernels (tensor_*.cc):
// element-type dispatch by storage size (data movement never needs the
// arithmetic type), a strided N-d copy that Transpose, Slice, Expand, Tile,
// DepthToSpace and SpaceToDepth all reduce to, and readers for shape-like
// inputs. All functions are stateless and thread-safe.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "devices/kernel.h"
#include "devices/tensor.h"
#include "ir/dims.h"
#include "ir/status.h"

namespace sy::tensor_ops {

// Tensors with at least this many elements are split across oneTBB workers.
constexpr int64_t kParallelElements = 1 << 16;

struct Bytes16 {
  uint64_t lo, hi;
};

template <typename T>
struct Tag {
  using type = T;
};

// Calls f(Tag<T>{}) with a trivially copyable type of the element's byte size,
// or std::string for string tensors. Returns false for kUndefined.
template <typename F>
bool visit_storage(DataType t, F&& f) {
  if (t == DataType::kString) {
    f(Tag<std::string>{});
    return true;
  }
  switch (dtype_size(t)) {
    case 1: f(Tag<uint8_t>{}); return true;
    case 2: f(Tag<uint16_t>{}); return true;
    case 4: f(Tag<uint32_t>{}); return true;
    case 8: f(Tag<uint64_t>{}); return true;
    case 16: f(Tag<Bytes16>{}); return true;
    default: return false;
  }
}

// Copies n elements; string elements are assigned, never memcpy'd.
inline void copy_elements(DataType t, void* dst, int64_t dst_index, const void* src, int64_t src_index, int64_t n) {
  if (n <= 0) return;
  if (t == DataType::kString) {
    auto* d = static_cast<std::string*>(dst) + dst_index;
    const auto* s = static_cast<const std::string*>(src) + src_index;
    for (int64_t i = 0; i < n; ++i) d[i] = s[i];
    return;
  }
  size_t es = dtype_size(t);
  std::memcpy(static_cast<char*>(dst) + dst_index * es, static_cast<const char*>(src) + src_index * es, n * es);
}

// Writes `value` (one element of type t) into dst[0..n).
void fill_elements(DataType t, void* dst, int64_t n, const void* value);

// dst (contiguous, shape out_dims) = src viewed with element strides
// src_strides (negative for reversed axes, 0 for broadcast). `src` points at
// the element for output index 0. Parallel for large outputs.
void strided_copy(DataType t, void* dst, const void* src, const Dims& out_dims, const Dims& src_strides);

// Normalises axis in [-rank, rank) (or [-rank, rank] when inclusive_end).
StatusOr<int64_t> normalize_axis(int64_t axis, int64_t rank, const char* what, bool inclusive_end = false);

// Dims from an attribute list (an empty list gives an empty Dims without
// handing a null pointer to memcpy).
inline Dims to_dims(const std::vector<int64_t>& v) { return v.empty() ? Dims() : Dims(v); }

// Reads an int32/int64 tensor of rank <= 1 from host memory.
StatusOr<Dims> read_int_list(const Tensor& t, const char* what);
// Reads a one-element int32/int64 tensor.
StatusOr<int64_t> read_int_scalar(const Tensor& t, const char* what);

// A one-element value of an arbitrary type (fill values, pad constants).
struct ScalarValue {
  alignas(16) unsigned char bytes[16] = {};
  std::string str;
  const void* ptr(DataType t) const { return t == DataType::kString ? static_cast<const void*>(&str) : bytes; }
};
// Converts a double to element type t (numeric types only).
ScalarValue scalar_from_double(DataType t, double v);
// Copies element i of tensor src.
ScalarValue scalar_from_tensor(const Tensor& src, int64_t i);

inline Status check_host(const Tensor& t, const char* what) {
  if (!t.space().is_host_accessible()) return InvalidArgument(what, " must be in host memory");
  return OkStatus();
}

}  // namespace sy::tensor_ops

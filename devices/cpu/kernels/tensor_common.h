// Shared helpers for the CPU shape / data-movement kernels (tensor_*.cc):
// element-type dispatch by storage size (data movement never needs the
// arithmetic type), a strided N-d copy that Transpose, Slice, Expand, Tile,
// DepthToSpace and SpaceToDepth all reduce to, readers for shape-like
// inputs, and the shape logic that the CUDA movement kernels share. All
// functions are stateless and thread-safe.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "devices/cpu/kernels/parallel_ranges.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "ir/dims.h"
#include "ir/status.h"

namespace sy::tensor_ops {

// Tensors with at least this many elements are split across oneTBB workers.
constexpr int64_t kParallelElements = 1 << 16;

// Runs f(begin, end) over consecutive ranges of the rows [0, rows) of
// `row_elements` elements each: on oneTBB workers, in ranges of at least a
// quarter of kParallelElements elements, when the rows hold
// kParallelElements or more; else in one call on this thread.
template <typename F>
void for_row_ranges(int64_t rows, int64_t row_elements, F&& f) {
  const int64_t per_row = std::max<int64_t>(row_elements, 1);
  if (rows > 1 && rows * per_row >= kParallelElements) {
    parallel_for_ranges(rows, kParallelElements / per_row / 4, f);
  } else {
    f(int64_t{0}, rows);
  }
}

// f(row) for every row, split as by for_row_ranges.
template <typename F>
void for_each_row(int64_t rows, int64_t row_elements, F&& f) {
  for_row_ranges(rows, row_elements, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) f(i);
  });
}

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
// The same view with unit dims dropped and each dim merged into its outer
// neighbour where they are contiguous, so most transposes and slices
// collapse to a few long rows. Shared by every backend's strided copy.
void merge_strided_dims(const Dims& out_dims, const Dims& src_strides, Dims* dims, Dims* strides);

// InvalidArgument unless `t` is a present int32 or int64 index tensor.
Status check_index_tensor(const Tensor& t, const char* op);

// Normalises axis in [-rank, rank) (or [-rank, rank] when inclusive_end).
StatusOr<int64_t> normalize_axis(int64_t axis, int64_t rank, const char* what, bool inclusive_end = false);
// Normalises each of a list of distinct axes in [-rank, rank), in order.
StatusOr<std::vector<size_t>> normalize_axes(const std::vector<int64_t>& axes, size_t rank, const char* what);

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

// Shape logic of the data-movement ops, shared by the CPU and CUDA kernels so
// both backends validate and clamp identically. They read only dims and
// host-memory inputs.

// Transpose: the permutation for rank r from the perm attribute (reversed
// axes when absent), with negative entries normalised and validated.
StatusOr<Dims> transpose_perm(const Dims& perm, bool has_perm, size_t r);

// Slice: the output dims and the view of the input that produces it: element
// strides (negative for negative steps) and the element offset of output
// index 0. axes/steps may be null (defaults). Clamps as ONNX specifies.
struct SliceView {
  Dims out_dims;
  Dims strides;
  int64_t offset = 0;
};
StatusOr<SliceView> slice_view(const Dims& in, const Dims& starts, const Dims& ends, const Dims* axes,
                               const Dims* steps);

// Split: the size of each of n_out outputs along an axis of size dim. An
// empty `split` means equal parts (opset 18 num_outputs: the last may be
// smaller).
StatusOr<Dims> split_sizes(Dims split, int64_t dim, int64_t n_out, bool num_outputs_attr);

// Concat: validates every input against input 0 and returns the output dims
// and the normalised axis.
StatusOr<Dims> concat_dims(const KernelContext& ctx, int64_t axis_attr, int64_t* axis);

// Tile: output dims and the view [r0, d0, r1, d1, ...] with zero strides on
// the repeat axes that a strided copy turns into the output.
struct TileView {
  Dims out_dims;
  Dims view;
  Dims strides;
};
StatusOr<TileView> tile_view(const Dims& in, const Dims& reps);

enum class PadMode { kConstant = 0, kReflect = 1, kEdge = 2, kWrap = 3 };
// Pad (opset >= 11): pads (2 * rank entries, the opset 18 axes input
// applied) and the constant value from host inputs 1-3.
Status read_pad_inputs(const KernelContext& ctx, const Tensor& x, Dims* pads, ScalarValue* cval);
// Pad output dims; rejects absurd pads and non-constant padding of empty axes.
StatusOr<Dims> pad_output_dims(const Dims& in, const Dims& pads, PadMode mode);

// CenterCropPad (opset 18) as Pad's pads (2 * rank entries, negative where
// an axis is cropped): each of `axes` (every axis when !has_axes) cropped or
// zero-padded to its entry of the host input 1 about its centre, an odd
// difference's extra element at the end, as in the ONNX reference.
StatusOr<Dims> center_crop_pads(const KernelContext& ctx, bool has_axes, const std::vector<int64_t>& axes);

// Compress: x viewed as [outer, dim, inner] around `axis` (flattened to
// [1, numel, 1] when !has_axis), the positions of that axis the 1-D bool
// condition keeps, and the output dims. InvalidArgument for a bad
// condition or axis; OutOfRange when the condition selects past the axis.
struct CompressPlan {
  int64_t outer = 1, dim = 0, inner = 1;
  std::vector<int64_t> keep;
  Dims out;
};
StatusOr<CompressPlan> plan_compress(const Tensor& x, const Tensor& cond, bool has_axis, int64_t axis);

// ReverseSequence: the batch and time axes (0 and 1 in some order), from
// the attributes. InvalidArgument otherwise.
struct SequenceAxes {
  int64_t batch = 1, time = 0;
};
StatusOr<SequenceAxes> reverse_sequence_axes(const Node& node);

// ReverseSequence of x by the host input sequence_lens, as a row gather:
// output row j (x viewed as batch * time rows of `inner` elements, in x's
// layout) is input row rows[j]. InvalidArgument for a bad input or lens
// count; OutOfRange for a length outside [0, time].
struct ReverseSequencePlan {
  int64_t inner = 1;
  std::vector<int64_t> rows;
};
StatusOr<ReverseSequencePlan> plan_reverse_sequence(const KernelContext& ctx, const SequenceAxes& axes);

}  // namespace sy::tensor_ops

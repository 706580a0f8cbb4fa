// Validation and shape logic of the index-style ops (ScatterElements,
// ScatterND, GatherND, GatherElements, OneHot, Range, EyeLike, Unique), shared by the
// CPU kernels and the accelerator kernels so that a node is accepted or
// rejected identically, with the same message, wherever it is placed. The
// functions read only attributes, dims, dtypes and host-memory scalars, never
// element data; they are stateless and thread-safe.
#pragma once

#include <cstdint>

#include "devices/kernel.h"
#include "devices/tensor.h"
#include "ir/dims.h"
#include "ir/status.h"

namespace sy::tensor_ops {

// Scatter reductions. The CUDA launchers' ScatterReduce mirrors this order.
enum class ScatterReduction { kNone = 0, kAdd = 1, kMul = 2, kMax = 3, kMin = 4 };

// The "reduction" attribute of ScatterElements / ScatterND.
StatusOr<ScatterReduction> parse_scatter_reduction(const Node& node);

// GatherND's "batch_dims" attribute, rejected when negative.
StatusOr<int64_t> parse_batch_dims(const Node& node);

// EyeLike's "dtype" attribute: kUndefined when absent (the input's type).
StatusOr<DataType> parse_eye_like_dtype(const Node& node);

// GatherElements / ScatterElements: indices must have data's rank and fit
// inside data on every axis but `axis` (already normalised).
Status check_elements_indices(const Tensor& x, const Tensor& ind, int64_t axis, const char* op);

// ScatterElements (and Scatter): every input check; returns the normalised
// axis.
StatusOr<int64_t> check_scatter_elements(const Tensor& x, const Tensor& ind, const Tensor& upd,
                                         ScatterReduction red, int64_t axis_attr);

// ScatterND: k indices per tuple address the leading k data dims; each of
// `tuples` tuples writes a slice of `slice` elements.
struct ScatterNDShape {
  int64_t k = 0;
  int64_t slice = 1;
  int64_t tuples = 1;
};
StatusOr<ScatterNDShape> check_scatter_nd(const Tensor& x, const Tensor& ind, const Tensor& upd, ScatterReduction red);

// GatherND: k (>= 1) indices per tuple address data dims [b, b + k); each
// of `tuples` tuples reads a slice of `slice` elements; `batch` is the
// product of the b batch dims.
struct GatherNDShape {
  int64_t k = 0;
  Dims out_dims;
  int64_t slice = 1;
  int64_t batch = 1;
  int64_t tuples = 0;
};
StatusOr<GatherNDShape> check_gather_nd(const Tensor& x, const Tensor& ind, int64_t batch_dims);

// OneHot: the output is [outer, depth, inner] with depth inserted at `axis`.
// A fractional depth or index counts as cast to int64 (the spec's words),
// so an index v hits iff trunc(v) is in [-depth, depth - 1]: iff
// -depth - 1 < v < depth, which also keeps the cast defined.
struct OneHotShape {
  int64_t depth = 0;
  int64_t axis = 0;
  Dims out_dims;
  int64_t outer = 1;
  int64_t inner = 1;
};
StatusOr<OneHotShape> check_one_hot(const Tensor& ind, const Tensor& depth_t, const Tensor& values, int64_t axis_attr);

// Range: the element count n from host scalars, with start and delta as
// int64 (integer types) or double (float types).
struct RangeSpec {
  DataType dtype = DataType::kUndefined;
  int64_t n = 0;
  int64_t istart = 0, idelta = 0;
  double fstart = 0, fdelta = 0;
};
StatusOr<RangeSpec> range_spec(const Tensor& start, const Tensor& limit, const Tensor& delta);

// EyeLike: validates the input and returns the output type (dtype_attr, or
// the input's type when kUndefined).
StatusOr<DataType> eye_like_output_type(const Tensor& x, DataType dtype_attr);

// Unique's attributes.
struct UniqueAttrs {
  bool has_axis = false;
  int64_t axis = 0;
  bool sorted = true;
  static UniqueAttrs parse(const Node& node);
};

// Unique: x as `items` slices [outer, inner] along the normalised axis;
// without an axis every element is an item (outer = inner = 1). An empty x
// with an axis has outer = inner = 0: no slice has an element to read.
struct UniqueShape {
  int64_t axis = -1;  // -1: no axis
  int64_t outer = 1, items = 0, inner = 1;
};
StatusOr<UniqueShape> unique_shape(const Tensor& x, const UniqueAttrs& a);

}  // namespace sy::tensor_ops

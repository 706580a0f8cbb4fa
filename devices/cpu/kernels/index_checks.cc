#include "devices/cpu/kernels/index_checks.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "devices/cpu/kernels/tensor_common.h"

namespace sy::tensor_ops {
namespace {

bool is_numeric(DataType t) {
  return visit_numeric(t, [](auto) {});
}

Status check_reduction_type(DataType dt, ScatterReduction red, const char* op) {
  if (red != ScatterReduction::kNone && !is_numeric(dt))
    return InvalidArgument(op, ": reduction needs a numeric type, got ", dtype_name(dt));
  return OkStatus();
}

}  // namespace

StatusOr<ScatterReduction> parse_scatter_reduction(const Node& node) {
  const std::string s = node.attr_string("reduction", "none");
  if (s == "none") return ScatterReduction::kNone;
  if (s == "add") return ScatterReduction::kAdd;
  if (s == "mul") return ScatterReduction::kMul;
  if (s == "max") return ScatterReduction::kMax;
  if (s == "min") return ScatterReduction::kMin;
  return InvalidArgument(node.describe(), ": unknown reduction '", s, "'");
}

StatusOr<int64_t> parse_batch_dims(const Node& node) {
  const int64_t b = node.attr_int("batch_dims", 0);
  if (b < 0) return InvalidArgument(node.describe(), ": batch_dims must be non-negative");
  return b;
}

StatusOr<DataType> parse_eye_like_dtype(const Node& node) {
  const int64_t dt = node.attr_int("dtype", 0);
  if (dt == 0) return DataType::kUndefined;
  if (!dtype_is_valid(static_cast<int>(dt)) || dt == int64_t(DataType::kString))
    return InvalidArgument(node.describe(), ": invalid dtype ", dt);
  return static_cast<DataType>(dt);
}

Status check_elements_indices(const Tensor& x, const Tensor& ind, int64_t axis, const char* op) {
  const size_t r = x.rank();
  if (ind.rank() != r) return InvalidArgument(op, ": indices rank ", ind.rank(), " differs from data rank ", r);
  for (size_t k = 0; k < r; ++k)
    if (static_cast<int64_t>(k) != axis && ind.dim(k) > x.dim(k))
      return InvalidArgument(op, ": indices shape ", ind.dims().to_string(), " exceeds data shape ",
                             x.dims().to_string(), " on axis ", k);
  return OkStatus();
}

StatusOr<int64_t> check_scatter_elements(const Tensor& x, const Tensor& ind, const Tensor& upd,
                                         ScatterReduction red, int64_t axis_attr) {
  if (!x.defined() || !upd.defined()) return InvalidArgument("ScatterElements: data and updates are required");
  RETURN_IF_ERROR(check_index_tensor(ind, "ScatterElements"));
  if (x.rank() == 0) return InvalidArgument("ScatterElements: data must have rank >= 1");
  if (upd.dims() != ind.dims())
    return InvalidArgument("ScatterElements: updates shape ", upd.dims().to_string(), " differs from indices shape ",
                           ind.dims().to_string());
  if (upd.dtype() != x.dtype()) return InvalidArgument("ScatterElements: updates type differs from data type");
  RETURN_IF_ERROR(check_reduction_type(x.dtype(), red, "ScatterElements"));
  ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_attr, static_cast<int64_t>(x.rank()), "ScatterElements axis"));
  RETURN_IF_ERROR(check_elements_indices(x, ind, axis, "ScatterElements"));
  return axis;
}

StatusOr<ScatterNDShape> check_scatter_nd(const Tensor& x, const Tensor& ind, const Tensor& upd, ScatterReduction red) {
  if (!x.defined() || !upd.defined()) return InvalidArgument("ScatterND: data and updates are required");
  RETURN_IF_ERROR(check_index_tensor(ind, "ScatterND"));
  if (upd.dtype() != x.dtype()) return InvalidArgument("ScatterND: updates type differs from data type");
  RETURN_IF_ERROR(check_reduction_type(x.dtype(), red, "ScatterND"));
  const int64_t r = static_cast<int64_t>(x.rank()), q = static_cast<int64_t>(ind.rank());
  if (r < 1 || q < 1) return InvalidArgument("ScatterND: data and indices must have rank >= 1");
  ScatterNDShape s;
  s.k = ind.dim(q - 1);
  if (s.k > r) return InvalidArgument("ScatterND: indices last dimension ", s.k, " exceeds data rank ", r);
  Dims want;
  for (int64_t i = 0; i < q - 1; ++i) want.push_back(ind.dim(i));
  for (int64_t i = s.k; i < r; ++i) want.push_back(x.dim(i));
  if (upd.dims() != want)
    return InvalidArgument("ScatterND: updates shape ", upd.dims().to_string(), " should be ", want.to_string());
  for (int64_t i = s.k; i < r; ++i) s.slice *= x.dim(i);
  for (int64_t i = 0; i < q - 1; ++i) s.tuples *= ind.dim(i);
  return s;
}

StatusOr<GatherNDShape> check_gather_nd(const Tensor& x, const Tensor& ind, int64_t batch_dims) {
  if (!x.defined()) return InvalidArgument("GatherND: data is missing");
  RETURN_IF_ERROR(check_index_tensor(ind, "GatherND"));
  const int64_t r = static_cast<int64_t>(x.rank()), q = static_cast<int64_t>(ind.rank()), b = batch_dims;
  if (r < 1 || q < 1) return InvalidArgument("GatherND: data and indices must have rank >= 1");
  if (b >= std::min(r, q)) return InvalidArgument("GatherND: batch_dims ", b, " must be less than both ranks");
  GatherNDShape s;
  s.k = ind.dim(q - 1);
  if (s.k < 1 || b + s.k > r)
    return InvalidArgument("GatherND: indices last dimension ", s.k, " must be in [1, ", r - b, "]");
  for (int64_t i = 0; i < b; ++i)
    if (ind.dim(i) != x.dim(i))
      return InvalidArgument("GatherND: batch dimension ", i, " differs between data ", x.dims().to_string(),
                             " and indices ", ind.dims().to_string());
  for (int64_t i = 0; i < q - 1; ++i) s.out_dims.push_back(ind.dim(i));
  for (int64_t i = b + s.k; i < r; ++i) s.out_dims.push_back(x.dim(i));
  for (int64_t i = b + s.k; i < r; ++i) s.slice *= x.dim(i);
  for (int64_t i = 0; i < b; ++i) s.batch *= x.dim(i);
  s.tuples = ind.numel() / s.k;
  return s;
}

StatusOr<OneHotShape> check_one_hot(const Tensor& ind, const Tensor& depth_t, const Tensor& values, int64_t axis_attr) {
  if (!ind.defined() || !depth_t.defined() || !values.defined())
    return InvalidArgument("OneHot: indices, depth and values are required");
  if (values.numel() != 2) return InvalidArgument("OneHot: values must have two elements, got ", values.describe());
  if (depth_t.numel() != 1) return InvalidArgument("OneHot: depth must be a scalar");
  RETURN_IF_ERROR(check_host(depth_t, "OneHot depth"));
  if (!is_numeric(ind.dtype())) return InvalidArgument("OneHot: indices must be numeric");
  OneHotShape s;
  const double dd = depth_t.double_at(0);
  if (!std::isfinite(dd) || dd < 1 || dd > 9.0e18) return InvalidArgument("OneHot: invalid depth ", dd);
  s.depth = static_cast<int64_t>(dd);
  const int64_t r = static_cast<int64_t>(ind.rank());
  ASSIGN_OR_RETURN(s.axis, normalize_axis(axis_attr, r, "OneHot axis", true));
  s.out_dims = ind.dims();
  s.out_dims.insert(static_cast<size_t>(s.axis), s.depth);
  for (int64_t k = 0; k < s.axis; ++k) s.outer *= ind.dim(k);
  for (int64_t k = s.axis; k < r; ++k) s.inner *= ind.dim(k);
  return s;
}

StatusOr<RangeSpec> range_spec(const Tensor& start, const Tensor& limit, const Tensor& delta) {
  const Tensor &s = start, &l = limit, &d = delta;
  if (!s.defined() || !l.defined() || !d.defined()) return InvalidArgument("Range: start, limit and delta are required");
  if (s.numel() != 1 || l.numel() != 1 || d.numel() != 1)
    return InvalidArgument("Range: start, limit and delta must be scalars");
  if (l.dtype() != s.dtype() || d.dtype() != s.dtype())
    return InvalidArgument("Range: start, limit and delta must have the same type");
  RETURN_IF_ERROR(check_host(s, "Range start"));
  RETURN_IF_ERROR(check_host(l, "Range limit"));
  RETURN_IF_ERROR(check_host(d, "Range delta"));
  RangeSpec spec;
  spec.dtype = s.dtype();
  if (dtype_is_integer(spec.dtype)) {
    const int64_t a = s.int_at(0), b = l.int_at(0), c = d.int_at(0);
    if (c == 0) return InvalidArgument("Range: delta must not be zero");
    // 128-bit so that |limit - start| (< 2^64) cannot overflow.
    const __int128 span = static_cast<__int128>(b) - a;
    __int128 cnt = 0;
    if ((span > 0 && c > 0) || (span < 0 && c < 0)) {
      const __int128 ac = c > 0 ? c : -static_cast<__int128>(c);
      const __int128 as = span > 0 ? span : -span;
      cnt = (as + ac - 1) / ac;
    }
    if (cnt > std::numeric_limits<int64_t>::max()) return InvalidArgument("Range: too many elements");
    spec.n = static_cast<int64_t>(cnt);
    spec.istart = a;
    spec.idelta = c;
    return spec;
  }
  if (!dtype_is_float(spec.dtype)) return InvalidArgument("Range: unsupported type ", dtype_name(spec.dtype));
  const double a = s.double_at(0), b = l.double_at(0), c = d.double_at(0);
  if (c == 0) return InvalidArgument("Range: delta must not be zero");
  const double cnt = std::ceil((b - a) / c);
  if (!std::isfinite(cnt)) return InvalidArgument("Range: element count of (", a, ", ", b, ", ", c, ") is not finite");
  if (cnt > 9.0e18) return ResourceExhausted("Range: ", cnt, " elements is too many");
  spec.n = cnt > 0 ? static_cast<int64_t>(cnt) : 0;
  spec.fstart = a;
  spec.fdelta = c;
  return spec;
}

StatusOr<DataType> eye_like_output_type(const Tensor& x, DataType dtype_attr) {
  if (!x.defined() || x.rank() != 2) return InvalidArgument("EyeLike: input must be 2-D");
  const DataType dt = dtype_attr == DataType::kUndefined ? x.dtype() : dtype_attr;
  if (dt == DataType::kString) return InvalidArgument("EyeLike: string output is not supported");
  return dt;
}

UniqueAttrs UniqueAttrs::parse(const Node& node) {
  UniqueAttrs a;
  a.has_axis = node.has_attr("axis");
  a.axis = node.attr_int("axis", 0);
  a.sorted = node.attr_int("sorted", 1) != 0;
  return a;
}

StatusOr<UniqueShape> unique_shape(const Tensor& x, const UniqueAttrs& a) {
  UniqueShape s;
  s.items = x.numel();
  if (!a.has_axis) return s;
  if (x.rank() == 0) return InvalidArgument("Unique: cannot use axis on a scalar");
  ASSIGN_OR_RETURN(s.axis, normalize_axis(a.axis, static_cast<int64_t>(x.rank()), "Unique axis"));
  s.items = x.dim(static_cast<size_t>(s.axis));
  // No element is read: the other dims of an empty tensor may multiply past
  // int64, and [2^60, 5, 0] along axis 1 would loop 2^60 times a slice.
  if (x.numel() == 0) {
    s.outer = s.inner = 0;
    return s;
  }
  for (int64_t k = 0; k < s.axis; ++k) s.outer *= x.dim(static_cast<size_t>(k));
  for (size_t k = static_cast<size_t>(s.axis) + 1; k < x.rank(); ++k) s.inner *= x.dim(k);
  return s;
}

}  // namespace sy::tensor_ops

// CUDA ScatterND, ScatterElements (and its opset 9-10 name Scatter),
// GatherND, Trilu, Range, EyeLike and OneHot. Shapes are validated here
// exactly as the CPU kernels validate them (same checks, same messages), so
// a node fails the same way wherever it is placed. Indices in device memory
// are checked by the kernels themselves (Launch::error_flag): the task then
// fails with OutOfRange when it completes, without a synchronisation, and a
// bad index never addresses memory. Scatter reductions use atomics; a type
// with no atomic of its width is declined (Unimplemented), so the node runs
// on the CPU instead.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "devices/broadcast.h"
#include "devices/cpu/kernels/tensor_common.h"
#include "devices/cpu/kernels/tensor_register.h"
#include "devices/cuda/kernels/cuda_kernels.h"
#include "devices/cuda/kernels/index_launch.h"
#include "devices/cuda/kernels/movement_common.h"

namespace sy::cuda {
namespace {

using tensor_ops::check_index_tensor;
using tensor_ops::kBit0;
using tensor_ops::kBit1;
using tensor_ops::kBit2;
using tensor_ops::normalize_axis;

bool is_numeric(DataType t) {
  return visit_numeric(t, [](auto) {});
}

StatusOr<ScatterReduce> parse_reduction(const Node& node) {
  const std::string s = node.attr_string("reduction", "none");
  if (s == "none") return ScatterReduce::kNone;
  if (s == "add") return ScatterReduce::kAdd;
  if (s == "mul") return ScatterReduce::kMul;
  if (s == "max") return ScatterReduce::kMax;
  if (s == "min") return ScatterReduce::kMin;
  return InvalidArgument(node.describe(), ": unknown reduction '", s, "'");
}

// The CPU's error for a reduction over a non-numeric type, then the GPU's
// refusal of a numeric type it has no atomic for.
Status check_reduction(DataType dt, ScatterReduce r, const char* op) {
  if (r == ScatterReduce::kNone) return OkStatus();
  if (!is_numeric(dt)) return InvalidArgument(op, ": reduction needs a numeric type, got ", dtype_name(dt));
  if (!scatter_reduce_supported(static_cast<int>(dt), r))
    return Unimplemented("CUDA ", op, ": no atomic reduction for ", dtype_name(dt));
  return OkStatus();
}

// out = a stream-ordered copy of x: the scatters update the copy in place.
Status copy_into(const Launch& l, Tensor* out, const Tensor& x) {
  if (x.nbytes() == 0) return OkStatus();
  CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(out->raw(), x.raw(), x.nbytes(), cudaMemcpyDeviceToDevice, l.stream));
  return OkStatus();
}

class ScatterElementsKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    axis_ = node.attr_int("axis", 0);
    ASSIGN_OR_RETURN(reduction_, parse_reduction(node));
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& ind = ctx.input(1);
    const Tensor& upd = ctx.input(2);
    if (!x.defined() || !upd.defined()) return InvalidArgument("ScatterElements: data and updates are required");
    RETURN_IF_ERROR(check_index_tensor(ind, "ScatterElements"));
    if (x.rank() == 0) return InvalidArgument("ScatterElements: data must have rank >= 1");
    if (upd.dims() != ind.dims())
      return InvalidArgument("ScatterElements: updates shape ", upd.dims().to_string(), " differs from indices shape ",
                             ind.dims().to_string());
    if (upd.dtype() != x.dtype()) return InvalidArgument("ScatterElements: updates type differs from data type");
    RETURN_IF_ERROR(check_reduction(x.dtype(), reduction_, "ScatterElements"));
    const size_t r = x.rank();
    ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_, static_cast<int64_t>(r), "ScatterElements axis"));
    if (ind.rank() != r)
      return InvalidArgument("ScatterElements: indices rank ", ind.rank(), " differs from data rank ", r);
    for (size_t k = 0; k < r; ++k)
      if (static_cast<int64_t>(k) != axis && ind.dim(k) > x.dim(k))
        return InvalidArgument("ScatterElements: indices shape ", ind.dims().to_string(), " exceeds data shape ",
                               x.dims().to_string(), " on axis ", k);
    if (r > static_cast<size_t>(kIndexMaxRank))
      return Unimplemented("CUDA ScatterElements: rank ", r, " > ", kIndexMaxRank);
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), x.dims()));
    RETURN_IF_ERROR(copy_into(l, out, x));
    // Launched even when data is empty: its indices must then all be bad.
    if (ind.numel() == 0) return OkStatus();
    const Dims strides = contiguous_strides(x.dims());
    ScatterElementsMeta m;
    m.rank = static_cast<int32_t>(r);
    m.axis = static_cast<int32_t>(axis);
    m.axis_dim = x.dim(axis);
    for (size_t k = 0; k < r; ++k) {
      m.dims[k] = ind.dim(k);
      m.data_strides[k] = strides[k];
    }
    ASSIGN_OR_RETURN(int* bad, l.error_flag("ScatterElements: an index is out of range for the axis"));
    CUDA_RETURN_IF_ERROR(launch_scatter_elements(out->raw(), upd.raw(), ind.raw(), ind.dtype() == DataType::kInt64,
                                                 static_cast<int>(x.dtype()), static_cast<int>(dtype_size(x.dtype())),
                                                 reduction_, ind.numel(), m, bad, l.stream));
    return OkStatus();
  }

 private:
  int64_t axis_ = 0;
  ScatterReduce reduction_ = ScatterReduce::kNone;
};

class ScatterNDKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(reduction_, parse_reduction(node));
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& ind = ctx.input(1);
    const Tensor& upd = ctx.input(2);
    if (!x.defined() || !upd.defined()) return InvalidArgument("ScatterND: data and updates are required");
    RETURN_IF_ERROR(check_index_tensor(ind, "ScatterND"));
    if (upd.dtype() != x.dtype()) return InvalidArgument("ScatterND: updates type differs from data type");
    RETURN_IF_ERROR(check_reduction(x.dtype(), reduction_, "ScatterND"));
    const int64_t r = static_cast<int64_t>(x.rank()), q = static_cast<int64_t>(ind.rank());
    if (r < 1 || q < 1) return InvalidArgument("ScatterND: data and indices must have rank >= 1");
    const int64_t k = ind.dim(q - 1);
    if (k > r) return InvalidArgument("ScatterND: indices last dimension ", k, " exceeds data rank ", r);
    Dims want;
    for (int64_t i = 0; i < q - 1; ++i) want.push_back(ind.dim(i));
    for (int64_t i = k; i < r; ++i) want.push_back(x.dim(i));
    if (upd.dims() != want)
      return InvalidArgument("ScatterND: updates shape ", upd.dims().to_string(), " should be ", want.to_string());
    if (k > kIndexMaxRank) return Unimplemented("CUDA ScatterND: ", k, " indices per tuple > ", kIndexMaxRank);
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), x.dims()));
    RETURN_IF_ERROR(copy_into(l, out, x));
    int64_t slice = 1, tuples = 1;
    for (int64_t i = k; i < r; ++i) slice *= x.dim(i);
    for (int64_t i = 0; i < q - 1; ++i) tuples *= ind.dim(i);
    if (tuples == 0 || (k == 0 && slice == 0)) return OkStatus();
    const Dims strides = contiguous_strides(x.dims());
    ScatterNDMeta m;
    m.k = static_cast<int32_t>(k);
    for (int64_t j = 0; j < k; ++j) m.dims[j] = x.dim(j);
    ASSIGN_OR_RETURN(int* bad, l.error_flag("ScatterND: an index is out of range for its data dimension"));
    const bool idx64 = ind.dtype() == DataType::kInt64;
    if (slice == 0) {  // nothing to write, but the CPU still rejects bad indices
      CUDA_RETURN_IF_ERROR(launch_check_nd_indices(ind.raw(), idx64, tuples * k, m.k, m.dims, bad, l.stream));
      return OkStatus();
    }
    const size_t es = dtype_size(x.dtype());
    // Without a reduction whole slices move, so they can go in wider units:
    // every tuple's offset is a multiple of the slice.
    int unit = static_cast<int>(es);
    if (reduction_ == ScatterReduce::kNone)
      unit = widest_unit(es, address_bits(out->raw()) | address_bits(upd.raw()) | static_cast<uint64_t>(slice) * es);
    const int64_t f = unit / static_cast<int64_t>(es);
    m.tuples = tuples;
    m.slice = slice / f;
    for (int64_t j = 0; j < k; ++j) m.strides[j] = strides[j] / f;
    CUDA_RETURN_IF_ERROR(launch_scatter_nd(out->raw(), upd.raw(), ind.raw(), idx64, static_cast<int>(x.dtype()), unit,
                                           reduction_, m, bad, l.stream));
    return OkStatus();
  }

 private:
  ScatterReduce reduction_ = ScatterReduce::kNone;
};

class GatherNDKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    batch_dims_ = node.attr_int("batch_dims", 0);
    if (batch_dims_ < 0) return InvalidArgument(node.describe(), ": batch_dims must be non-negative");
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& ind = ctx.input(1);
    if (!x.defined()) return InvalidArgument("GatherND: data is missing");
    RETURN_IF_ERROR(check_index_tensor(ind, "GatherND"));
    const int64_t r = static_cast<int64_t>(x.rank()), q = static_cast<int64_t>(ind.rank()), b = batch_dims_;
    if (r < 1 || q < 1) return InvalidArgument("GatherND: data and indices must have rank >= 1");
    if (b >= std::min(r, q)) return InvalidArgument("GatherND: batch_dims ", b, " must be less than both ranks");
    const int64_t k = ind.dim(q - 1);
    if (k < 1 || b + k > r)
      return InvalidArgument("GatherND: indices last dimension ", k, " must be in [1, ", r - b, "]");
    for (int64_t i = 0; i < b; ++i)
      if (ind.dim(i) != x.dim(i))
        return InvalidArgument("GatherND: batch dimension ", i, " differs between data ", x.dims().to_string(),
                               " and indices ", ind.dims().to_string());
    if (k > kIndexMaxRank) return Unimplemented("CUDA GatherND: ", k, " indices per tuple > ", kIndexMaxRank);
    Dims out_dims;
    for (int64_t i = 0; i < q - 1; ++i) out_dims.push_back(ind.dim(i));
    for (int64_t i = b + k; i < r; ++i) out_dims.push_back(x.dim(i));
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), out_dims));
    const int64_t tuples = ind.numel() / k;
    if (tuples == 0) return OkStatus();
    int64_t slice = 1, batch = 1;
    for (int64_t i = b + k; i < r; ++i) slice *= x.dim(i);
    for (int64_t i = 0; i < b; ++i) batch *= x.dim(i);  // > 0: the batch dims are indices' too
    const Dims strides = contiguous_strides(x.dims());
    GatherNDMeta m;
    m.k = static_cast<int32_t>(k);
    for (int64_t j = 0; j < k; ++j) m.dims[j] = x.dim(b + j);
    ASSIGN_OR_RETURN(int* bad, l.error_flag("GatherND: an index is out of range for its data dimension"));
    const bool idx64 = ind.dtype() == DataType::kInt64;
    if (slice == 0) {  // an empty output, but the CPU still rejects bad indices
      CUDA_RETURN_IF_ERROR(launch_check_nd_indices(ind.raw(), idx64, tuples * k, m.k, m.dims, bad, l.stream));
      return OkStatus();
    }
    const size_t es = dtype_size(x.dtype());
    // Slices move in wider units where alignment allows: the batch stride
    // and every index stride are multiples of the slice.
    const int unit =
        widest_unit(es, address_bits(out->raw()) | address_bits(x.raw()) | static_cast<uint64_t>(slice) * es);
    const int64_t f = unit / static_cast<int64_t>(es);
    m.tuples = tuples;
    m.slice = slice / f;
    m.per_batch = std::max<int64_t>(tuples / batch, 1);
    m.batch_stride = b > 0 ? strides[b - 1] / f : 0;
    for (int64_t j = 0; j < k; ++j) m.strides[j] = strides[b + j] / f;
    CUDA_RETURN_IF_ERROR(launch_gather_nd(out->raw(), x.raw(), ind.raw(), idx64, unit, m, bad, l.stream));
    return OkStatus();
  }

 private:
  int64_t batch_dims_ = 0;
};

class TriluKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    upper_ = node.attr_int("upper", 1) != 0;
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined() || x.rank() < 2) return InvalidArgument("Trilu: input must have rank >= 2");
    TriluMeta m;
    m.upper = upper_;
    if (ctx.has_input(1)) {
      ASSIGN_OR_RETURN(m.k, tensor_ops::read_int_scalar(ctx.input(1), "Trilu k"));
    }
    const size_t es = dtype_size(x.dtype());
    if (es > 8) return Unimplemented("CUDA Trilu: no kernel for ", dtype_name(x.dtype()));
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), x.dims()));
    if (out->numel() == 0) return OkStatus();
    m.rows = x.dim(x.rank() - 2);
    m.cols = x.dim(x.rank() - 1);
    CUDA_RETURN_IF_ERROR(launch_trilu(out->raw(), x.raw(), static_cast<int>(es), out->numel(), m, l.stream));
    return OkStatus();
  }

 private:
  bool upper_ = true;
};

// The element count is the CPU kernel's, computed from the host scalars;
// only the fill runs on the GPU.
class RangeKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& s = ctx.input(0);
    const Tensor& lim = ctx.input(1);
    const Tensor& d = ctx.input(2);
    if (!s.defined() || !lim.defined() || !d.defined())
      return InvalidArgument("Range: start, limit and delta are required");
    if (s.numel() != 1 || lim.numel() != 1 || d.numel() != 1)
      return InvalidArgument("Range: start, limit and delta must be scalars");
    if (lim.dtype() != s.dtype() || d.dtype() != s.dtype())
      return InvalidArgument("Range: start, limit and delta must have the same type");
    RETURN_IF_ERROR(tensor_ops::check_host(s, "Range start"));
    RETURN_IF_ERROR(tensor_ops::check_host(lim, "Range limit"));
    RETURN_IF_ERROR(tensor_ops::check_host(d, "Range delta"));
    const DataType dt = s.dtype();
    RangeMeta m;
    int64_t n = 0;
    if (dtype_is_integer(dt)) {
      const int64_t a = s.int_at(0), b = lim.int_at(0), c = d.int_at(0);
      if (c == 0) return InvalidArgument("Range: delta must not be zero");
      const __int128 span = static_cast<__int128>(b) - a;
      __int128 cnt = 0;
      if ((span > 0 && c > 0) || (span < 0 && c < 0)) {
        const __int128 ac = c > 0 ? c : -static_cast<__int128>(c);
        const __int128 as = span > 0 ? span : -span;
        cnt = (as + ac - 1) / ac;
      }
      if (cnt > std::numeric_limits<int64_t>::max()) return InvalidArgument("Range: too many elements");
      n = static_cast<int64_t>(cnt);
      m.istart = a;
      m.idelta = c;
    } else if (dtype_is_float(dt)) {
      const double a = s.double_at(0), b = lim.double_at(0), c = d.double_at(0);
      if (c == 0) return InvalidArgument("Range: delta must not be zero");
      const double cnt = std::ceil((b - a) / c);
      if (!std::isfinite(cnt))
        return InvalidArgument("Range: element count of (", a, ", ", b, ", ", c, ") is not finite");
      if (cnt > 9.0e18) return ResourceExhausted("Range: ", cnt, " elements is too many");
      n = cnt > 0 ? static_cast<int64_t>(cnt) : 0;
      m.fstart = a;
      m.fdelta = c;
    } else {
      return InvalidArgument("Range: unsupported type ", dtype_name(dt));
    }
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, dt, Dims{n}));
    CUDA_RETURN_IF_ERROR(launch_range(out->raw(), static_cast<int>(dt), n, m, l.stream));
    return OkStatus();
  }
};

class EyeLikeKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    k_ = node.attr_int("k", 0);
    const int64_t dt = node.attr_int("dtype", 0);
    if (dt != 0) {
      if (!dtype_is_valid(static_cast<int>(dt)) || dt == int64_t(DataType::kString))
        return InvalidArgument(node.describe(), ": invalid dtype ", dt);
      dtype_ = static_cast<DataType>(dt);
    }
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined() || x.rank() != 2) return InvalidArgument("EyeLike: input must be 2-D");
    const DataType dt = dtype_ == DataType::kUndefined ? x.dtype() : dtype_;
    if (dt == DataType::kString) return InvalidArgument("EyeLike: string output is not supported");
    // Complex outputs have no "1" that scalar_from_double writes; the CPU
    // kernel handles them.
    if (!is_numeric(dt)) return Unimplemented("CUDA EyeLike: no kernel for ", dtype_name(dt), " output");
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, dt, x.dims()));
    if (out->nbytes() == 0) return OkStatus();
    CUDA_RETURN_IF_ERROR(cudaMemsetAsync(out->raw(), 0, out->nbytes(), l.stream));
    const int64_t rows = x.dim(0), cols = x.dim(1);
    // Rows i with 0 <= i + k < cols; |k| is bounded before any sum, so no
    // overflow for extreme k.
    if (k_ >= cols || k_ <= -rows) return OkStatus();
    const int64_t row0 = std::max<int64_t>(0, -k_);
    const int64_t row1 = std::min(rows, cols - k_);
    if (row1 <= row0) return OkStatus();
    const size_t es = dtype_size(dt);
    const tensor_ops::ScalarValue one = tensor_ops::scalar_from_double(dt, 1.0);
    uint64_t bits = 0;
    std::memcpy(&bits, one.bytes, es);
    CUDA_RETURN_IF_ERROR(launch_eye(out->raw(), static_cast<int>(es), bits, cols, row0, k_, row1 - row0, l.stream));
    return OkStatus();
  }

 private:
  int64_t k_ = 0;
  DataType dtype_ = DataType::kUndefined;
};

// OneHot follows the ONNX spec, as the CPU kernel does: indices outside
// [-depth, depth-1] give an all-off row rather than an error.
class OneHotKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    axis_ = node.attr_int("axis", -1);
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& ind = ctx.input(0);
    const Tensor& depth_t = ctx.input(1);
    const Tensor& values = ctx.input(2);
    if (!ind.defined() || !depth_t.defined() || !values.defined())
      return InvalidArgument("OneHot: indices, depth and values are required");
    if (values.numel() != 2) return InvalidArgument("OneHot: values must have two elements, got ", values.describe());
    if (depth_t.numel() != 1) return InvalidArgument("OneHot: depth must be a scalar");
    RETURN_IF_ERROR(tensor_ops::check_host(depth_t, "OneHot depth"));
    if (!is_numeric(ind.dtype())) return InvalidArgument("OneHot: indices must be numeric");
    const double dd = depth_t.double_at(0);
    if (!std::isfinite(dd) || dd < 1 || dd > 9.0e18) return InvalidArgument("OneHot: invalid depth ", dd);
    const int64_t depth = static_cast<int64_t>(dd);
    const int64_t r = static_cast<int64_t>(ind.rank());
    ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_, r, "OneHot axis", true));
    const DataType vt = values.dtype();
    const size_t es = dtype_size(vt);
    if (vt == DataType::kString || es > 8) return Unimplemented("CUDA OneHot: no kernel for ", dtype_name(vt), " values");
    Dims out_dims = ind.dims();
    out_dims.insert(static_cast<size_t>(axis), depth);
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, vt, out_dims));
    if (out->numel() == 0) return OkStatus();
    OneHotMeta m;
    m.outer = 1;
    m.inner = 1;
    for (int64_t k = 0; k < axis; ++k) m.outer *= ind.dim(k);
    for (int64_t k = axis; k < r; ++k) m.inner *= ind.dim(k);
    m.depth = depth;
    m.depth_value = dd;
    CUDA_RETURN_IF_ERROR(launch_one_hot(out->raw(), values.raw(), static_cast<int>(es), ind.raw(),
                                        static_cast<int>(ind.dtype()), m, l.stream));
    return OkStatus();
  }

 private:
  int64_t axis_ = -1;
};

// Every numeric type (OneHot's indices; bool reads as 0 or 1).
const std::vector<DataType>& numeric_types() {
  static const std::vector<DataType> types = {
      DataType::kBool,  DataType::kUInt8,  DataType::kInt8,    DataType::kUInt16,   DataType::kInt16,
      DataType::kInt32, DataType::kUInt32, DataType::kInt64,   DataType::kUInt64,   DataType::kFloat16,
      DataType::kBFloat16, DataType::kFloat, DataType::kDouble};
  return types;
}

// Range's types: the CPU kernel's integers and floats.
const std::vector<DataType>& range_types() {
  static const std::vector<DataType> types = {
      DataType::kUInt8,  DataType::kInt8,  DataType::kUInt16,  DataType::kInt16,    DataType::kInt32, DataType::kUInt32,
      DataType::kInt64,  DataType::kUInt64, DataType::kFloat16, DataType::kBFloat16, DataType::kFloat, DataType::kDouble};
  return types;
}

}  // namespace

void register_cuda_index_kernels(KernelRegistry& r) {
  const std::vector<DataType>& types = movement_types();
  add_cuda_kernel<ScatterElementsKernel>(r, "Scatter", 9, types, 0, 10);
  add_cuda_kernel<ScatterElementsKernel>(r, "ScatterElements", 11, types);
  add_cuda_kernel<ScatterNDKernel>(r, "ScatterND", 11, types);
  add_cuda_kernel<GatherNDKernel>(r, "GatherND", 11, types);
  add_cuda_kernel<TriluKernel>(r, "Trilu", 14, types, kBit1);
  add_cuda_kernel<RangeKernel>(r, "Range", 11, range_types(), kBit0 | kBit1 | kBit2);
  add_cuda_kernel<EyeLikeKernel>(r, "EyeLike", 9, types);
  add_cuda_kernel<OneHotKernel>(r, "OneHot", 9, numeric_types(), kBit1);
}

}  // namespace sy::cuda

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
#include "devices/cpu/kernels/index_checks.h"
#include "devices/cpu/kernels/tensor_common.h"
#include "devices/cpu/kernels/tensor_register.h"
#include "devices/cuda/kernels/cuda_kernels.h"
#include "devices/cuda/kernels/elements_meta.h"
#include "devices/cuda/kernels/index_launch.h"
#include "devices/cuda/kernels/movement_common.h"

namespace sy::cuda {
namespace {

using tensor_ops::kBit0;
using tensor_ops::kBit1;
using tensor_ops::kBit2;
using tensor_ops::ScatterReduction;

bool is_numeric(DataType t) {
  return visit_numeric(t, [](auto) {});
}

// The shared attribute parse, as the launchers' enum (same order).
StatusOr<ScatterReduce> parse_reduction(const Node& node) {
  static_assert(static_cast<int>(ScatterReduce::kMin) == static_cast<int>(ScatterReduction::kMin));
  ASSIGN_OR_RETURN(const ScatterReduction r, tensor_ops::parse_scatter_reduction(node));
  return static_cast<ScatterReduce>(static_cast<int>(r));
}

// Runs after the shared checks (which reject non-numeric reductions as the
// CPU does): refuses a numeric type the GPU has no atomic for.
Status check_atomic(DataType dt, ScatterReduce r, const char* op) {
  if (r != ScatterReduce::kNone && !scatter_reduce_supported(static_cast<int>(dt), r))
    return Unimplemented("CUDA ", op, ": no atomic reduction for ", dtype_name(dt));
  return OkStatus();
}

ScatterReduction shared(ScatterReduce r) { return static_cast<ScatterReduction>(static_cast<int>(r)); }

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
    ASSIGN_OR_RETURN(const int64_t axis, tensor_ops::check_scatter_elements(x, ind, upd, shared(reduction_), axis_));
    RETURN_IF_ERROR(check_atomic(x.dtype(), reduction_, "ScatterElements"));
    const size_t r = x.rank();
    if (r > static_cast<size_t>(kIndexMaxRank))
      return Unimplemented("CUDA ScatterElements: rank ", r, " > ", kIndexMaxRank);
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), x.dims()));
    RETURN_IF_ERROR(copy_into(l, out, x));
    // Launched even when data is empty: its indices must then all be bad.
    if (ind.numel() == 0) return OkStatus();
    const ScatterElementsMeta m = elements_meta(x, ind, axis);
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
    ASSIGN_OR_RETURN(const tensor_ops::ScatterNDShape s, tensor_ops::check_scatter_nd(x, ind, upd, shared(reduction_)));
    RETURN_IF_ERROR(check_atomic(x.dtype(), reduction_, "ScatterND"));
    const int64_t k = s.k, slice = s.slice, tuples = s.tuples;
    if (k > kIndexMaxRank) return Unimplemented("CUDA ScatterND: ", k, " indices per tuple > ", kIndexMaxRank);
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), x.dims()));
    RETURN_IF_ERROR(copy_into(l, out, x));
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
    ASSIGN_OR_RETURN(batch_dims_, tensor_ops::parse_batch_dims(node));
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& ind = ctx.input(1);
    ASSIGN_OR_RETURN(const tensor_ops::GatherNDShape s, tensor_ops::check_gather_nd(x, ind, batch_dims_));
    const int64_t b = batch_dims_, k = s.k, slice = s.slice, batch = s.batch, tuples = s.tuples;
    if (k > kIndexMaxRank) return Unimplemented("CUDA GatherND: ", k, " indices per tuple > ", kIndexMaxRank);
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), s.out_dims));
    if (tuples == 0) return OkStatus();  // else batch > 0: the batch dims are indices' too
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
    ASSIGN_OR_RETURN(const tensor_ops::RangeSpec spec, tensor_ops::range_spec(ctx.input(0), ctx.input(1), ctx.input(2)));
    const DataType dt = spec.dtype;
    const int64_t n = spec.n;
    RangeMeta m;
    m.istart = spec.istart;
    m.idelta = spec.idelta;
    m.fstart = spec.fstart;
    m.fdelta = spec.fdelta;
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
    ASSIGN_OR_RETURN(dtype_, tensor_ops::parse_eye_like_dtype(node));
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(const DataType dt, tensor_ops::eye_like_output_type(x, dtype_));
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
    ASSIGN_OR_RETURN(const tensor_ops::OneHotShape s, tensor_ops::check_one_hot(ind, depth_t, values, axis_));
    const DataType vt = values.dtype();
    const size_t es = dtype_size(vt);
    if (vt == DataType::kString || es > 8) return Unimplemented("CUDA OneHot: no kernel for ", dtype_name(vt), " values");
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, vt, s.out_dims));
    if (out->numel() == 0) return OkStatus();
    OneHotMeta m;
    m.outer = s.outer;
    m.inner = s.inner;
    m.depth = s.depth;
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

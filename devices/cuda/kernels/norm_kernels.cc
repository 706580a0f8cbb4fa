// CUDA Layer- and RMSNormalization, Instance- and GroupNormalization,
// MeanVarianceNormalization and LpNormalization: float, double, and
// float16 and bfloat16 computed in float, as on the CPU. Attribute
// parsing, shapes and validation are shared with the CPU kernels
// (reduction_common.h) or follow them (cpu norm_kernels.cc).
#include <vector>

#include "devices/broadcast.h"
#include "devices/cpu/kernels/reduction_common.h"
#include "devices/cuda/cuda_launch.h"
#include "devices/cuda/kernels/cuda_kernels.h"
#include "devices/cuda/kernels/norm_launch.h"
#include "devices/cuda/kernels/reduction_cuda_common.h"
#include "ir/op_fusion.h"

namespace sy::cuda {
namespace {

using namespace reduce_detail;

template <typename F>
bool visit_norm_type(DataType t, F&& f) {
  switch (t) {
    case DataType::kFloat: f(float{}); return true;
    case DataType::kDouble: f(double{}); return true;
    default: return false;
  }
}

const std::vector<DataType>& norm_types() {
  static const std::vector<DataType> k{DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kBFloat16};
  return k;
}

// Another type reaches these kernels only when the value's static type was
// unknown at placement: declined (Unimplemented), so the node runs on the
// CPU, which computes the types these kernels do not and rejects the rest.
Status check_input(const Node& node, const Tensor& t, const char* what) {
  if (!t.defined()) return InvalidArgument(node.describe(), ": missing input ", what);
  if (t.dtype() != DataType::kFloat && t.dtype() != DataType::kDouble && !is_16bit_float(t.dtype()))
    return Unimplemented(node.describe(), ": input ", what, " of type ", dtype_name(t.dtype()), " on CUDA");
  return OkStatus();
}

// Scale, B and friends share X's element type in ONNX; the kernels read
// them as X's type.
Status check_param(const Node& node, const Tensor& x, const Tensor& t, const char* what) {
  if (!t.defined()) return InvalidArgument(node.describe(), ": missing input ", what);
  if (t.dtype() != x.dtype())
    return InvalidArgument(node.describe(), ": ", what, " must have X's type ", dtype_name(x.dtype()), ", got ",
                           t.describe());
  return OkStatus();
}

// Fills the broadcast table of a LayerNormalization parameter: dense when it
// maps column j to element j.
Status set_param_map(const Node& node, const Tensor& t, const Dims& norm_dims, const char* what, bool* dense,
                     int64_t* strides_out) {
  ASSIGN_OR_RETURN(Dims st, param_broadcast_strides(node, t.dims(), norm_dims, what));
  const Dims contiguous = contiguous_strides(norm_dims);
  *dense = true;
  for (size_t i = 0; i < norm_dims.size(); ++i)
    if (norm_dims[i] != 1 && st[i] != contiguous[i]) *dense = false;
  if (*dense) return OkStatus();
  if (norm_dims.size() > static_cast<size_t>(kMaxNormParamRank))
    return Unimplemented(node.describe(), ": broadcast ", what, " over more than ", kMaxNormParamRank,
                         " normalised dimensions on CUDA");
  for (size_t i = 0; i < norm_dims.size(); ++i) strides_out[i] = st[i];
  return OkStatus();
}

// ------------------------------------------------------- LayerNormalization

// RMSNormalization too: the same rows without the mean, bias or statistics.
class LayerNormKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    rms_ = node.op_type == "RMSNormalization";
    ASSIGN_OR_RETURN(attrs_, LayerNormAttrs::parse(node));
    if (attrs_.stash != DataType::kFloat && attrs_.stash != DataType::kDouble)
      return Unimplemented(node.describe(), ": stash_type ", dtype_name(attrs_.stash), " on CUDA");
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    RETURN_IF_ERROR(check_input(node, x, "X"));
    ASSIGN_OR_RETURN(LayerNormShape shape, resolve_layer_norm_shape(node, x, attrs_));
    const Tensor& scale = ctx.input(1);
    // RMSNormalization's scale may have a type of its own (Y takes it),
    // which the CPU kernel handles.
    if (rms_ && scale.defined() && scale.dtype() != x.dtype())
      return Unimplemented(node.describe(), ": a scale of another type than X on CUDA");
    RETURN_IF_ERROR(check_param(node, x, scale, "Scale"));
    const bool has_bias = !rms_ && ctx.has_input(2);
    if (has_bias) RETURN_IF_ERROR(check_param(node, x, ctx.input(2), "B"));

    NormMeta m;
    m.rows = shape.rows;
    m.cols = shape.cols;
    m.epsilon = attrs_.epsilon;
    m.rms = rms_;
    m.norm_rank = static_cast<int>(shape.norm_dims.size());
    RETURN_IF_ERROR(set_param_map(node, scale, shape.norm_dims, "Scale", &m.scale_dense, m.scale_strides));
    if (has_bias)
      RETURN_IF_ERROR(set_param_map(node, ctx.input(2), shape.norm_dims, "B", &m.bias_dense, m.bias_strides));
    if (!m.scale_dense || !m.bias_dense)
      for (size_t i = 0; i < shape.norm_dims.size(); ++i) m.norm_dims[i] = shape.norm_dims[i];

    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), x.dims()));
    Tensor* mean_out = nullptr;
    Tensor* inv_out = nullptr;
    if (!rms_) {
      ASSIGN_OR_RETURN(mean_out, maybe_output(ctx, 1, attrs_.stash, shape.stat_dims));
      ASSIGN_OR_RETURN(inv_out, maybe_output(ctx, 2, attrs_.stash, shape.stat_dims));
    }
    // With empty rows only the statistics (mean 0, 1/sqrt(eps)) have elements.
    if (m.rows == 0 || (m.cols == 0 && !mean_out && !inv_out)) return OkStatus();
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    cudaError_t err = cudaSuccess;
    visit_norm_type(attrs_.stash, [&](auto stag) {
      using S = decltype(stag);
      S* mean = mean_out ? mean_out->data<S>() : nullptr;
      S* inv_std = inv_out ? inv_out->data<S>() : nullptr;
      if (is_16bit_float(x.dtype())) {
        err = launch_layer_norm_16<S>(static_cast<int>(x.dtype()), x.raw(), scale.raw(),
                                      has_bias ? ctx.input(2).raw() : nullptr, y->raw(), mean, inv_std, m, l.stream);
        return;
      }
      visit_norm_type(x.dtype(), [&](auto tag) {
        using T = decltype(tag);
        const T* b = has_bias ? ctx.input(2).data<T>() : nullptr;
        err = launch_layer_norm<T, S>(x.data<T>(), scale.data<T>(), b, y->data<T>(), mean, inv_std, m, l.stream);
      });
    });
    CUDA_RETURN_IF_ERROR(err);
    return OkStatus();
  }

 private:
  bool rms_ = false;
  LayerNormAttrs attrs_;
};

// ------------------------------------ InstanceNormalization, GroupNormalization

class GroupedNormKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(attrs_, GroupedNormAttrs::parse(node));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    RETURN_IF_ERROR(check_input(node, x, "input"));
    RETURN_IF_ERROR(check_param(node, x, ctx.input(1), "scale"));
    RETURN_IF_ERROR(check_param(node, x, ctx.input(2), "bias"));
    ASSIGN_OR_RETURN(GroupedNormShape sh, resolve_grouped_norm_shape(node, x, ctx.input(1), ctx.input(2), attrs_));
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), x.dims()));
    if (x.numel() == 0) return OkStatus();
    NormMeta m;
    m.rows = sh.images * sh.groups;
    m.cols = sh.per_group * sh.spatial;
    m.groups = sh.groups;
    m.per_group = sh.per_group;
    m.spatial = sh.spatial;
    m.params_per_group = attrs_.params_per_group;
    m.epsilon = attrs_.epsilon;
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    cudaError_t err = cudaSuccess;
    if (is_16bit_float(x.dtype())) {
      err = launch_grouped_norm_16(static_cast<int>(x.dtype()), x.raw(), ctx.input(1).raw(), ctx.input(2).raw(),
                                   y->raw(), m, l.stream);
    } else {
      visit_norm_type(x.dtype(), [&](auto tag) {
        using T = decltype(tag);
        err = launch_grouped_norm<T>(x.data<T>(), ctx.input(1).data<T>(), ctx.input(2).data<T>(), y->data<T>(), m,
                                     l.stream);
      });
    }
    CUDA_RETURN_IF_ERROR(err);
    return OkStatus();
  }

 private:
  GroupedNormAttrs attrs_;
};

// ----------------------------------------------- MeanVarianceNormalization

class MvnKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    axes_ = node.attr_ints("axes", {0, 2, 3});
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    RETURN_IF_ERROR(check_input(node, x, "X"));
    const int64_t rank = static_cast<int64_t>(x.rank());
    std::vector<bool> red(static_cast<size_t>(rank), false);
    for (int64_t a : axes_) {
      ASSIGN_OR_RETURN(int64_t ax, normalize_axis(a, rank, node));
      red[static_cast<size_t>(ax)] = true;
    }
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), x.dims()));
    if (x.numel() == 0) return OkStatus();
    ASSIGN_OR_RETURN(ReduceGroups g, to_reduce_groups(node, make_reduce_plan(x.dims(), red)));
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    cudaError_t err = cudaSuccess;
    if (is_16bit_float(x.dtype())) {
      err = launch_mvn_16(static_cast<int>(x.dtype()), x.raw(), y->raw(), g, l.stream);
    } else {
      visit_norm_type(x.dtype(), [&](auto tag) {
        using T = decltype(tag);
        err = launch_mvn<T>(x.data<T>(), y->data<T>(), g, l.stream);
      });
    }
    CUDA_RETURN_IF_ERROR(err);
    return OkStatus();
  }

 private:
  std::vector<int64_t> axes_;
};

// --------------------------------------------------------- LpNormalization

class LpNormKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    axis_ = node.attr_int("axis", -1);
    p_ = node.attr_int("p", 2);
    if (p_ != 1 && p_ != 2) return InvalidArgument(node.describe(), ": p must be 1 or 2, got ", p_);
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    RETURN_IF_ERROR(check_input(node, x, "input"));
    const int64_t rank = static_cast<int64_t>(x.rank());
    if (rank == 0) return InvalidArgument(node.describe(), ": input must have rank >= 1");
    ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_, rank, node));
    const auto a = static_cast<size_t>(axis);
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), x.dims()));
    if (x.numel() == 0) return OkStatus();
    LpMeta m;
    m.outer = prod(x.dims(), 0, a);
    m.d = x.dim(a);
    m.inner = prod(x.dims(), a + 1, x.rank());
    m.p = static_cast<int>(p_);
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    cudaError_t err = cudaSuccess;
    if (is_16bit_float(x.dtype())) {
      err = launch_lp_norm_16(static_cast<int>(x.dtype()), x.raw(), y->raw(), m, l.stream);
    } else {
      visit_norm_type(x.dtype(), [&](auto tag) {
        using T = decltype(tag);
        err = launch_lp_norm<T>(x.data<T>(), y->data<T>(), m, l.stream);
      });
    }
    CUDA_RETURN_IF_ERROR(err);
    return OkStatus();
  }

 private:
  int64_t axis_ = -1;
  int64_t p_ = 2;
};

}  // namespace

void register_cuda_norm_kernels(KernelRegistry& r) {
  add_cuda_kernel<LayerNormKernel>(r, "LayerNormalization", 17, norm_types());
  // OpFusion's, from the arithmetic of float models before opset 17.
  KernelDef fused = cuda_kernel_def<LayerNormKernel>(kFusedLayerNorm, 1, {DataType::kFloat});
  fused.domain = kSwitchyardDomain;
  r.add(std::move(fused));
  add_cuda_kernel<LayerNormKernel>(r, "RMSNormalization", 23, norm_types());
  add_cuda_kernel<GroupedNormKernel>(r, "InstanceNormalization", 1, norm_types());
  add_cuda_kernel<GroupedNormKernel>(r, "GroupNormalization", 18, norm_types());
  add_cuda_kernel<MvnKernel>(r, "MeanVarianceNormalization", 1, norm_types());
  add_cuda_kernel<LpNormKernel>(r, "LpNormalization", 1, norm_types());
}

}  // namespace sy::cuda

// CUDA Reduce* (Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp,
// SumSquare) and ArgMax/ArgMin, plus the area's registration entry point.
// They take cuda_reduce_types(), float16 and bfloat16; ReduceMax and
// ReduceMin also bool (opset 20).
// Attribute parsing and output shapes are the CPU kernels' own
// (reduction_common.h), so both backends accept the same nodes.
#include <string>
#include <string_view>
#include <vector>

#include "devices/cpu/kernels/reduction_common.h"
#include "devices/cuda/cuda_launch.h"
#include "devices/cuda/kernels/cuda_kernels.h"
#include "devices/cuda/kernels/elementwise_launch.h"
#include "devices/cuda/kernels/reduction_cuda_common.h"
#include "devices/cuda/kernels/reduction_launch.h"

namespace sy::cuda {
namespace {

using namespace reduce_detail;

ReduceOp reduce_op_of(const std::string& op) {
  if (op == "ReduceSum") return ReduceOp::kSum;
  if (op == "ReduceMean") return ReduceOp::kMean;
  if (op == "ReduceMax") return ReduceOp::kMax;
  if (op == "ReduceMin") return ReduceOp::kMin;
  if (op == "ReduceProd") return ReduceOp::kProd;
  if (op == "ReduceL1") return ReduceOp::kL1;
  if (op == "ReduceL2") return ReduceOp::kL2;
  if (op == "ReduceLogSum") return ReduceOp::kLogSum;
  if (op == "ReduceLogSumExp") return ReduceOp::kLogSumExp;
  return ReduceOp::kSumSquare;
}

class ReduceKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    op_ = reduce_op_of(node.op_type);
    attrs_ = ReduceAttrs::parse(node);
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(ReduceShape shape, resolve_reduce_shape(ctx, attrs_));
    if (shape.identity) {
      ctx.set_output(0, RuntimeValue(x));
      return OkStatus();
    }
    const bool half = is_16bit_float(x.dtype());
    const bool any_all = x.dtype() == DataType::kBool && (op_ == ReduceOp::kMax || op_ == ReduceOp::kMin);
    if (!half && !any_all) RETURN_IF_ERROR(check_cuda_reduce_type(node, x));
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), shape.out_dims));
    if (y->numel() == 0) return OkStatus();
    ASSIGN_OR_RETURN(ReduceGroups g, to_reduce_groups(node, make_reduce_plan(x.dims(), shape.reduced)));
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    Tensor workspace;
    if (size_t bytes = reduce_workspace_bytes(g); bytes > 0) {
      ASSIGN_OR_RETURN(workspace, ctx.device().allocate(DataType::kUInt8, Dims{static_cast<int64_t>(bytes)}));
    }
    if (any_all) return any_or_all(ctx, l, x, *y, g, workspace.raw());
    cudaError_t err = cudaSuccess;
    if (half) {
      err = launch_reduce_16(static_cast<int>(x.dtype()), op_, x.raw(), y->raw(), g, workspace.raw(), l.stream);
    } else {
      // The type was checked above, before anything was allocated.
      (void)visit_cuda_reduce_type(x.dtype(), [&](auto tag) {
        using T = decltype(tag);
        err = launch_reduce<T>(op_, x.data<T>(), y->data<T>(), g, workspace.raw(), l.stream);
      });
    }
    CUDA_RETURN_IF_ERROR(err);
    return OkStatus();
  }

 private:
  // Opset 20's bool ReduceMax (any) and ReduceMin (all): the int32 max or
  // min of the values as 0 and 1, cast back. Bool reductions are rare
  // enough that the two casts cost less than launchers for another type.
  Status any_or_all(KernelContext& ctx, const Launch& l, const Tensor& x, Tensor& y, const ReduceGroups& g,
                    void* workspace) const {
    constexpr int kBool = static_cast<int>(DataType::kBool), kInt32 = static_cast<int>(DataType::kInt32);
    if (g.red_numel == 0) {  // the max of nothing is false, the min true
      CUDA_RETURN_IF_ERROR(cudaMemsetAsync(y.raw(), op_ == ReduceOp::kMin ? 1 : 0, y.nbytes(), l.stream));
      return OkStatus();
    }
    ASSIGN_OR_RETURN(Tensor in, ctx.device().allocate(DataType::kInt32, x.dims()));
    ASSIGN_OR_RETURN(Tensor out, ctx.device().allocate(DataType::kInt32, y.dims()));
    CUDA_RETURN_IF_ERROR(launch_cast(kBool, kInt32, x.raw(), in.raw(), x.numel(), l.stream));
    CUDA_RETURN_IF_ERROR(launch_reduce<int32_t>(op_, in.data<int32_t>(), out.data<int32_t>(), g, workspace, l.stream));
    CUDA_RETURN_IF_ERROR(launch_cast(kInt32, kBool, out.raw(), y.raw(), y.numel(), l.stream));
    return OkStatus();
  }

  ReduceOp op_ = ReduceOp::kSum;
  ReduceAttrs attrs_;
};

class ArgKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    attrs_ = ArgAttrs::parse(node);
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(AxisView v, resolve_arg_shape(node, x, attrs_));
    const bool half = is_16bit_float(x.dtype());
    if (!half) RETURN_IF_ERROR(check_cuda_reduce_type(node, x));
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, DataType::kInt64, v.out_dims));
    if (y->numel() == 0) return OkStatus();
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ArgMeta m;
    m.outer = v.outer;
    m.d = v.d;
    m.inner = v.inner;
    m.is_max = attrs_.is_max;
    m.select_last = attrs_.select_last_index;
    cudaError_t err = cudaSuccess;
    if (half) {
      err = launch_arg_reduce_16(static_cast<int>(x.dtype()), x.raw(), y->data<int64_t>(), m, l.stream);
    } else {
      // The type was checked above, before anything was allocated.
      (void)visit_cuda_reduce_type(x.dtype(), [&](auto tag) {
        using T = decltype(tag);
        err = launch_arg_reduce<T>(x.data<T>(), y->data<int64_t>(), m, l.stream);
      });
    }
    CUDA_RETURN_IF_ERROR(err);
    return OkStatus();
  }

 private:
  ArgAttrs attrs_;
};

}  // namespace

const std::vector<DataType>& cuda_reduce_types() {
  static const std::vector<DataType> k{DataType::kFloat, DataType::kDouble, DataType::kInt32, DataType::kInt64};
  return k;
}

StatusOr<ReduceGroups> to_reduce_groups(const Node& node, const reduce_detail::ReducePlan& p) {
  std::vector<reduce_detail::ReducePlan::Group> kept = p.kept, red = p.reduced;
  // The innermost (stride-1) group goes back at the end of its list.
  (p.inner_reduced ? red : kept).push_back({p.inner, 1});
  if (kept.size() > static_cast<size_t>(kMaxReduceGroups) || red.size() > static_cast<size_t>(kMaxReduceGroups))
    return Unimplemented(node.describe(), ": more than ", kMaxReduceGroups,
                         " alternating kept/reduced dimension groups on CUDA");
  ReduceGroups g;
  g.num_kept = static_cast<int>(kept.size());
  g.num_red = static_cast<int>(red.size());
  for (size_t i = 0; i < kept.size(); ++i) {
    g.kept_size[i] = kept[i].size;
    g.kept_stride[i] = kept[i].stride;
  }
  for (size_t i = 0; i < red.size(); ++i) {
    g.red_size[i] = red[i].size;
    g.red_stride[i] = red[i].stride;
  }
  g.out_numel = p.out_numel;
  g.red_numel = p.red_numel;
  g.inner_kept = !p.inner_reduced;
  plan_reduce_launch(g);
  return g;
}

void register_cuda_reduction_kernels(KernelRegistry& r) {
  std::vector<DataType> types = cuda_reduce_types();
  types.push_back(DataType::kFloat16);
  types.push_back(DataType::kBFloat16);
  const char* reduce_ops[] = {"ReduceSum", "ReduceMean",   "ReduceMax",       "ReduceMin",      "ReduceProd",
                              "ReduceL1",  "ReduceL2",     "ReduceLogSum",    "ReduceLogSumExp", "ReduceSumSquare"};
  std::vector<DataType> with_bool = types;
  with_bool.push_back(DataType::kBool);
  constexpr uint64_t kAxes = uint64_t{1} << 1;
  for (const char* op : reduce_ops) {
    const int split = reduce_axes_input_since(op);
    add_cuda_kernel<ReduceKernel>(r, op, 1, types, 0, split - 1);
    if (std::string_view(op) == "ReduceMax" || std::string_view(op) == "ReduceMin") {
      add_cuda_kernel<ReduceKernel>(r, op, split, types, kAxes, 19);
      add_cuda_kernel<ReduceKernel>(r, op, 20, with_bool, kAxes);  // bool since opset 20
      continue;
    }
    add_cuda_kernel<ReduceKernel>(r, op, split, types, kAxes);
  }
  for (const char* op : {"ArgMax", "ArgMin"}) add_cuda_kernel<ArgKernel>(r, op, 1, types);
  register_cuda_sort_scan_kernels(r);
  register_cuda_norm_kernels(r);
}

}  // namespace sy::cuda

// CUDA TopK and CumSum. K and the CumSum axis are host inputs; shapes and
// validation are the CPU kernels' own (reduction_common.h).
#include <climits>
#include <vector>

#include "devices/cpu/kernels/reduction_common.h"
#include "devices/cuda/cuda_launch.h"
#include "devices/cuda/kernels/cuda_kernels.h"
#include "devices/cuda/kernels/reduction_cuda_common.h"
#include "devices/cuda/kernels/sort_scan_launch.h"

namespace sy::cuda {
namespace {

using namespace reduce_detail;

class TopKKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(attrs_, TopKAttrs::parse(node));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(TopKShape shape, resolve_topk_shape(ctx, attrs_));
    RETURN_IF_ERROR(check_cuda_reduce_type(node, x));
    const Dims& od = shape.view.out_dims;
    ASSIGN_OR_RETURN(Tensor * values, ctx.allocate_output(0, x.dtype(), od));
    int64_t* indices = nullptr;
    if (ctx.output_wanted(1)) {
      ASSIGN_OR_RETURN(Tensor * t, ctx.allocate_output(1, DataType::kInt64, od));
      indices = t->data<int64_t>();
    }
    if (values->numel() == 0) return OkStatus();
    TopKMeta m;
    m.outer = shape.view.outer;
    m.d = shape.view.d;
    m.inner = shape.view.inner;
    m.k = shape.k;
    m.largest = attrs_.largest;
    if (x.numel() > INT_MAX)
      return Unimplemented(node.describe(), ": TopK on CUDA sorts at most ", INT_MAX, " elements, input is ",
                           x.describe());
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    Status st;
    // The type was checked above, before anything was allocated.
    (void)visit_cuda_reduce_type(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      st = run<T>(ctx, l, x.data<T>(), values->data<T>(), indices, m);
    });
    return st;
  }

 private:
  template <typename T>
  static Status run(KernelContext& ctx, const Launch& l, const T* x, T* values, int64_t* indices,
                    const TopKMeta& m) {
    size_t bytes = 0;
    CUDA_RETURN_IF_ERROR(topk_workspace_bytes<T>(m, &bytes));
    ASSIGN_OR_RETURN(Tensor ws, ctx.device().allocate(DataType::kUInt8, Dims{static_cast<int64_t>(bytes)}));
    CUDA_RETURN_IF_ERROR(launch_topk<T>(x, values, indices, m, ws.raw(), bytes, l.stream));
    return OkStatus();
  }

  TopKAttrs attrs_;
};

class CumSumKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    exclusive_ = node.attr_int("exclusive", 0) != 0;
    reverse_ = node.attr_int("reverse", 0) != 0;
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(AxisView v, resolve_cumsum_shape(ctx));
    RETURN_IF_ERROR(check_cuda_reduce_type(node, x));
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), v.out_dims));
    if (x.numel() == 0) return OkStatus();
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ScanMeta m;
    m.outer = v.outer;
    m.d = v.d;
    m.inner = v.inner;
    m.exclusive = exclusive_;
    m.reverse = reverse_;
    cudaError_t err = cudaSuccess;
    // The type was checked above, before anything was allocated.
    (void)visit_cuda_reduce_type(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      err = launch_cumsum<T>(x.data<T>(), y->data<T>(), m, l.stream);
    });
    CUDA_RETURN_IF_ERROR(err);
    return OkStatus();
  }

 private:
  bool exclusive_ = false;
  bool reverse_ = false;
};

}  // namespace

void register_cuda_sort_scan_kernels(KernelRegistry& r) {
  add_cuda_kernel<TopKKernel>(r, "TopK", 1, cuda_reduce_types(), 0, 9);
  add_cuda_kernel<TopKKernel>(r, "TopK", 10, cuda_reduce_types(), /*K*/ uint64_t{1} << 1);
  add_cuda_kernel<CumSumKernel>(r, "CumSum", 11, cuda_reduce_types(), /*axis*/ uint64_t{1} << 1);
}

}  // namespace sy::cuda

// CUDA Col2Im and MaxUnpool. The checks are the CPU kernels'
// (col2im_plan.h, nn::plan_max_unpool), so both backends accept and refuse
// the same nodes. Col2Im's image and block shapes and MaxUnpool's
// output_shape are host inputs on both; MaxUnpool's indices stay on the
// device (they usually come from a MaxPool there) and are checked by the
// kernel, which fails the task with OutOfRange as the CPU does.
//
// Thread-safety: compute() is const and keeps no state beyond attributes
// parsed in init().
#include "devices/cpu/kernels/col2im_plan.h"
#include "devices/cpu/kernels/nn_common.h"
#include "devices/cuda/cuda_launch.h"
#include "devices/cuda/kernels/blas_dnn_common.h"
#include "devices/cuda/kernels/cuda_kernels.h"
#include "devices/cuda/kernels/fold_launch.h"

namespace sy::cuda {
namespace {

class Col2ImKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    a_ = col2im::parse_attrs(node);
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const col2im::Plan p, col2im::plan(ctx, a_));
    const int n = static_cast<int>(p.image.size());
    if (n > kMaxFoldAxes) return Unimplemented("CUDA Col2Im: more than ", kMaxFoldAxes, " spatial axes");
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), p.out));
    if (y->numel() == 0) return OkStatus();
    Col2ImMeta m;
    m.n = n;
    for (int a = 0; a < n; ++a) {
      const auto k = static_cast<size_t>(a);
      m.image[a] = p.image[k];
      m.block[a] = p.block[k];
      m.dil[a] = p.dil[k];
      m.pad[a] = p.pads[k];
      m.stride[a] = p.str[k];
      m.count[a] = p.count[k];
    }
    m.planes = x.dim(0) * p.channels;
    m.plane = y->numel() / m.planes;
    m.kernel = p.kernel;
    m.blocks = p.blocks;
    CUDA_RETURN_IF_ERROR(launch_col2im(static_cast<int>(x.dtype()), m, x.raw(), y->raw(), l.stream));
    return OkStatus();
  }

 private:
  col2im::Attrs a_;
};

class MaxUnpoolKernel final : public Kernel {
 public:
  Status init(const Node& node) override { return attrs_.parse_pool(node); }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const nn::MaxUnpoolPlan p, nn::plan_max_unpool(ctx, attrs_));
    const Tensor& x = ctx.input(0);
    const size_t es = dtype_size(x.dtype());
    if (x.dtype() == DataType::kString || es == 0)
      return Unimplemented("CUDA MaxUnpool: no kernel for ", dtype_name(x.dtype()));
    if (p.out.rank() > static_cast<size_t>(kMaxUnpoolRank))
      return Unimplemented("CUDA MaxUnpool: rank ", p.out.rank(), " > ", kMaxUnpoolRank);
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), p.out));
    if (y->numel() == 0) return OkStatus();
    MaxUnpoolMeta m;
    m.rank = static_cast<int>(p.out.rank());
    for (int d = 0; d < m.rank; ++d) {
      m.inferred[d] = p.inferred[static_cast<size_t>(d)];
      m.out[d] = p.out[static_cast<size_t>(d)];
    }
    m.n = x.numel();
    m.total = p.inferred.numel();
    m.out_numel = y->numel();
    ASSIGN_OR_RETURN(Tensor claims, dnn::scratch(ctx, DataType::kUInt64, y->dims()));
    ASSIGN_OR_RETURN(int* bad, l.error_flag("MaxUnpool: an index is out of range for the inferred output shape"));
    CUDA_RETURN_IF_ERROR(launch_max_unpool(static_cast<int>(es), m, x.raw(), ctx.input(1).data<int64_t>(), y->raw(),
                                           static_cast<unsigned long long*>(claims.raw()), bad, l.stream));
    return OkStatus();
  }

 private:
  nn::WindowAttrs attrs_;
};

}  // namespace

void register_cuda_fold_kernels(KernelRegistry& r) {
  const std::vector<DataType> floats = {DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kBFloat16};
  // image_shape and block_shape (inputs 1 and 2); output_shape (input 2).
  add_cuda_kernel<Col2ImKernel>(r, "Col2Im", 18, floats, (uint64_t{1} << 1) | (uint64_t{1} << 2));
  add_cuda_kernel<MaxUnpoolKernel>(r, "MaxUnpool", 9, {}, uint64_t{1} << 2);
}

}  // namespace sy::cuda

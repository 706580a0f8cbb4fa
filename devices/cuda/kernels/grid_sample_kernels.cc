// CUDA GridSample and AffineGrid. The attributes and checks are the CPU kernel's
// (grid_sample_plan.h) and so is the per-axis arithmetic
// (grid_sample_axis.h, compiled for the device too), so both backends
// accept the same nodes and sample the same taps; the device work is in
// grid_sample_launch.cu. Before, a spatial transformer or optical-flow
// warp sent its feature map to the CPU and back at every GridSample.
//
// Thread-safety: compute() is const and keeps no state beyond attributes
// parsed in init().
#include "devices/cpu/kernels/grid_sample_plan.h"
#include "devices/cuda/cuda_launch.h"
#include "devices/cuda/kernels/cuda_kernels.h"
#include "devices/cuda/kernels/grid_sample_launch.h"

namespace sy::cuda {
namespace {

class GridSampleKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(attrs_, grid_sample::parse_attrs(node));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const grid_sample::Plan p, grid_sample::plan(ctx, attrs_));
    const Tensor& x = ctx.input(0);
    const Tensor& grid = ctx.input(1);
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), p.out_dims));
    if (out->numel() == 0) return OkStatus();
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    if (p.plane_in == 0) {  // zeros padding: plan() refused the others
      CUDA_RETURN_IF_ERROR(cudaMemsetAsync(out->raw(), 0, out->nbytes(), l.stream));
      return OkStatus();
    }
    GridSampleMeta m;
    m.r = p.r;
    m.mode = attrs_.mode;
    m.pad = attrs_.pad;
    m.align_corners = attrs_.align_corners;
    m.batch = x.dim(0);
    m.channels = x.dim(1);
    m.pixels = p.pixels;
    m.plane_in = p.plane_in;
    for (int a = 0; a < p.r; ++a) {
      m.axes[a] = p.axes[a];
      m.stride[a] = p.stride[a];
    }
    CUDA_RETURN_IF_ERROR(launch_grid_sample(static_cast<int>(x.dtype()), static_cast<int>(grid.dtype()), m, x.raw(),
                                            grid.raw(), out->raw(), l.stream));
    return OkStatus();
  }

 private:
  grid_sample::Attrs attrs_;
};

// AffineGrid: the grid a spatial transformer hands to GridSample, made
// where GridSample will read it.
class AffineGridKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    align_corners_ = node.attr_int("align_corners", 0) != 0;
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const grid_sample::AffinePlan p, grid_sample::plan_affine_grid(ctx));
    const Tensor& theta = ctx.input(0);
    ASSIGN_OR_RETURN(Tensor * grid, ctx.allocate_output(0, theta.dtype(), p.out));
    if (grid->numel() == 0) return OkStatus();
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    AffineGridMeta m;
    m.r = p.r;
    m.align_corners = align_corners_;
    m.n = p.n;
    m.d = p.d;
    m.h = p.h;
    m.w = p.w;
    CUDA_RETURN_IF_ERROR(
        launch_affine_grid(static_cast<int>(theta.dtype()), m, theta.raw(), grid->raw(), l.stream));
    return OkStatus();
  }

 private:
  bool align_corners_ = false;
};

}  // namespace

void register_cuda_grid_sample_kernels(KernelRegistry& r) {
  const std::vector<DataType> floats = {DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kBFloat16};
  add_cuda_kernel<GridSampleKernel>(r, "GridSample", 16, floats);
  add_cuda_kernel<AffineGridKernel>(r, "AffineGrid", 20, floats, uint64_t{1} << 1);  // size on the host
}

}  // namespace sy::cuda

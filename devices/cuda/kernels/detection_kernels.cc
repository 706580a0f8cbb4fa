// CUDA RoiAlign. The attributes and checks are the CPU kernel's
// (roi_align_plan.h), which read the ROIs and batch indices: the kernel
// takes them in host memory (a few numbers per ROI), works out each ROI's
// geometry there as the CPU does, and uploads that table; the device then
// samples the feature map, which stays where it is. Before, a detection
// head sent its whole feature map to the CPU for this one node.
//
// Thread-safety: compute() is const and keeps no state beyond attributes
// parsed in init().
#include <cstring>

#include "devices/cpu/kernels/roi_align_plan.h"
#include "devices/cuda/cuda_launch.h"
#include "devices/cuda/kernels/cuda_kernels.h"
#include "devices/cuda/kernels/detection_launch.h"

namespace sy::cuda {
namespace {

class RoiAlignKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(a_, nn::roi_align_attrs(node));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const nn::RoiAlignPlan p, nn::plan_roi_align(ctx, a_));
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), p.out));
    if (y->numel() == 0) return OkStatus();
    // The geometry table goes up through the device's own copy (on this
    // task's stream), so the host table may go when compute() returns.
    const size_t bytes = p.rois.size() * sizeof(nn::RoiGeometry);
    ASSIGN_OR_RETURN(Tensor blob, Tensor::host(DataType::kUInt8, Dims{static_cast<int64_t>(bytes)}));
    std::memcpy(blob.raw(), p.rois.data(), bytes);
    ASSIGN_OR_RETURN(Tensor table, ctx.device().copy(blob, ctx.device().memory_space()));
    RoiAlignMeta m;
    m.rois = p.out[0];
    m.c = x.dim(1);
    m.h = x.dim(2);
    m.w = x.dim(3);
    m.out_h = a_.out_h;
    m.out_w = a_.out_w;
    m.max_mode = a_.max_mode;
    CUDA_RETURN_IF_ERROR(launch_roi_align(static_cast<int>(x.dtype()), m, x.raw(),
                                          static_cast<const nn::RoiGeometry*>(table.raw()), y->raw(), l.stream));
    return OkStatus();
  }

 private:
  nn::RoiAlignAttrs a_;
};

}  // namespace

void register_cuda_detection_kernels(KernelRegistry& r) {
  // rois and batch_indices (inputs 1 and 2) are read by the checks.
  add_cuda_kernel<RoiAlignKernel>(r, "RoiAlign", 10, {DataType::kFloat, DataType::kDouble},
                                  (uint64_t{1} << 1) | (uint64_t{1} << 2));
}

}  // namespace sy::cuda

// CUDA RoiAlign. The attributes and checks are the CPU kernel's
// (roi_align_plan.h), which read the ROIs and batch indices: the kernel
// takes them in host memory (a few numbers per ROI), works out each ROI's
// geometry there as the CPU does, and uploads that table; the device then
// samples the feature map, which stays where it is. Before, a detection
// head sent its whole feature map to the CPU for this one node.
//
// CUDA NonMaxSuppression, the other node a detection head used to send to
// the CPU with all its boxes and scores (see below).
//
// Thread-safety: compute() is const and keeps no state beyond attributes
// parsed in init().
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "devices/cpu/kernels/nn_common.h"
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

// NonMaxSuppression: the number of boxes kept is found on the device, so
// the kernel runs in two launches (KernelContext::resume_after): the first
// sorts, selects and counts, the second writes the [kept, 3] output. The
// scalars (max boxes, thresholds) are host inputs, as on the CPU, whose
// checks (nn::plan_nms) and overlap rule (nms_overlap.h) this shares.
class NonMaxSuppressionKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(center_, nn::nms_center(node));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const nn::NmsPlan p, nn::plan_nms(ctx));
    const Tensor& boxes = ctx.input(0);
    const Tensor& scores = ctx.input(1);
    if (boxes.dtype() != scores.dtype() || (boxes.dtype() != DataType::kFloat && boxes.dtype() != DataType::kDouble))
      return Unimplemented("CUDA NonMaxSuppression: boxes ", dtype_name(boxes.dtype()), " and scores ",
                           dtype_name(scores.dtype()), "; only both float or both double");
    NmsMeta m;
    m.batches = p.batches;
    m.boxes = p.boxes;
    m.classes = p.classes;
    m.cap = std::min(p.max_out, p.boxes);
    m.iou_th = p.iou_th;
    m.score_th = p.score_th;
    m.has_score_th = p.has_score_th;
    m.center = center_;
    const int64_t segs = m.batches * m.classes;
    if (m.cap <= 0 || segs == 0) return ctx.allocate_output(0, DataType::kInt64, Dims{0, 3}).status();
    if (segs * m.boxes > INT32_MAX)
      return Unimplemented("CUDA NonMaxSuppression: ", segs * m.boxes, " scores, past CUB's sort");
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    Device& d = ctx.device();
    if (!ctx.resumed()) {
      size_t bytes = 0;
      CUDA_RETURN_IF_ERROR(nms_workspace_bytes(static_cast<int>(boxes.dtype()), m, &bytes));
      ASSIGN_OR_RETURN(Tensor work, d.allocate(DataType::kUInt8, Dims{static_cast<int64_t>(bytes)}));
      ASSIGN_OR_RETURN(Tensor picked, d.allocate(DataType::kInt64, Dims{segs, m.cap}));
      ASSIGN_OR_RETURN(Tensor offsets, d.allocate(DataType::kInt64, Dims{segs}));
      ASSIGN_OR_RETURN(Tensor total, d.allocate(DataType::kInt64, Dims{1}));
      CUDA_RETURN_IF_ERROR(launch_nms_select(static_cast<int>(boxes.dtype()), m, boxes.raw(), scores.raw(), work.raw(),
                                             bytes, picked.data<int64_t>(), offsets.data<int64_t>(),
                                             total.data<int64_t>(), l.stream));
      ASSIGN_OR_RETURN(Tensor count, d.copy(total, kHostSpace));
      return ctx.resume_after({std::move(picked), std::move(offsets), std::move(count)});
    }
    ASSIGN_OR_RETURN(const int64_t kept, carried_size(ctx, 3, 0, segs * m.cap, "NonMaxSuppression"));
    const std::vector<Tensor>& carried = ctx.carried();
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, DataType::kInt64, Dims{kept, 3}));
    CUDA_RETURN_IF_ERROR(launch_nms_write(m, carried[0].data<int64_t>(), carried[1].data<int64_t>(), kept,
                                          y->data<int64_t>(), l.stream));
    return OkStatus();
  }

 private:
  int center_ = 0;
};

}  // namespace

void register_cuda_detection_kernels(KernelRegistry& r) {
  // rois and batch_indices (inputs 1 and 2) are read by the checks.
  add_cuda_kernel<RoiAlignKernel>(r, "RoiAlign", 10, {DataType::kFloat, DataType::kDouble},
                                  (uint64_t{1} << 1) | (uint64_t{1} << 2));
  // The scalars (inputs 2 to 4) are read by the checks, as on the CPU.
  add_cuda_data_dependent_kernel<NonMaxSuppressionKernel>(r, "NonMaxSuppression", 10,
                                                          {DataType::kFloat, DataType::kDouble},
                                                          (uint64_t{1} << 2) | (uint64_t{1} << 3) | (uint64_t{1} << 4));
}

}  // namespace sy::cuda

// RoiAlign's attributes and input checks, shared by the CPU kernel
// (nn_detection.cc, which defines these) and the CUDA one
// (devices/cuda/kernels/detection_kernels.cc), so both accept and refuse
// the same nodes with the same messages. The checks read the ROIs and batch
// indices, which the CUDA kernel therefore takes in host memory.
#pragma once

#include <cstdint>
#include <vector>

#include "devices/cpu/kernels/roi_align_sample.h"
#include "devices/kernel.h"

namespace sy::nn {

struct RoiAlignAttrs {
  bool half_pixel = true, max_mode = false;
  int64_t out_h = 1, out_w = 1, sampling_ratio = 0;
  float scale = 1.f;
};

// InvalidArgument for an unknown mode or coordinate transformation, or
// non-positive output sizes.
StatusOr<RoiAlignAttrs> roi_align_attrs(const Node& node);

struct RoiAlignPlan {
  Dims out;                       // [num_rois, C, out_h, out_w]
  std::vector<RoiGeometry> rois;  // one per ROI
};

// Checks X [N, C, H, W], rois [R, 4] of X's type and batch_indices [R]
// (every index in [0, N)), and that no ROI's sampling grid is unbounded.
// InvalidArgument otherwise.
StatusOr<RoiAlignPlan> plan_roi_align(const KernelContext& ctx, const RoiAlignAttrs& a);

}  // namespace sy::nn

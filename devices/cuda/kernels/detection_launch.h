// Launchers of the CUDA detection kernels (detection_launch.cu). Element
// types are ONNX codes (elementwise_launch.h's ew_type). The launchers only
// enqueue on `stream` and return the launch error; they never synchronise.
// Reentrant.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "devices/cpu/kernels/roi_align_sample.h"

namespace sy::cuda {

// RoiAlign of x [N, C, H, W] (float or double) over the ROIs' geometry
// `rois` (device memory, one entry per ROI) into y [R, C, out_h, out_w].
struct RoiAlignMeta {
  int64_t rois = 0, c = 0, h = 0, w = 0, out_h = 1, out_w = 1;
  bool max_mode = false;
};
cudaError_t launch_roi_align(int type, const RoiAlignMeta& m, const void* x, const nn::RoiGeometry* rois, void* y,
                             cudaStream_t stream);

}  // namespace sy::cuda

// Launchers of the CUDA detection kernels (detection_launch.cu). Element
// types are ONNX codes (elementwise_launch.h's ew_type). The launchers only
// enqueue on `stream` and return the launch error; they never synchronise.
// Reentrant.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "devices/cpu/kernels/nms_overlap.h"
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

// NonMaxSuppression of boxes [B, N, 4] and scores [B, C, N], both float or
// both double, in two launches like NonZero (select_launch.h), by the CPU's
// overlap rule (nms_overlap.h).
struct NmsMeta {
  int64_t batches = 0, boxes = 0, classes = 0;  // B, N, C; B * C * N <= INT_MAX
  int64_t cap = 0;                              // min(max_output_boxes_per_class, N), at least 1
  double iou_th = 0, score_th = 0;
  bool has_score_th = false;
  int center = 0;  // center_point_box
};
cudaError_t nms_workspace_bytes(int type, const NmsMeta& m, size_t* bytes);
// First launch: picked [B * C, cap] = each class's kept boxes, best first;
// counts [B * C] = exclusive offsets of the classes' rows in the output;
// *total = the boxes kept in all.
cudaError_t launch_nms_select(int type, const NmsMeta& m, const void* boxes, const void* scores, void* workspace,
                              size_t workspace_bytes, int64_t* picked, int64_t* counts, int64_t* total,
                              cudaStream_t stream);
// Second: y [total, 3] = (batch, class, box) of every kept box, class by
// class, as the CPU lists them.
cudaError_t launch_nms_write(const NmsMeta& m, const int64_t* picked, const int64_t* offsets, int64_t total, int64_t* y,
                             cudaStream_t stream);

}  // namespace sy::cuda

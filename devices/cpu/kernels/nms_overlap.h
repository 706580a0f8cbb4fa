// NonMaxSuppression's overlap rule, shared by the CPU kernel
// (nn_detection.cc) and the CUDA one (devices/cuda/kernels/detection_launch.cu),
// so both keep exactly the same boxes, also at the threshold. Plain C++ in
// double, as ONNX Runtime's CPU kernel computes it, which the ONNX reference
// outputs were made with.
#pragma once

#include "devices/host_device.h"

namespace sy::nn {

// A box as corners (y1, x1, y2, x2) with y1 <= y2 and x1 <= x2, from ONNX's
// corner form (center_point_box 0: any two opposite corners) or centre form
// (1: x_center, y_center, width, height).
SY_HOST_DEVICE inline void nms_corners(const double* b, int center, double* o) {
  if (center == 0) {
    o[0] = b[0] < b[2] ? b[0] : b[2];
    o[2] = b[0] < b[2] ? b[2] : b[0];
    o[1] = b[1] < b[3] ? b[1] : b[3];
    o[3] = b[1] < b[3] ? b[3] : b[1];
  } else {
    o[1] = b[0] - b[2] / 2;
    o[3] = b[0] + b[2] / 2;
    o[0] = b[1] - b[3] / 2;
    o[2] = b[1] + b[3] / 2;
  }
}

// True if box a suppresses box b (or b a): intersection over union above
// `threshold`. Boxes without area suppress nothing.
SY_HOST_DEVICE inline bool nms_suppresses(const double* a, const double* b, double threshold, int center) {
  double p[4], q[4];
  nms_corners(a, center, p);
  nms_corners(b, center, q);
  const double iy1 = p[0] > q[0] ? p[0] : q[0], ix1 = p[1] > q[1] ? p[1] : q[1];
  const double iy2 = p[2] < q[2] ? p[2] : q[2], ix2 = p[3] < q[3] ? p[3] : q[3];
  const double ih = iy2 - iy1 > 0.0 ? iy2 - iy1 : 0.0, iw = ix2 - ix1 > 0.0 ? ix2 - ix1 : 0.0;
  const double inter = ih * iw;
  if (inter <= 0) return false;
  const double area1 = (p[2] - p[0]) * (p[3] - p[1]), area2 = (q[2] - q[0]) * (q[3] - q[1]);
  if (area1 <= 0 || area2 <= 0) return false;
  return inter / (area1 + area2 - inter) > threshold;
}

}  // namespace sy::nn

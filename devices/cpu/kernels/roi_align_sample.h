// RoiAlign's sampling rule, shared by the CPU kernel (nn_detection.cc) and
// the CUDA one (devices/cuda/kernels/detection_launch.cu): one ROI's bin
// geometry and the bilinear taps of one sample point. Plain C++ with no
// project types, so nvcc compiles it into the device kernel and both
// backends read the feature map at the same points with the same weights.
// The rule is ONNX Runtime's CPU one, which the ONNX reference outputs were
// made with.
#pragma once

#include <cstdint>

#include "devices/host_device.h"

namespace sy::nn {

// One ROI, in feature-map pixels: the first bin's corner (sw, sh), a bin's
// size (bw, bh), the gw x gh samples taken in each bin, and the batch image.
struct RoiGeometry {
  double sw = 0, sh = 0, bw = 0, bh = 0;
  int64_t gw = 0, gh = 0, n = 0;
};

// The four taps around one sample point: element offsets in an H x W plane
// and their weights. A point outside [-1, H] x [-1, W] has zero weights.
struct RoiSample {
  int64_t o1 = 0, o2 = 0, o3 = 0, o4 = 0;
  double w1 = 0, w2 = 0, w3 = 0, w4 = 0;
};

// Sample (iy, ix) of output bin (ph, pw).
SY_HOST_DEVICE inline RoiSample roi_sample(const RoiGeometry& g, int64_t ph, int64_t pw, int64_t iy, int64_t ix,
                                           int64_t H, int64_t W) {
  RoiSample s;
  double yy =
      g.sh + static_cast<double>(ph) * g.bh + (static_cast<double>(iy) + 0.5) * g.bh / static_cast<double>(g.gh);
  double xx =
      g.sw + static_cast<double>(pw) * g.bw + (static_cast<double>(ix) + 0.5) * g.bw / static_cast<double>(g.gw);
  if (yy < -1.0 || yy > static_cast<double>(H) || xx < -1.0 || xx > static_cast<double>(W)) return s;
  yy = yy > 0.0 ? yy : 0.0;
  xx = xx > 0.0 ? xx : 0.0;
  int64_t yl = static_cast<int64_t>(yy), xl = static_cast<int64_t>(xx), yh, xh;
  if (yl >= H - 1) {
    yh = yl = H - 1;
    yy = static_cast<double>(yl);
  } else {
    yh = yl + 1;
  }
  if (xl >= W - 1) {
    xh = xl = W - 1;
    xx = static_cast<double>(xl);
  } else {
    xh = xl + 1;
  }
  const double ly = yy - static_cast<double>(yl), lx = xx - static_cast<double>(xl), hy = 1 - ly, hx = 1 - lx;
  s.o1 = yl * W + xl;
  s.o2 = yl * W + xh;
  s.o3 = yh * W + xl;
  s.o4 = yh * W + xh;
  s.w1 = hy * hx;
  s.w2 = hy * lx;
  s.w3 = ly * hx;
  s.w4 = ly * lx;
  return s;
}

// One output bin of one channel plane `xp` from its gh x gw samples,
// sample(iy, ix) giving each: the average of their bilinear values, or in
// max mode the largest weighted tap, in double.
template <typename T, typename Samples>
SY_HOST_DEVICE double roi_pool(const RoiGeometry& g, const T* xp, bool max_mode, const Samples& sample) {
  double acc = 0;
  bool first = true;
  for (int64_t iy = 0; iy < g.gh; ++iy) {
    for (int64_t ix = 0; ix < g.gw; ++ix) {
      const RoiSample s = sample(iy, ix);
      const double v1 = s.w1 * static_cast<double>(xp[s.o1]), v2 = s.w2 * static_cast<double>(xp[s.o2]),
                   v3 = s.w3 * static_cast<double>(xp[s.o3]), v4 = s.w4 * static_cast<double>(xp[s.o4]);
      if (max_mode) {
        // std::max's rule, (a < b) ? b : a, so NaNs propagate alike.
        const double m12 = v1 < v2 ? v2 : v1, m34 = v3 < v4 ? v4 : v3;
        const double m = m12 < m34 ? m34 : m12;
        acc = first ? m : (acc < m ? m : acc);
        first = false;
      } else {
        acc += v1 + v2 + v3 + v4;
      }
    }
  }
  if (max_mode) return acc;
  const int64_t count = g.gh * g.gw;
  return acc / static_cast<double>(count > 1 ? count : 1);
}

// Output bin (ph, pw) of channel plane xp, its samples computed as it goes
// (the CUDA kernel, where recomputing beats storing them).
template <typename T>
SY_HOST_DEVICE double roi_bin(const RoiGeometry& g, const T* xp, int64_t ph, int64_t pw, int64_t H, int64_t W,
                              bool max_mode) {
  return roi_pool(g, xp, max_mode, [&](int64_t iy, int64_t ix) { return roi_sample(g, ph, pw, iy, ix, H, W); });
}

}  // namespace sy::nn

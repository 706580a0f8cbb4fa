// Float convolution through oneDNN's blocked-layout kernels, for weights
// that stay the same from run to run.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "devices/buffer.h"
#include "devices/cpu/kernels/nn_common.h"

namespace sy::nn {

// oneDNN's fast convolutions (brgconv) read activations with channels in
// blocks of 16 (nChw16c) and weights in their own blocked order. On plain
// NCHW they fall back to im2col and sgemm, which took 1.5-2x as long as the
// blocked kernels on one core ([1, 256, 14, 14] 3x3 to 256: 2650 us against
// 1870, before reorders of 50 us). BlockedConv reorders the weights once
// and keeps them, and reorders the input and output on every call: to and
// from channels-last, the layout oneDNN 2.6's brgconv takes, by tiled
// transposes over all cores; a few input channels stay planar for its
// direct JIT kernel, whose output comes back in 16-channel blocks.
//
// oneDNN runs single-threaded here (use_single_threaded_omp), so the work
// is split over the device's cores: by images where they share out evenly,
// else by output channels in blocks of 16 ([3, 256, 14, 14]: by images,
// 3.8 ms; ONNX Runtime 3.0). Each part is its own primitive writing its
// own slice of y.
class BlockedConv {
 public:
  // y = act(conv(x, w) + b + z) (b and z, shaped as y, may be null) for
  // group 1. False where oneDNN declines the geometry or a buffer cannot be
  // had; y is then unwritten or partly written, and the caller runs another
  // path over all of it. `w` must hold the same values on every call with
  // these shapes: they are reordered on the first call only. Thread-safe.
  bool run(const float* x, const float* w, const float* b, const float* z, float* y, const ConvShape& s,
           const ConvActivation& act) const;

 private:
  struct Part;
  // The part for nb images and output channels [m0, m0 + mc): its
  // primitive and, reordered, its slice of the weights.
  std::shared_ptr<const Part> part(const float* w, const ConvShape& s, int64_t nb, int64_t m0, int64_t mc,
                                   bool bias) const;
  // Runs one part: images [n0, n0 + nb) and channels [m0, m0 + mc) of y.
  // `shared_src`, if set, holds all of x already in the part's layout.
  static bool run_part(const Part& part, const float* x, const float* b, const float* z, float* y, const ConvShape& s,
                       int64_t n0, int64_t m0, const BufferRef& shared_src, const ConvActivation& act);

  mutable std::mutex mu_;
  mutable std::map<std::vector<int64_t>, std::shared_ptr<const Part>> parts_;
};

}  // namespace sy::nn

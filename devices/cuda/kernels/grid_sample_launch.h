// Launchers of the CUDA GridSample and AffineGrid kernels
// (grid_sample_launch.cu). Element
// types are ONNX codes (elementwise_launch.h's ew_type): X and grid each
// float, double, float16 or bfloat16. The launcher only enqueues on
// `stream` and returns the launch error; it never synchronises. Reentrant.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "devices/cpu/kernels/grid_sample_axis.h"

namespace sy::cuda {

struct GridSampleMeta {
  int32_t r = 0;  // spatial rank, 1 to 3
  grid_sample::SampleMode mode = grid_sample::SampleMode::kLinear;
  grid_sample::PaddingMode pad = grid_sample::PaddingMode::kZeros;
  bool align_corners = false;
  int64_t batch = 0, channels = 0;
  int64_t pixels = 0;    // output points per channel
  int64_t plane_in = 0;  // elements per input channel, > 0
  grid_sample::Axis axes[3];
  int64_t stride[3] = {};  // element stride of each spatial axis in a channel
};

// out [N, C, out spatial] = X [N, C, in spatial] sampled at grid
// [N, out spatial, r], in X's compute type (float for 16-bit X).
cudaError_t launch_grid_sample(int x_type, int grid_type, const GridSampleMeta& m, const void* x, const void* grid,
                               void* out, cudaStream_t stream);

// AffineGrid: grid [n, d, h, w, r] (d = 1 in 2-D) = theta [n, r, r + 1]
// times each point's normalised coordinates (x, y[, z], 1), in double, in
// theta's type (float, double, float16 or bfloat16).
struct AffineGridMeta {
  int32_t r = 2;
  bool align_corners = false;
  int64_t n = 0, d = 1, h = 0, w = 0;
};
cudaError_t launch_affine_grid(int type, const AffineGridMeta& m, const void* theta, void* grid, cudaStream_t stream);

}  // namespace sy::cuda

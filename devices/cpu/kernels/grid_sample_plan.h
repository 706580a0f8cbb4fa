// GridSample's and AffineGrid's attributes and input checks, shared by the CPU kernels
// (image_kernels.cc, which defines these) and the CUDA one
// (devices/cuda/kernels/grid_sample_kernels.cc), so that both accept and
// refuse the same nodes with the same messages.
#pragma once

#include <cstdint>

#include "devices/cpu/kernels/grid_sample_axis.h"
#include "devices/kernel.h"

namespace sy::grid_sample {

struct Attrs {
  bool align_corners = false;
  SampleMode mode = SampleMode::kLinear;
  PaddingMode pad = PaddingMode::kZeros;
};

StatusOr<Attrs> parse_attrs(const Node& node);

// Spatial dimensions handled: each output point reads up to 4^r taps.
constexpr int kMaxSpatial = 3;

struct Plan {
  int r = 0;             // spatial rank
  Dims out_dims;         // N, C, then the grid's spatial dims
  int64_t plane_in = 0;  // elements of one input channel
  int64_t pixels = 0;    // output points per channel
  // The first r entries: each spatial axis's geometry and its element
  // stride in a channel.
  Axis axes[kMaxSpatial];
  int64_t stride[kMaxSpatial] = {};
};

// Checks X and grid. InvalidArgument for mismatched shapes or a
// non-floating grid; Unimplemented for an X type other than float, double,
// float16 or bfloat16, or more than kMaxSpatial spatial dimensions; an
// empty input with border or reflection padding is InvalidArgument.
StatusOr<Plan> plan(const KernelContext& ctx, const Attrs& a);

// AffineGrid (opset 20): theta [N, r, r + 1] and the host input size
// (N, C, then r = 2 or 3 spatial sizes) give the grid [N, spatial..., r].
// InvalidArgument for other shapes, negative sizes or a non-float theta.
struct AffinePlan {
  int r = 2;
  int64_t n = 0, d = 1, h = 0, w = 0;  // d is 1 in 2-D
  Dims out;
};
StatusOr<AffinePlan> plan_affine_grid(const KernelContext& ctx);

}  // namespace sy::grid_sample

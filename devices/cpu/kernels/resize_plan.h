// Host-side planning of Resize (opset 10+) and Upsample (7-9), shared by the
// CPU kernel (tensor_resize.cc) and the CUDA kernel (devices/cuda/kernels/
// resize_kernels.cc) so both parse the attributes, read roi / scales / sizes,
// derive the output shape and build the per-axis coordinate plan in one
// place: the GPU gathers from the very taps the CPU sums, which keeps the two
// backends identical in coordinates, roundings and border clamps. The plan
// follows the ONNX reference implementation (onnx/reference/ops/op_resize.py)
// exactly, including its edge padding and its use of scale * input_size (not
// the rounded size) in align_corners and tf_crop_and_resize. Everything here
// reads only attributes, dims and host-memory inputs, and is thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "devices/kernel.h"
#include "devices/tensor.h"
#include "ir/dims.h"
#include "ir/graph.h"
#include "ir/status.h"

namespace sy::tensor_ops {

enum class ResizeMode { kNearest, kLinear, kCubic };
enum class ResizeCoord { kHalfPixel, kAsymmetric, kPytorchHalfPixel, kTfHalfPixelForNn, kAlignCorners,
                         kTfCropAndResize, kHalfPixelSymmetric };
// kSimple is ORT's opset-10 rule (ceil when downsampling, else truncate),
// used by Resize-10 and Upsample.
enum class ResizeNearest { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil, kSimple };

struct ResizeAttrs {
  ResizeMode mode = ResizeMode::kNearest;
  ResizeCoord coord = ResizeCoord::kHalfPixel;
  ResizeNearest nearest = ResizeNearest::kRoundPreferFloor;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0.0;
  // Opset 18: when downsampling, linear and cubic widen their filter by
  // 1 / scale (more taps), which averages out aliasing.
  bool antialias = false;
};

const char* resize_mode_name(ResizeMode m);
// Taps per output coordinate: 1 nearest, 2 linear, 4 cubic.
int resize_taps(ResizeMode m);

// What compute() resizes to: the output dims, the scale of every axis (from
// sizes when those were given) and the roi (empty unless tf_crop_and_resize
// received one; else 2 * rank entries, starts then ends).
struct ResizeTarget {
  Dims out_dims;
  std::vector<double> scales;
  std::vector<double> roi;
};

// Per-axis plan: for each output coordinate, `ntaps` source indices (already
// clamped to the input) with weights, and whether it extrapolates. An
// identity axis maps every coordinate to itself with weight 1.
struct ResizeAxisPlan {
  int64_t in = 0, out = 0;
  int ntaps = 1;
  std::vector<int64_t> idx;
  std::vector<double> w;
  std::vector<uint8_t> outside;
  bool any_outside = false;
  bool identity = false;
};

// A Resize or Upsample node's attributes (fixed at init) and the reading of
// its shape inputs at compute time. One class serves both ops: Upsample is
// opset-10 Resize with its scales in an attribute (7-8) or input 1 (9).
class ResizeSpec {
 public:
  // Parses node (op_type "Resize" or "Upsample").
  Status init(const Node& node);

  const ResizeAttrs& attrs() const { return attrs_; }

  // Reads X's dims and the host inputs roi / scales / sizes into the target.
  StatusOr<ResizeTarget> target(const KernelContext& ctx) const;

 private:
  Status init_resize(const Node& node);
  Status init_upsample(const Node& node);

  enum class AspectPolicy { kStretch, kNotLarger, kNotSmaller };

  bool upsample_ = false;
  int opset_ = 13;
  ResizeAttrs attrs_;
  std::vector<int64_t> axes_;  // opset 18; empty: every axis
  AspectPolicy policy_ = AspectPolicy::kStretch;
  bool scales_from_attr_ = false;  // Upsample 7-8
  std::vector<double> attr_scales_;
};

// The plan of every axis of an input with dims `in` resized to t;
// ResourceExhausted when its tables would not fit in host memory.
StatusOr<std::vector<ResizeAxisPlan>> plan_resize_axes(const ResizeAttrs& a, const Dims& in, const ResizeTarget& t);

}  // namespace sy::tensor_ops

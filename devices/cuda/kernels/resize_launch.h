// Launchers for the CUDA Resize / Upsample and Hardmax kernels
// (resize_launch.cu). The host (resize_kernels.cc) does all the coordinate
// arithmetic: for every resized axis it builds a small table of taps (source
// element offset, weight) per output coordinate, exactly as the CPU kernel
// builds its plan, and uploads it; the device only gathers and sums. That
// keeps the GPU bit-for-bit on the CPU's coordinates, roundings and border
// clamps without re-deriving them in device arithmetic. Every launcher
// enqueues on `stream` and returns the launch error without synchronising.
// Plain C++17 so nvcc never sees the project's headers.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace sy::cuda {

constexpr int kResizeMaxRank = 8;
// Linear and cubic sum over the taps of every resized axis, nested as the
// CPU's separable passes nest them; the nesting depth is a template
// argument, so it is bounded. Four covers every axis of NCHW (an axis of
// extent 1 counts as resized under pytorch_half_pixel, whose 1-wide output
// samples at -0.5). More resized axes are declined (the CPU runs them).
constexpr int kResizeMaxInterpAxes = 4;

// Output element i (row-major over out_dims) reads, on axis k, either
// coordinate c itself (tap_begin[k] < 0: the axis is not resized) or the
// taps at tap_begin[k] + c * ntaps of the tables.
struct ResizeMeta {
  int32_t rank = 0;
  // 1 nearest, 2 linear, 4 cubic; 0 when the resized axes differ in taps
  // (antialiased downsampling widens an axis's filter by 1 / scale): each
  // slot's count is then in slot_ntaps.
  int32_t ntaps = 1;
  int64_t out_dims[kResizeMaxRank] = {};
  int64_t in_strides[kResizeMaxRank] = {};  // elements
  int64_t tap_begin[kResizeMaxRank] = {};   // -1: identity axis
  // First flag of axis k in ResizeTables::outside, -1 when no coordinate
  // of axis k extrapolates (tf_crop_and_resize only).
  int64_t outside_begin[kResizeMaxRank] = {};
  // Linear / cubic: the resized axes in ascending order (slot j is the j-th
  // of them; slot[k] is axis k's slot or -1), with their tap tables.
  int32_t interp_axes = 0;
  int32_t slot[kResizeMaxRank] = {};
  int64_t slot_tap_begin[kResizeMaxInterpAxes] = {};
  int32_t slot_ntaps[kResizeMaxInterpAxes] = {};
  // The element written where any axis extrapolates, in its first bytes.
  uint64_t extrapolation = 0;
};

// Device tables. offsets: source index * input stride (elements), ntaps per
// output coordinate; weights: the same layout (linear / cubic only);
// outside: one flag per output coordinate. Null where nothing uses them.
struct ResizeTables {
  const int64_t* offsets = nullptr;
  const double* weights = nullptr;
  const uint8_t* outside = nullptr;
};

// Nearest: a pure gather of `unit`-byte elements (1, 2, 4 or 8), so every
// element type works and the result is exact. index32: n and every source
// offset fit in int32.
cudaError_t launch_resize_nearest(void* dst, const void* src, int64_t n, int unit, bool index32,
                                  const ResizeMeta& m, const ResizeTables& t, cudaStream_t stream);

// True if launch_resize_interp supports element type `dtype` (the ONNX
// TensorProto code, which is sy::DataType's value).
bool resize_interp_supports(int dtype);

// Linear (ntaps 2), cubic (ntaps 4) or antialiased (ntaps 0) over m.interp_axes (0..4) resized
// axes. Sums run in double in the CPU's order (first resized axis
// innermost, zero taps skipped, no fused multiply-add), so the result
// rounds to the element type exactly as the CPU's does: floats and halves
// through float, integers to nearest-even with saturation.
cudaError_t launch_resize_interp(void* dst, const void* src, int64_t n, int dtype, bool index32,
                                 const ResizeMeta& m, const ResizeTables& t, cudaStream_t stream);

// Hardmax: x viewed as [outer, d, inner]; y is 1 at the first maximum along
// d and 0 elsewhere. A NaN at position 0 wins (nothing compares greater),
// later NaNs never do, as in the CPU's sequential scan. dtype: float,
// double, float16 or bfloat16 codes.
struct HardmaxMeta {
  int64_t outer = 1;
  int64_t d = 1;
  int64_t inner = 1;
};
cudaError_t launch_hardmax(void* dst, const void* src, int dtype, const HardmaxMeta& m, cudaStream_t stream);

}  // namespace sy::cuda

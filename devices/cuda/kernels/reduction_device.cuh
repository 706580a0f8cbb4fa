// Device-side helpers shared by the reduction area's .cu files. nvcc only.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace sy::cuda::reduce_dev {

// Grid size for n work items of per_block each; kernels use grid-stride
// loops, so the cap only bounds the launch.
inline unsigned blocks_for(int64_t n, int64_t per_block) {
  constexpr int64_t kMaxGrid = int64_t{1} << 20;
  int64_t b = (n + per_block - 1) / per_block;
  if (b < 1) b = 1;
  return static_cast<unsigned>(b > kMaxGrid ? kMaxGrid : b);
}

// Offset of row-major index `idx` (< the product of the sizes) over groups
// (size[i], stride[i]). One group, the common case, needs no division.
__device__ __forceinline__ int64_t offset_of(int64_t idx, int n, const int64_t* size, const int64_t* stride) {
  if (n == 1) return idx * stride[0];
  int64_t off = 0;
  for (int i = n - 1; i >= 0; --i) {
    const int64_t s = size[i];
    off += (idx % s) * stride[i];
    idx /= s;
  }
  return off;
}

__device__ __forceinline__ float dev_sqrt(float v) { return sqrtf(v); }
__device__ __forceinline__ double dev_sqrt(double v) { return sqrt(v); }
__device__ __forceinline__ float dev_log(float v) { return logf(v); }
__device__ __forceinline__ double dev_log(double v) { return log(v); }
__device__ __forceinline__ float dev_exp(float v) { return expf(v); }
__device__ __forceinline__ double dev_exp(double v) { return exp(v); }
__device__ __forceinline__ float dev_abs(float v) { return fabsf(v); }
__device__ __forceinline__ double dev_abs(double v) { return fabs(v); }

// A max for block reductions that skips NaN (fmax returns the number when
// one side is NaN), as the CPU's softmax and loss kernels take their max.
struct MaxSkippingNan {
  template <typename A>
  __device__ __forceinline__ A operator()(A a, A b) const {
    return fmax(a, b);
  }
};

// First thread of each grid-stride loop and its stride.
__device__ __forceinline__ int64_t global_thread() { return blockIdx.x * int64_t{blockDim.x} + threadIdx.x; }
__device__ __forceinline__ int64_t grid_threads() { return int64_t{gridDim.x} * blockDim.x; }

}  // namespace sy::cuda::reduce_dev

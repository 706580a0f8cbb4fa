// CUDA Softmax and LogSoftmax of float16 and bfloat16, computed in float
// in the CPU kernel's steps (reduction_softmax.cc): the row's max, NaN
// skipped; the sum of exp(x - max); then exp(x - max) / sum, or
// x - (log(sum) + max), rounded once. A NaN anywhere in a row makes the sum,
// and so the whole row, NaN, as on the CPU.
#include <cub/cub.cuh>

#include "devices/cuda/kernels/elementwise_device.cuh"
#include "devices/cuda/kernels/reduction_device.cuh"
#include "devices/cuda/kernels/softmax_launch.h"

namespace sy::cuda {
namespace {

using ew::float_to_half;
using ew::half_to_float;
using reduce_dev::blocks_for;
using reduce_dev::MaxSkippingNan;

// One block a row of [rows, d]: the softmax axis is the innermost.
template <typename T, int kBlock>
__global__ void __launch_bounds__(kBlock)
    softmax_rows_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t rows, int64_t d, bool log) {
  using BlockReduce = cub::BlockReduce<float, kBlock>;
  __shared__ typename BlockReduce::TempStorage tmp;
  __shared__ float s_max, s_sum;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * d;
    T* yr = y + r * d;
    float m = -INFINITY;
    for (int64_t j = threadIdx.x; j < d; j += kBlock) m = fmaxf(m, half_to_float(xr[j]));
    m = BlockReduce(tmp).Reduce(m, MaxSkippingNan{});
    if (threadIdx.x == 0) s_max = m;
    __syncthreads();
    m = s_max;
    float s = 0;
    for (int64_t j = threadIdx.x; j < d; j += kBlock) s += expf(half_to_float(xr[j]) - m);
    s = BlockReduce(tmp).Sum(s);
    if (threadIdx.x == 0) s_sum = s;
    __syncthreads();
    s = s_sum;
    const float scale = 1.f / s, shift = logf(s) + m;
    for (int64_t j = threadIdx.x; j < d; j += kBlock) {
      const float v = half_to_float(xr[j]);
      yr[j] = float_to_half<T>(log ? v - shift : expf(v - m) * scale);
    }
    __syncthreads();  // s_max, s_sum and tmp are rewritten for the next row
  }
}

// One thread a line of [outer, d, inner] along d, for inner > 1: adjacent
// threads read adjacent elements.
template <typename T>
__global__ void softmax_lines_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t outer, int64_t d,
                                     int64_t inner, bool log) {
  const int64_t n = outer * inner;
  for (int64_t i = reduce_dev::global_thread(); i < n; i += reduce_dev::grid_threads()) {
    const int64_t base = (i / inner) * d * inner + i % inner;
    float m = -INFINITY;
    for (int64_t k = 0; k < d; ++k) m = fmaxf(m, half_to_float(x[base + k * inner]));
    float s = 0;
    for (int64_t k = 0; k < d; ++k) s += expf(half_to_float(x[base + k * inner]) - m);
    const float scale = 1.f / s, shift = logf(s) + m;
    for (int64_t k = 0; k < d; ++k) {
      const float v = half_to_float(x[base + k * inner]);
      y[base + k * inner] = float_to_half<T>(log ? v - shift : expf(v - m) * scale);
    }
  }
}

}  // namespace

cudaError_t launch_softmax_16(int dtype, const void* x, void* y, int64_t outer, int64_t d, int64_t inner, bool log,
                              cudaStream_t stream) {
  if (outer <= 0 || d <= 0 || inner <= 0) return cudaSuccess;
  return ew::visit<kEwHalfFloats>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto* in = static_cast<const T*>(x);
    auto* out = static_cast<T*>(y);
    if (inner > 1) {
      softmax_lines_kernel<T><<<blocks_for(outer * inner, 256), 256, 0, stream>>>(in, out, outer, d, inner, log);
    } else if (d <= 1024) {  // short rows waste most of a large block
      softmax_rows_kernel<T, 64><<<blocks_for(outer, 1), 64, 0, stream>>>(in, out, outer, d, log);
    } else {
      softmax_rows_kernel<T, 256><<<blocks_for(outer, 1), 256, 0, stream>>>(in, out, outer, d, log);
    }
    return cudaGetLastError();
  });
}

}  // namespace sy::cuda

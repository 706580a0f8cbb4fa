// CUDA RotaryEmbedding: a thread an output element, computed in float
// (the CPU kernel's arithmetic), from the two elements of its pair.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "devices/cuda/kernels/attention_launch.h"
#include "devices/cuda/kernels/elementwise_device.cuh"

namespace sy::cuda {
namespace {

using ew::cvt;

template <typename T>
__global__ void rotary_kernel(const T* __restrict__ x, const T* __restrict__ cos, const T* __restrict__ sin,
                              const int64_t* __restrict__ ids, T* __restrict__ y, RotaryMeta m, int* bad) {
  const int64_t n = m.batch * m.heads * m.len * m.head, half = m.rotary_dim / 2;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t d = i % m.head, r = i / m.head;
    if (d >= m.rotary_dim) {
      y[i] = x[i];
      continue;
    }
    // The token (b, s) of this element, whichever the layout.
    const int64_t s = m.three_d ? (r / m.heads) % m.len : r % m.len;
    const int64_t b = r / (m.heads * m.len);
    int64_t row = b * m.len + s;
    if (ids) {
      row = ids[row];
      if (row < 0 || row >= m.positions) {
        *bad = 1;
        continue;
      }
    }
    const int64_t k = m.interleaved ? d / 2 : d % half;
    const bool second = m.interleaved ? (d & 1) != 0 : d >= half;
    const int64_t base = i - d, step = m.interleaved ? 2 : 1, other = m.interleaved ? 1 : half;
    const float x1 = cvt<float>(x[base + k * step]), x2 = cvt<float>(x[base + k * step + other]);
    const float c = cvt<float>(cos[row * half + k]), sn = cvt<float>(sin[row * half + k]);
    y[i] = cvt<T>(second ? sn * x1 + c * x2 : c * x1 - sn * x2);
  }
}

template <typename T>
cudaError_t run(const void* x, const void* cos, const void* sin, const int64_t* ids, void* y, const RotaryMeta& m,
                int* bad, cudaStream_t stream) {
  const int64_t n = m.batch * m.heads * m.len * m.head;
  if (n == 0) return cudaSuccess;
  constexpr unsigned kBlock = 256;
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  const unsigned grid = static_cast<unsigned>(blocks < 65535 * 16 ? blocks : 65535 * 16);
  rotary_kernel<T><<<grid, kBlock, 0, stream>>>(static_cast<const T*>(x), static_cast<const T*>(cos),
                                                 static_cast<const T*>(sin), ids, static_cast<T*>(y), m, bad);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_rotary_embedding(int dtype, const void* x, const void* cos, const void* sin, const int64_t* ids,
                                    void* y, const RotaryMeta& m, int* bad, cudaStream_t stream) {
  switch (dtype) {
    case 1: return run<float>(x, cos, sin, ids, y, m, bad, stream);
    case 10: return run<__half>(x, cos, sin, ids, y, m, bad, stream);
    case 16: return run<__nv_bfloat16>(x, cos, sin, ids, y, m, bad, stream);
    default: return cudaErrorNotSupported;
  }
}

}  // namespace sy::cuda

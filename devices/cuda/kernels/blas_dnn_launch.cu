// Helper kernels of the cuBLAS / cuDNN kernels: what the libraries cannot
// express (asymmetric padding, ceil_mode windows, cropped ConvTranspose
// outputs, Gemm's broadcast C) is prepared or finished here.
#include <cuda_runtime.h>

#include <cstdint>

#include "devices/cuda/kernels/blas_dnn_launch.h"

namespace sy::cuda {
namespace {

constexpr unsigned kBlock = 256;

unsigned blocks_for(int64_t n) {
  int64_t g = (n + kBlock - 1) / kBlock;
  if (g < 1) g = 1;
  if (g > 65535LL * 32) g = 65535LL * 32;  // grid-stride loops cover the rest
  return static_cast<unsigned>(g);
}

template <typename T>
__global__ void window_copy_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t n, WindowCopy m, T fill) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t rem = i, src = 0, mul = 1;
    bool inside = true;
    for (int d = m.rank - 1; d >= 0; --d) {
      const int64_t c = rem % m.out_dims[d] + m.offset[d];
      rem /= m.out_dims[d];
      inside = inside && c >= 0 && c < m.in_dims[d];
      src += c * mul;
      mul *= m.in_dims[d];
    }
    out[i] = inside ? in[src] : fill;
  }
}

template <typename T>
__global__ void broadcast_copy_kernel(const T* __restrict__ c, T* __restrict__ y, int64_t M, int64_t N, int64_t cs_m,
                                      int64_t cs_n) {
  const int64_t n = M * N;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t r = i / N, col = i % N;
    y[i] = c[r * cs_m + col * cs_n];
  }
}

template <typename T>
cudaError_t broadcast_copy(const void* c, void* y, int64_t M, int64_t N, int64_t cs_m, int64_t cs_n,
                           cudaStream_t stream) {
  broadcast_copy_kernel<T><<<blocks_for(M * N), kBlock, 0, stream>>>(static_cast<const T*>(c), static_cast<T*>(y), M,
                                                                      N, cs_m, cs_n);
  return cudaGetLastError();
}

}  // namespace

template <typename T>
cudaError_t launch_window_copy(const T* in, T* out, int64_t out_numel, const WindowCopy& m, T fill,
                               cudaStream_t stream) {
  if (out_numel <= 0) return cudaSuccess;
  if (m.rank < 1 || m.rank > kWindowMaxRank) return cudaErrorInvalidValue;
  for (int d = 0; d < m.rank; ++d)
    if (m.out_dims[d] <= 0) return cudaErrorInvalidValue;
  window_copy_kernel<T><<<blocks_for(out_numel), kBlock, 0, stream>>>(in, out, out_numel, m, fill);
  return cudaGetLastError();
}

cudaError_t launch_broadcast_copy(const void* c, void* y, size_t elem_size, int64_t M, int64_t N, int64_t cs_m,
                                  int64_t cs_n, cudaStream_t stream) {
  if (M <= 0 || N <= 0) return cudaSuccess;
  switch (elem_size) {
    case 2: return broadcast_copy<uint16_t>(c, y, M, N, cs_m, cs_n, stream);
    case 4: return broadcast_copy<uint32_t>(c, y, M, N, cs_m, cs_n, stream);
    case 8: return broadcast_copy<uint64_t>(c, y, M, N, cs_m, cs_n, stream);
    default: return cudaErrorInvalidValue;
  }
}

template cudaError_t launch_window_copy<float>(const float*, float*, int64_t, const WindowCopy&, float, cudaStream_t);
template cudaError_t launch_window_copy<double>(const double*, double*, int64_t, const WindowCopy&, double,
                                                cudaStream_t);
template cudaError_t launch_window_copy<uint16_t>(const uint16_t*, uint16_t*, int64_t, const WindowCopy&, uint16_t,
                                                  cudaStream_t);

}  // namespace sy::cuda

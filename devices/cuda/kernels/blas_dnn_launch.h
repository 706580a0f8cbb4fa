// Launchers of the small helper kernels that the cuBLAS / cuDNN kernels
// (blas_dnn_kernels.cc, dnn_*.cc) need around the library calls: a windowed
// N-d copy (pad or crop with a fill value, float and double) and Gemm's
// broadcast of C. Each launcher only enqueues on `stream` and returns the
// launch error; it never synchronises.
// Thread-safety: all launchers are reentrant.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace sy::cuda {

constexpr int kWindowMaxRank = 6;

// out[c] = in[c + offset] where every coordinate of c + offset lies inside
// in_dims, else `fill`. Padding uses negative offsets, cropping positive ones.
struct WindowCopy {
  int rank = 0;
  int64_t out_dims[kWindowMaxRank] = {};
  int64_t in_dims[kWindowMaxRank] = {};
  int64_t offset[kWindowMaxRank] = {};
};

template <typename T>
cudaError_t launch_window_copy(const T* in, T* out, int64_t out_numel, const WindowCopy& m, T fill,
                               cudaStream_t stream);

// y[i, j] = c[i * cs_m + j * cs_n] for y of [M, N] (row-major); the
// strides are 0 on broadcast axes. A copy of elements of `elem_size`
// bytes (2, 4 or 8), whatever their type; cudaErrorInvalidValue otherwise.
cudaError_t launch_broadcast_copy(const void* c, void* y, size_t elem_size, int64_t M, int64_t N, int64_t cs_m,
                                  int64_t cs_n, cudaStream_t stream);

}  // namespace sy::cuda

// Launcher for the CUDA pooling kernel that takes every ONNX window
// (pool_launch.cu): MaxPool with Indices, dilations, ceil_mode and
// storage_order, AveragePool with any padding, LpPool, and the types cuDNN
// does not pool (bfloat16, int8, uint8). cuDNN pools the common windows
// (dnn_kernels.cc). Plain C++ so that both nvcc and the C++20 kernel files
// can include it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace sy::cuda {

enum class PoolOp : int { kMax, kAvg, kLp };

// The window in the CPU kernel's canonical 3-D form (nn::Window: spatial
// dims right-aligned, 1 in front), over `planes` = N * C dense planes.
struct PoolMeta {
  int64_t planes = 0;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1}, stride[3] = {1, 1, 1}, dil[3] = {1, 1, 1},
          pad_b[3] = {0, 0, 0}, pad_e[3] = {0, 0, 0};
  PoolOp op = PoolOp::kMax;
  bool count_include_pad = false;  // AveragePool
  bool column_major = false;       // MaxPool's storage_order 1, for Indices
  double p = 2;                    // LpPool
};

// y (and, for MaxPool when `indices` is not null, the ONNX Indices: flat
// offsets into x) for x of ONNX type `dtype`: float, double, float16 and
// bfloat16 for every op, int8 and uint8 for MaxPool; cudaErrorNotSupported
// otherwise. Follows the CPU kernel's arithmetic (nn_pool.cc): float sums
// and maxima (double for double), NaN winning a max, the first maximum's
// index, a window without input giving -inf (the lowest integer), and
// count_include_pad counting positions up to the end of the padding.
cudaError_t launch_window_pool(int dtype, const void* x, void* y, int64_t* indices, const PoolMeta& m,
                               cudaStream_t stream);

}  // namespace sy::cuda

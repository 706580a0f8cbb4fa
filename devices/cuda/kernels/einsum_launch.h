// Launcher of the CUDA Einsum kernel (einsum_launch.cu): every output
// element sums the product of its inputs' elements over the contracted
// labels, read through per-label strides (einsum_plan.h). Element types
// are ONNX codes (elementwise_launch.h's ew_type). The launcher only
// enqueues on `stream` and returns the launch error; it never
// synchronises. Reentrant.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "devices/cuda/kernels/elementwise_launch.h"

namespace sy::cuda {

constexpr int kEinsumMaxInputs = 4;
// Output and contracted labels together (an einsum's, or a copy's rank).
constexpr int kEinsumMaxLabels = 16;
constexpr uint32_t kEinsumTypes = kEwFloats | ew_bit(ew_type::kInt32) | ew_bit(ew_type::kInt64);

struct EinsumMeta {
  int32_t nin = 0, out_rank = 0, sum_rank = 0;
  int64_t sum_n = 1;  // the product of sum_size
  int64_t out_size[kEinsumMaxLabels] = {};
  int64_t sum_size[kEinsumMaxLabels] = {};
  int64_t out_stride[kEinsumMaxInputs][kEinsumMaxLabels] = {};
  int64_t sum_stride[kEinsumMaxInputs][kEinsumMaxLabels] = {};
  const void* in[kEinsumMaxInputs] = {};
};

// out[o] for o in [0, n): float types accumulate in float (double for
// double) and round once; integers wrap in 64 bits, as on the CPU.
cudaError_t launch_einsum(int type, const EinsumMeta& m, void* out, int64_t n, cudaStream_t stream);

// Det: out[b] = the determinant of the m x m matrix b of x (a float
// type), by det_lu in double, one thread per matrix; `work` holds
// batch * m * m doubles.
cudaError_t launch_det(int type, const void* x, void* out, double* work, int64_t batch, int64_t m, cudaStream_t stream);

}  // namespace sy::cuda

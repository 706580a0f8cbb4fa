// Launcher for the CUDA Softmax and LogSoftmax of 16-bit floats
// (softmax_launch.cu); cuDNN computes float and double. Plain C++ so that
// both nvcc and the C++20 kernel files can include it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace sy::cuda {

// y = softmax (or log-softmax when `log`) of x along the middle axis of
// [outer, d, inner], for float16 (dtype 10) or bfloat16 (16) tensors,
// computed in float; cudaErrorNotSupported for another dtype.
cudaError_t launch_softmax_16(int dtype, const void* x, void* y, int64_t outer, int64_t d, int64_t inner, bool log,
                              cudaStream_t stream);

}  // namespace sy::cuda

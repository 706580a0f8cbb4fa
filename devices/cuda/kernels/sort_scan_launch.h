// Launchers for the CUDA TopK and CumSum kernels (sort_scan_launch.cu).
// Plain C++ so that both nvcc and the C++20 kernel files can include it.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace sy::cuda {

// x viewed as [outer, d, inner]; TopK works on each of the outer * inner
// lines of length d, writing the first k of each to [outer, k, inner].
struct TopKMeta {
  int64_t outer = 1;
  int64_t d = 1;
  int64_t inner = 1;
  int64_t k = 0;
  bool largest = true;
};

// Workspace TopK needs (sort keys, indices, segment offsets, CUB scratch).
template <typename T>
cudaError_t topk_workspace_bytes(const TopKMeta& m, size_t* bytes);

// `indices` may be null when the model omits that output.
template <typename T>
cudaError_t launch_topk(const T* x, T* values, int64_t* indices, const TopKMeta& m, void* workspace,
                        size_t workspace_bytes, cudaStream_t stream);

// CumSum along the middle axis of [outer, d, inner].
struct ScanMeta {
  int64_t outer = 1;
  int64_t d = 1;
  int64_t inner = 1;
  bool exclusive = false;
  bool reverse = false;
};

template <typename T>
cudaError_t launch_cumsum(const T* x, T* y, const ScanMeta& m, cudaStream_t stream);

}  // namespace sy::cuda

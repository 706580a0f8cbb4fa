// Launchers for the CUDA Reduce* and ArgMax/ArgMin kernels (reduction_launch.cu).
// Plain C++ so that both nvcc and the C++20 kernel files can include it.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace sy::cuda {

enum class ReduceOp : int { kSum, kMean, kMax, kMin, kProd, kL1, kL2, kLogSum, kLogSumExp, kSumSquare };

// Merged groups of one reduction (see reduce_detail::make_reduce_plan): an
// output index decomposes row-major over the kept groups into an input
// offset, and a reduced index over the reduced groups. Passed by value.
constexpr int kMaxReduceGroups = 8;
struct ReduceGroups {
  int num_kept = 0;
  int num_red = 0;
  int64_t kept_size[kMaxReduceGroups] = {};
  int64_t kept_stride[kMaxReduceGroups] = {};
  int64_t red_size[kMaxReduceGroups] = {};
  int64_t red_stride[kMaxReduceGroups] = {};
  int64_t out_numel = 1;
  int64_t red_numel = 1;
  bool inner_kept = false;  // the stride-1 group is kept: adjacent outputs read adjacent inputs
  // Set by plan_reduce_launch().
  bool thread_per_output = false;
  int64_t splits = 1;  // blocks per output; > 1 reduces in two passes through the workspace
  int64_t chunk = 0;   // reduced elements per split
};

// Largest per-partial accumulator of any ReduceOp and element type.
constexpr size_t kReducePartialBytes = 16;
constexpr int kReduceBlock = 256;

// Chooses how to spread a reduction over the GPU: one thread per output when
// each output is cheap or neighbouring outputs read neighbouring inputs, else
// a block per output, split into several blocks when there are too few
// outputs to fill the device.
inline void plan_reduce_launch(ReduceGroups& g) {
  const int64_t n = g.red_numel, out = g.out_numel;
  g.thread_per_output = n <= 32 || (g.inner_kept && out >= 8192);
  g.splits = 1;
  g.chunk = n;
  if (g.thread_per_output || out >= 1024) return;
  constexpr int64_t kPerBlock = int64_t{kReduceBlock} * 16;  // minimum useful work per block
  int64_t want = (1024 + out - 1) / out;
  int64_t useful = (n + kPerBlock - 1) / kPerBlock;
  int64_t s = want < useful ? want : useful;
  if (s <= 1) return;
  g.chunk = (n + s - 1) / s;
  g.splits = (n + g.chunk - 1) / g.chunk;
}

inline size_t reduce_workspace_bytes(const ReduceGroups& g) {
  return g.splits > 1 ? static_cast<size_t>(g.out_numel * g.splits) * kReducePartialBytes : 0;
}

// y[out_numel] = op over the reduced elements of x. `workspace` holds
// reduce_workspace_bytes(g) bytes (may be null when that is 0).
template <typename T>
cudaError_t launch_reduce(ReduceOp op, const T* x, T* y, const ReduceGroups& g, void* workspace,
                          cudaStream_t stream);

// ArgMax / ArgMin over the middle axis of x viewed as [outer, d, inner].
struct ArgMeta {
  int64_t outer = 1;
  int64_t d = 1;
  int64_t inner = 1;
  bool is_max = true;
  bool select_last = false;
};

template <typename T>
cudaError_t launch_arg_reduce(const T* x, int64_t* y, const ArgMeta& m, cudaStream_t stream);

// The same for float16 (dtype 10) or bfloat16 (16) x and y, computed in
// float; cudaErrorNotSupported for another dtype.
cudaError_t launch_reduce_16(int dtype, ReduceOp op, const void* x, void* y, const ReduceGroups& g, void* workspace,
                             cudaStream_t stream);
cudaError_t launch_arg_reduce_16(int dtype, const void* x, int64_t* y, const ArgMeta& m, cudaStream_t stream);

}  // namespace sy::cuda

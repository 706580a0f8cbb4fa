// Launchers of the CUDA kernels whose output size depends on the data
// (select_launch.cu). Such a kernel runs in two launches
// (KernelContext::resume_after): the first finds the size, which the kernel
// copies to the host; the second, once that copy has landed, fills the
// output it then allocates. The launchers only enqueue on `stream` and
// return the launch error; they never synchronise. Reentrant.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace sy::cuda {

// Elements one NonZero block takes at a time; the first launch leaves one
// int64 per chunk.
constexpr int64_t kNonZeroChunk = 2048;
// Ranks NonZero handles on the device; higher ones run on the CPU.
constexpr int kNonZeroMaxRank = 8;

// x: n elements of `unit` bytes (1, 2, 4 or 8), non-zero where a bit of
// `mask` is set (a float's mask leaves out the sign, so -0 counts as zero
// and NaN does not), with dims[0, rank) row-major (a scalar as rank 1,
// dims {1}).
struct NonZeroMeta {
  int unit = 1;
  uint64_t mask = ~uint64_t{0};
  int64_t n = 0, chunks = 0;  // chunks = ceil(n / kNonZeroChunk), at least 1
  int rank = 1;
  int64_t dims[kNonZeroMaxRank] = {};
};

// First launch: offsets[c] = the non-zero elements before chunk c, for
// m.chunks chunks, and *total = all of them.
cudaError_t launch_nonzero_count(const NonZeroMeta& m, const void* x, int64_t* offsets, int64_t* total,
                                 cudaStream_t stream);
// Second: y [rank, nnz] = the coordinates of the non-zero elements in
// row-major order, from the first launch's offsets.
cudaError_t launch_nonzero_write(const NonZeroMeta& m, const void* x, const int64_t* offsets, int64_t nnz, int64_t* y,
                                 cudaStream_t stream);

}  // namespace sy::cuda

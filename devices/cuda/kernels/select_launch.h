// Launchers of the CUDA kernels whose output size depends on the data
// (select_launch.cu): NonZero and Unique. Such a kernel runs in two launches
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

// counts[0, n) become exclusive offsets in place and *total their sum, in
// one block: the second half of launch_nonzero_count, for other kernels
// that count per segment (NonMaxSuppression per class).
cudaError_t launch_count_scan(int64_t* counts, int64_t n, int64_t* total, cudaStream_t stream);

// Elements a Unique slice may have on the device: the first launch sorts
// once per element of a slice, so longer slices run on the CPU.
constexpr int64_t kUniqueMaxSlice = 64;

// Unique of x's n items: slices x[o, item, i] over o < outer and i < inner
// (x as [outer, n, inner]), or, without an axis, its elements (outer =
// inner = 1). Slices compare element by element in row-major order, and
// elements as the CPU kernel compares them: every NaN equals every other,
// -0 equals +0.
struct UniqueMeta {
  int unit = 1;        // bytes per element: 1, 2, 4 or 8
  int kind = 0;        // 0: unsigned or bool, 1: signed integer, 2: IEEE float
  uint64_t inf = 0;    // kind 2: +inf's bits
  int64_t n = 0;       // 1 to INT_MAX (CUB's sort counts in int)
  int64_t chunks = 0;  // ceil(n / kNonZeroChunk)
  int64_t outer = 1, inner = 1;  // outer * inner <= kUniqueMaxSlice
};

// Workspace bytes of launch_unique_group for m.
cudaError_t unique_group_workspace_bytes(const UniqueMeta& m, size_t* bytes);
// First launch: sorted_pos [n] = the items sorted stably by value, so
// equal items are together in the order they occur; heads [n] = 1 where a
// sorted item starts a group of equal ones; offsets [m.chunks] and *total
// (the number of groups) as launch_nonzero_count leaves them over heads.
cudaError_t launch_unique_group(const UniqueMeta& m, const void* x, void* workspace, size_t workspace_bytes,
                                int64_t* sorted_pos, uint8_t* heads, int64_t* offsets, int64_t* total,
                                cudaStream_t stream);

// Workspace bytes of launch_unique_write for u groups.
cudaError_t unique_write_workspace_bytes(int64_t u, bool sorted, size_t* bytes);
// Second launch, for the u groups the first found: y [outer, u, inner] =
// one item of each group (its first occurrence), in value order if
// `sorted`, else in order of first occurrence; indices [u] = that
// occurrence's position; inverse [n] = each item's group in y; counts [u]
// = the groups' sizes. indices, inverse and counts may be null.
cudaError_t launch_unique_write(const UniqueMeta& m, const void* x, const int64_t* sorted_pos, const uint8_t* heads,
                                const int64_t* offsets, int64_t u, bool sorted, void* workspace, size_t workspace_bytes,
                                void* y, int64_t* indices, int64_t* inverse, int64_t* counts, cudaStream_t stream);

}  // namespace sy::cuda

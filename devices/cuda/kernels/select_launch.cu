// CUDA NonZero in two launches. The first counts each chunk's non-zero
// elements (coalesced reads, a block reduction) and scans the counts into
// chunk offsets in one block, leaving the total for the host. The second
// gives each thread of a chunk's block kItems consecutive elements, so a
// block scan of its hits puts every hit at its row-major place after the
// chunk's offset, and writes its coordinates there. No atomics: the
// output is the CPU's, element for element.
#include <cub/cub.cuh>

#include "devices/cuda/kernels/elementwise_device.cuh"
#include "devices/cuda/kernels/select_launch.h"

namespace sy::cuda {
namespace {

using ew::grid_for;
using ew::kBlock;
constexpr int kItems = static_cast<int>(kNonZeroChunk / kBlock);
static_assert(int64_t{kItems} * kBlock == kNonZeroChunk, "a chunk is kItems elements per thread");

template <typename U>
__global__ void __launch_bounds__(kBlock)
    nonzero_count_kernel(const U* __restrict__ x, U mask, int64_t n, int64_t chunks, int64_t* __restrict__ counts) {
  using BlockReduce = cub::BlockReduce<int64_t, kBlock>;
  __shared__ typename BlockReduce::TempStorage tmp;
  for (int64_t c = blockIdx.x; c < chunks; c += gridDim.x) {
    int64_t hits = 0;
    for (int j = 0; j < kItems; ++j) {
      const int64_t i = c * kNonZeroChunk + int64_t{j} * kBlock + threadIdx.x;
      hits += i < n && (x[i] & mask) != 0;
    }
    const int64_t sum = BlockReduce(tmp).Sum(hits);
    if (threadIdx.x == 0) counts[c] = sum;
    __syncthreads();  // tmp is reused by the next chunk
  }
}

// Hands each tile of the scan the sum of the tiles before it. Called by
// the first warp; thread 0's copy ends with the grand total.
struct RunningTotal {
  int64_t total;
  __device__ int64_t operator()(int64_t tile_sum) {
    const int64_t before = total;
    total += tile_sum;
    return before;
  }
};

// One block: counts[0, chunks) become exclusive offsets in place.
__global__ void __launch_bounds__(kBlock)
    nonzero_scan_kernel(int64_t* __restrict__ counts, int64_t chunks, int64_t* __restrict__ total) {
  using BlockScan = cub::BlockScan<int64_t, kBlock>;
  __shared__ typename BlockScan::TempStorage tmp;
  RunningTotal prefix{0};
  for (int64_t t = 0; t < chunks; t += kBlock) {
    const int64_t c = t + threadIdx.x;
    int64_t v[1] = {c < chunks ? counts[c] : 0};
    BlockScan(tmp).ExclusiveSum(v, v, prefix);
    __syncthreads();  // tmp is reused by the next tile
    if (c < chunks) counts[c] = v[0];
  }
  if (threadIdx.x == 0) *total = prefix.total;
}

// The scan's prefix for one chunk: its offset, whatever the chunk's sum.
struct ChunkOffset {
  int64_t offset;
  __device__ int64_t operator()(int64_t) { return offset; }
};

template <typename U>
__global__ void __launch_bounds__(kBlock)
    nonzero_write_kernel(const U* __restrict__ x, U mask, NonZeroMeta m, const int64_t* __restrict__ offsets,
                         int64_t nnz, int64_t* __restrict__ y) {
  using BlockScan = cub::BlockScan<int64_t, kBlock>;
  __shared__ typename BlockScan::TempStorage tmp;
  for (int64_t c = blockIdx.x; c < m.chunks; c += gridDim.x) {
    const int64_t first = c * kNonZeroChunk + int64_t{threadIdx.x} * kItems;
    int64_t pos[kItems];
    unsigned hits = 0;
    for (int j = 0; j < kItems; ++j) {
      const bool hit = first + j < m.n && (x[first + j] & mask) != 0;
      pos[j] = hit;
      hits |= unsigned{hit} << j;
    }
    ChunkOffset prefix{offsets[c]};
    BlockScan(tmp).ExclusiveSum(pos, pos, prefix);
    __syncthreads();  // tmp is reused by the next chunk
    for (int j = 0; j < kItems; ++j) {
      // The bound only matters if the counts were wrong; it keeps the
      // writes inside y regardless.
      if (!(hits >> j & 1) || pos[j] >= nnz) continue;
      int64_t rest = first + j;
      for (int d = m.rank - 1; d >= 0; --d) {
        const int64_t q = rest / m.dims[d];
        y[d * nnz + pos[j]] = rest - q * m.dims[d];
        rest = q;
      }
    }
  }
}

// Calls f(Tag<U>{}) with the unsigned type of m.unit bytes.
template <typename F>
cudaError_t by_width(int unit, F&& f) {
  switch (unit) {
    case 1:
      return f(ew::Tag<uint8_t>{});
    case 2:
      return f(ew::Tag<uint16_t>{});
    case 4:
      return f(ew::Tag<uint32_t>{});
    case 8:
      return f(ew::Tag<uint64_t>{});
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace

cudaError_t launch_nonzero_count(const NonZeroMeta& m, const void* x, int64_t* offsets, int64_t* total,
                                 cudaStream_t stream) {
  if (m.n <= 0 || m.chunks < 1) return cudaMemsetAsync(total, 0, sizeof(int64_t), stream);
  cudaError_t e = by_width(m.unit, [&](auto tag) {
    using U = typename decltype(tag)::type;
    nonzero_count_kernel<U><<<grid_for(m.chunks * kBlock), kBlock, 0, stream>>>(
        static_cast<const U*>(x), static_cast<U>(m.mask), m.n, m.chunks, offsets);
    return cudaGetLastError();
  });
  if (e != cudaSuccess) return e;
  nonzero_scan_kernel<<<1, kBlock, 0, stream>>>(offsets, m.chunks, total);
  return cudaGetLastError();
}

cudaError_t launch_nonzero_write(const NonZeroMeta& m, const void* x, const int64_t* offsets, int64_t nnz, int64_t* y,
                                 cudaStream_t stream) {
  if (nnz <= 0 || m.n <= 0) return cudaSuccess;
  if (m.rank < 1 || m.rank > kNonZeroMaxRank) return cudaErrorInvalidValue;
  return by_width(m.unit, [&](auto tag) {
    using U = typename decltype(tag)::type;
    nonzero_write_kernel<U><<<grid_for(m.chunks * kBlock), kBlock, 0, stream>>>(
        static_cast<const U*>(x), static_cast<U>(m.mask), m, offsets, nnz, y);
    return cudaGetLastError();
  });
}

}  // namespace sy::cuda

// CUDA TopK (CUB segmented radix sort) and CumSum (CUB block scan).
#include <cub/cub.cuh>
#include <cuda/std/limits>
#include <cuda/std/type_traits>

#include "devices/cuda/kernels/elementwise_device.cuh"
#include "devices/cuda/kernels/reduction_device.cuh"
#include "devices/cuda/kernels/sort_scan_launch.h"

namespace sy::cuda {
namespace {

using namespace reduce_dev;

using ew::align_up;

// ------------------------------------------------------------------ TopK
//
// Each line is copied (axis innermost) into sort keys with its positions as
// values, sorted with DeviceSegmentedRadixSort, and the first k positions of
// each line gathered back. DeviceSegmentedSort is not used: with many
// segments it copies group sizes to the host and synchronises the stream.
//
// Radix sort is stable, also in descending order, so equal values keep the
// lower index first, as ONNX requires. Keys are canonicalised so that the
// bitwise order is the CPU kernel's: every NaN becomes +NaN (above +inf, so
// first when largest and last otherwise) and -0.0 becomes +0.0 (equal to
// it). Output values are read back from x, so they keep their sign and NaN
// payload.

template <typename T>
__device__ __forceinline__ T sort_key(T v) {
  if constexpr (::cuda::std::is_same_v<T, float>) {
    if (v != v) return __int_as_float(0x7fc00000);
    if (v == 0.0f) return 0.0f;
  } else if constexpr (::cuda::std::is_same_v<T, double>) {
    if (v != v) return __longlong_as_double(0x7ff8000000000000LL);
    if (v == 0.0) return 0.0;
  }
  return v;
}

template <typename T>
__global__ void topk_prepare_kernel(const T* __restrict__ x, T* __restrict__ keys, int64_t* __restrict__ pos,
                                    int* __restrict__ offsets, TopKMeta m) {
  const int64_t rows = m.outer * m.inner, n = rows * m.d;
  const int64_t total = n > rows + 1 ? n : rows + 1;
  for (int64_t e = global_thread(); e < total; e += grid_threads()) {
    if (e < n) {
      const int64_t row = e / m.d, k = e % m.d;
      const int64_t o = row / m.inner, i = row % m.inner;
      keys[e] = sort_key(x[(o * m.d + k) * m.inner + i]);
      pos[e] = k;
    }
    if (e <= rows) offsets[e] = static_cast<int>(e * m.d);
  }
}

template <typename T>
__global__ void topk_gather_kernel(const T* __restrict__ x, const int64_t* __restrict__ sorted_pos,
                                   T* __restrict__ values, int64_t* __restrict__ indices, TopKMeta m) {
  const int64_t rows = m.outer * m.inner, n = rows * m.k;
  for (int64_t e = global_thread(); e < n; e += grid_threads()) {
    // e walks the output row-major: [outer, k, inner].
    const int64_t i = e % m.inner, j = (e / m.inner) % m.k, o = e / (m.inner * m.k);
    const int64_t src = sorted_pos[(o * m.inner + i) * m.d + j];
    values[e] = x[(o * m.d + src) * m.inner + i];
    if (indices) indices[e] = src;
  }
}

template <typename T>
cudaError_t segmented_sort(void* temp, size_t& temp_bytes, const T* keys_in, T* keys_out, const int64_t* pos_in,
                           int64_t* pos_out, int n, int rows, const int* offsets, bool descending,
                           cudaStream_t stream) {
  constexpr int kBits = static_cast<int>(sizeof(T) * 8);
  const int* ends = offsets ? offsets + 1 : nullptr;
  if (descending)
    return cub::DeviceSegmentedRadixSort::SortPairsDescending(temp, temp_bytes, keys_in, keys_out, pos_in, pos_out, n,
                                                              rows, offsets, ends, 0, kBits, stream);
  return cub::DeviceSegmentedRadixSort::SortPairs(temp, temp_bytes, keys_in, keys_out, pos_in, pos_out, n, rows,
                                                  offsets, ends, 0, kBits, stream);
}

struct TopKLayout {
  size_t keys_in = 0, keys_out = 0, pos_in = 0, pos_out = 0, offsets = 0, temp = 0;
  size_t temp_bytes = 0;
  size_t total = 0;
};

template <typename T>
cudaError_t topk_layout(const TopKMeta& m, TopKLayout* out) {
  const int64_t rows = m.outer * m.inner, n = rows * m.d;
  if (n > ::cuda::std::numeric_limits<int>::max()) return cudaErrorInvalidValue;  // CUB's segmented sort counts in int
  TopKLayout L;
  size_t at = 0;
  L.keys_in = at;
  at += align_up(static_cast<size_t>(n) * sizeof(T));
  L.keys_out = at;
  at += align_up(static_cast<size_t>(n) * sizeof(T));
  L.pos_in = at;
  at += align_up(static_cast<size_t>(n) * sizeof(int64_t));
  L.pos_out = at;
  at += align_up(static_cast<size_t>(n) * sizeof(int64_t));
  L.offsets = at;
  at += align_up(static_cast<size_t>(rows + 1) * sizeof(int));
  L.temp = at;
  cudaError_t e = segmented_sort<T>(nullptr, L.temp_bytes, nullptr, nullptr, nullptr, nullptr, static_cast<int>(n),
                                    static_cast<int>(rows), nullptr, m.largest, nullptr);
  if (e != cudaSuccess) return e;
  L.total = at + align_up(L.temp_bytes);
  *out = L;
  return cudaSuccess;
}

// ---------------------------------------------------------------- CumSum

constexpr int kScanBlock = 256;
constexpr int kScanItems = 4;

template <typename T>
struct RunningPrefix {
  T total;
  // Called by the first warp with the tile's sum; returns the tile's prefix.
  __device__ T operator()(T tile_sum) {
    T old = total;
    total += tile_sum;
    return old;
  }
};

// One line per thread, walked sequentially: adjacent threads read adjacent
// elements when inner > 1.
template <typename T>
__global__ void cumsum_thread_kernel(const T* __restrict__ x, T* __restrict__ y, ScanMeta m) {
  const int64_t lines = m.outer * m.inner;
  for (int64_t t = global_thread(); t < lines; t += grid_threads()) {
    const int64_t base = (t / m.inner) * m.d * m.inner + t % m.inner;
    T acc = T(0);
    for (int64_t s = 0; s < m.d; ++s) {
      const int64_t off = base + (m.reverse ? m.d - 1 - s : s) * m.inner;
      const T v = x[off];
      if (m.exclusive) {
        y[off] = acc;
        acc += v;
      } else {
        acc += v;
        y[off] = acc;
      }
    }
  }
}

// One line per block, scanned in tiles of kScanBlock * kScanItems with the
// running total carried from tile to tile.
template <typename T>
__global__ void __launch_bounds__(kScanBlock) cumsum_block_kernel(const T* __restrict__ x, T* __restrict__ y,
                                                                  ScanMeta m) {
  using BlockScan = cub::BlockScan<T, kScanBlock>;
  __shared__ typename BlockScan::TempStorage tmp;
  const int64_t lines = m.outer * m.inner;
  constexpr int64_t kTile = int64_t{kScanBlock} * kScanItems;
  for (int64_t t = blockIdx.x; t < lines; t += gridDim.x) {
    const int64_t base = (t / m.inner) * m.d * m.inner + t % m.inner;
    RunningPrefix<T> prefix{T(0)};
    for (int64_t tile = 0; tile < m.d; tile += kTile) {
      T items[kScanItems];
      int64_t off[kScanItems];
#pragma unroll
      for (int j = 0; j < kScanItems; ++j) {
        const int64_t p = tile + threadIdx.x * int64_t{kScanItems} + j;  // position in scan order
        off[j] = p < m.d ? base + (m.reverse ? m.d - 1 - p : p) * m.inner : -1;
        items[j] = off[j] >= 0 ? x[off[j]] : T(0);
      }
      if (m.exclusive) BlockScan(tmp).ExclusiveSum(items, items, prefix);
      else BlockScan(tmp).InclusiveSum(items, items, prefix);
      __syncthreads();  // tmp is reused by the next tile
#pragma unroll
      for (int j = 0; j < kScanItems; ++j)
        if (off[j] >= 0) y[off[j]] = items[j];
    }
  }
}

}  // namespace

template <typename T>
cudaError_t topk_workspace_bytes(const TopKMeta& m, size_t* bytes) {
  TopKLayout L;
  cudaError_t e = topk_layout<T>(m, &L);
  if (e == cudaSuccess) *bytes = L.total;
  return e;
}

template <typename T>
cudaError_t launch_topk(const T* x, T* values, int64_t* indices, const TopKMeta& m, void* workspace,
                        size_t workspace_bytes, cudaStream_t stream) {
  const int64_t rows = m.outer * m.inner, n = rows * m.d;
  if (rows * m.k <= 0) return cudaSuccess;
  TopKLayout L;
  cudaError_t e = topk_layout<T>(m, &L);
  if (e != cudaSuccess) return e;
  if (workspace == nullptr || workspace_bytes < L.total) return cudaErrorInvalidValue;
  char* ws = static_cast<char*>(workspace);
  T* keys_in = reinterpret_cast<T*>(ws + L.keys_in);
  T* keys_out = reinterpret_cast<T*>(ws + L.keys_out);
  int64_t* pos_in = reinterpret_cast<int64_t*>(ws + L.pos_in);
  int64_t* pos_out = reinterpret_cast<int64_t*>(ws + L.pos_out);
  int* offsets = reinterpret_cast<int*>(ws + L.offsets);
  topk_prepare_kernel<T><<<blocks_for(n > rows + 1 ? n : rows + 1, 256), 256, 0, stream>>>(x, keys_in, pos_in,
                                                                                         offsets, m);
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  size_t temp_bytes = L.temp_bytes;
  e = segmented_sort<T>(ws + L.temp, temp_bytes, keys_in, keys_out, pos_in, pos_out, static_cast<int>(n),
                        static_cast<int>(rows), offsets, m.largest, stream);
  if (e != cudaSuccess) return e;
  topk_gather_kernel<T><<<blocks_for(rows * m.k, 256), 256, 0, stream>>>(x, pos_out, values, indices, m);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_cumsum(const T* x, T* y, const ScanMeta& m, cudaStream_t stream) {
  const int64_t lines = m.outer * m.inner;
  if (lines <= 0 || m.d <= 0) return cudaSuccess;
  // A block per line pays off for long lines, unless there are enough lines
  // that one thread each (coalesced across the inner axis) fills the GPU.
  const bool block_per_line = m.d > 64 && (m.inner == 1 || lines < 8192);
  if (block_per_line) {
    cumsum_block_kernel<T><<<blocks_for(lines, 1), kScanBlock, 0, stream>>>(x, y, m);
  } else {
    cumsum_thread_kernel<T><<<blocks_for(lines, 256), 256, 0, stream>>>(x, y, m);
  }
  return cudaGetLastError();
}

#define SY_INSTANTIATE_SORT_SCAN(T)                                                                      \
  template cudaError_t topk_workspace_bytes<T>(const TopKMeta&, size_t*);                                \
  template cudaError_t launch_topk<T>(const T*, T*, int64_t*, const TopKMeta&, void*, size_t, cudaStream_t); \
  template cudaError_t launch_cumsum<T>(const T*, T*, const ScanMeta&, cudaStream_t);
SY_INSTANTIATE_SORT_SCAN(float)
SY_INSTANTIATE_SORT_SCAN(double)
SY_INSTANTIATE_SORT_SCAN(int32_t)
SY_INSTANTIATE_SORT_SCAN(int64_t)
#undef SY_INSTANTIATE_SORT_SCAN

}  // namespace sy::cuda

// CUDA NonZero and Unique, each in two launches.
//
// NonZero: the first launch counts each chunk's non-zero elements
// (coalesced reads, a block reduction) and scans the counts into chunk
// offsets in one block, leaving the total for the host. The second gives
// each thread of a chunk's block kItems consecutive elements, so a block
// scan of its hits puts every hit at its row-major place after the chunk's
// offset, and writes its coordinates there. No atomics: the output is the
// CPU's, element for element.
//
// Unique sorts the items by value (CUB's radix sort, which is stable) and
// marks where each group of equal items starts; counting those marks is
// NonZero's first launch, and finding them NonZero's second. A group's
// first sorted position is its first occurrence. Slices (the axis form)
// sort once per element, last element first: each stable pass keeps the
// order of the later elements among equal earlier ones, so the result is
// the CPU's lexicographic order. For sorted=0 the groups are sorted once
// more, by first occurrence.
#include <cub/cub.cuh>

#include <utility>

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
    count_scan_kernel(int64_t* __restrict__ counts, int64_t chunks, int64_t* __restrict__ total) {
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

// ------------------------------------------------------------------ Unique

using ew::first_index;
using ew::grid_stride;

using ew::align_up;
using ew::at;
// A sort key whose unsigned order is the CPU's value order: every NaN one
// +NaN above +inf, -0 as +0, then a float's or a signed integer's bits
// flipped into unsigned order.
template <typename U>
__device__ __forceinline__ U unique_key(U b, int kind, U inf) {
  constexpr U kSign = U(U(1) << (sizeof(U) * 8 - 1));
  if (kind == 2) {
    const U mag = U(b & U(~kSign));
    b = mag > inf ? U(inf + 1) : mag == 0 ? U(0) : b;
    return (b & kSign) ? U(~b) : U(b | kSign);
  }
  return kind == 1 ? U(b ^ kSign) : b;
}

__global__ void unique_init_kernel(int64_t n, int64_t* __restrict__ pos, int* __restrict__ segment) {
  for (int64_t i = first_index(); i < n; i += grid_stride()) pos[i] = i;
  if (first_index() == 0) {
    segment[0] = 0;
    segment[1] = static_cast<int>(n);
  }
}

// Element j (row-major over [outer, inner]) of item `item`.
__device__ __forceinline__ int64_t slice_at(const UniqueMeta& m, int64_t item, int64_t j) {
  return ((j / m.inner) * m.n + item) * m.inner + j % m.inner;
}

// keys[r] = the key of element j of the item sorted r-th so far.
template <typename U>
__global__ void unique_keys_kernel(const U* __restrict__ x, UniqueMeta m, int64_t j, const int64_t* __restrict__ pos,
                                   U* __restrict__ keys) {
  for (int64_t r = first_index(); r < m.n; r += grid_stride())
    keys[r] = unique_key(x[slice_at(m, pos[r], j)], m.kind, static_cast<U>(m.inf));
}

// heads[r] = 1 where the r-th sorted item differs from the one before;
// an item of one element by its sorted key, which the last pass left.
template <typename U>
__global__ void unique_heads_kernel(const U* __restrict__ x, UniqueMeta m, const int64_t* __restrict__ sorted_pos,
                                    const U* __restrict__ sorted_keys, uint8_t* __restrict__ heads) {
  const U inf = static_cast<U>(m.inf);
  const int64_t len = m.outer * m.inner;
  for (int64_t r = first_index(); r < m.n; r += grid_stride()) {
    bool head = r == 0;
    if (len == 1 && !head) head = sorted_keys[r] != sorted_keys[r - 1];
    for (int64_t j = 0; j < len && len > 1 && !head; ++j)
      head = unique_key(x[slice_at(m, sorted_pos[r], j)], m.kind, inf) !=
             unique_key(x[slice_at(m, sorted_pos[r - 1], j)], m.kind, inf);
    heads[r] = head;
  }
}

// Group g starts at sorted position starts[g]: its first occurrence and
// size; for sorted=0 also g itself, the value its first occurrence sorts.
__global__ void unique_groups_kernel(const int64_t* __restrict__ sorted_pos, const int64_t* __restrict__ starts,
                                     int64_t u, int64_t n, int64_t* __restrict__ firsts, int64_t* __restrict__ sizes,
                                     int64_t* __restrict__ ids, int* __restrict__ segment) {
  for (int64_t g = first_index(); g < u; g += grid_stride()) {
    firsts[g] = sorted_pos[starts[g]];
    sizes[g] = (g + 1 < u ? starts[g + 1] : n) - starts[g];
    if (ids) ids[g] = g;
  }
  if (segment && first_index() == 0) {
    segment[0] = 0;
    segment[1] = static_cast<int>(u);
  }
}

// place[g] = group g's row in y, from the groups in first-occurrence order.
__global__ void unique_place_kernel(const int64_t* __restrict__ by_first, int64_t u, int64_t* __restrict__ place) {
  for (int64_t j = first_index(); j < u; j += grid_stride()) place[by_first[j]] = j;
}

__global__ void unique_write_kernel(const int64_t* __restrict__ firsts, const int64_t* __restrict__ sizes,
                                    const int64_t* __restrict__ place, int64_t u, int64_t* __restrict__ indices,
                                    int64_t* __restrict__ counts) {
  for (int64_t g = first_index(); g < u; g += grid_stride()) {
    const int64_t row = place ? place[g] : g;
    if (indices) indices[row] = firsts[g];
    if (counts) counts[row] = sizes[g];
  }
}

// y [outer, u, inner]: each group's first occurrence at its row.
template <typename U>
__global__ void unique_slices_kernel(const U* __restrict__ x, UniqueMeta m, const int64_t* __restrict__ firsts,
                                     const int64_t* __restrict__ place, int64_t u, U* __restrict__ y) {
  const int64_t len = m.outer * m.inner;
  for (int64_t q = first_index(); q < u * len; q += grid_stride()) {
    const int64_t g = q / len, j = q % len, row = place ? place[g] : g;
    y[((j / m.inner) * u + row) * m.inner + j % m.inner] = x[slice_at(m, firsts[g], j)];
  }
}

// Each element's group: the last start at or before its sorted position.
__global__ void unique_inverse_kernel(const int64_t* __restrict__ sorted_pos, const int64_t* __restrict__ starts,
                                      const int64_t* __restrict__ place, int64_t u, int64_t n,
                                      int64_t* __restrict__ inverse) {
  for (int64_t i = first_index(); i < n; i += grid_stride()) {
    int64_t lo = 0, hi = u;  // starts[lo] <= i < starts[hi]
    while (hi - lo > 1) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (starts[mid] <= i)
        lo = mid;
      else
        hi = mid;
    }
    inverse[sorted_pos[i]] = place ? place[lo] : lo;
  }
}

template <typename K>
cudaError_t sort_pairs(void* temp, size_t& temp_bytes, const K* keys_in, K* keys_out, const int64_t* vals_in,
                       int64_t* vals_out, int64_t n, const int* segment, cudaStream_t stream) {
  return cub::DeviceSegmentedRadixSort::SortPairs(temp, temp_bytes, keys_in, keys_out, vals_in, vals_out,
                                                  static_cast<int>(n), 1, segment, segment + 1, 0,
                                                  static_cast<int>(sizeof(K) * 8), stream);
}

// Workspace of the first launch: keys in and out, positions in, the sort's
// segment and CUB's temporary storage.
struct GroupLayout {
  size_t keys_out = 0, pos_in = 0, segment = 0, temp = 0, temp_bytes = 0, total = 0;
};

cudaError_t group_layout(const UniqueMeta& m, GroupLayout* L) {
  if (m.n < 1 || m.n > 0x7fffffff || m.outer < 0 || m.inner < 0 || m.outer * m.inner > kUniqueMaxSlice)
    return cudaErrorInvalidValue;
  const size_t keys = align_up(static_cast<size_t>(m.n) * static_cast<size_t>(m.unit));
  L->keys_out = keys;
  L->pos_in = 2 * keys;
  L->segment = L->pos_in + align_up(static_cast<size_t>(m.n) * sizeof(int64_t));
  L->temp = L->segment + align_up(2 * sizeof(int));
  cudaError_t e = by_width(m.unit, [&](auto tag) {
    using U = typename decltype(tag)::type;
    return sort_pairs<U>(nullptr, L->temp_bytes, nullptr, nullptr, nullptr, nullptr, m.n, nullptr, nullptr);
  });
  L->total = L->temp + align_up(L->temp_bytes);
  return e;
}

// Workspace of the second launch: each group's start, first occurrence,
// size and row; for sorted=0 also the sort of the groups by first
// occurrence (keys out, ids in and out, segment, CUB's storage).
struct WriteLayout {
  size_t firsts = 0, sizes = 0, place = 0, by_first_keys = 0, ids = 0, by_first = 0, segment = 0, temp = 0,
         temp_bytes = 0, total = 0;
};

cudaError_t write_layout(int64_t u, bool sorted, WriteLayout* L) {
  if (u < 1 || u > 0x7fffffff) return cudaErrorInvalidValue;
  const size_t a = align_up(static_cast<size_t>(u) * sizeof(int64_t));
  L->firsts = a;  // the starts at 0
  L->sizes = 2 * a;
  L->total = 3 * a;
  if (sorted) return cudaSuccess;
  L->place = 3 * a;
  L->by_first_keys = 4 * a;
  L->ids = 5 * a;
  L->by_first = 6 * a;
  L->segment = 7 * a;
  L->temp = L->segment + align_up(2 * sizeof(int));
  cudaError_t e = sort_pairs<int64_t>(nullptr, L->temp_bytes, nullptr, nullptr, nullptr, nullptr, u, nullptr, nullptr);
  L->total = L->temp + align_up(L->temp_bytes);
  return e;
}

// Unique's group starts, as NonZero over its 1-D heads (bytes, 0 or 1).
NonZeroMeta heads_meta(const UniqueMeta& m) {
  NonZeroMeta h;
  h.n = m.n;
  h.chunks = m.chunks;
  h.dims[0] = m.n;
  return h;
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
  return launch_count_scan(offsets, m.chunks, total, stream);
}

cudaError_t launch_count_scan(int64_t* counts, int64_t n, int64_t* total, cudaStream_t stream) {
  count_scan_kernel<<<1, kBlock, 0, stream>>>(counts, n, total);
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

cudaError_t unique_group_workspace_bytes(const UniqueMeta& m, size_t* bytes) {
  GroupLayout L;
  const cudaError_t e = group_layout(m, &L);
  *bytes = L.total;
  return e;
}

cudaError_t launch_unique_group(const UniqueMeta& m, const void* x, void* workspace, size_t workspace_bytes,
                                int64_t* sorted_pos, uint8_t* heads, int64_t* offsets, int64_t* total,
                                cudaStream_t stream) {
  GroupLayout L;
  cudaError_t e = group_layout(m, &L);
  if (e != cudaSuccess) return e;
  if (workspace_bytes < L.total) return cudaErrorInvalidValue;
  int* segment = at<int>(workspace, L.segment);
  int64_t* cur = at<int64_t>(workspace, L.pos_in);
  unique_init_kernel<<<grid_for(m.n), kBlock, 0, stream>>>(m.n, cur, segment);
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  e = by_width(m.unit, [&](auto tag) {
    using U = typename decltype(tag)::type;
    const U* xu = static_cast<const U*>(x);
    U* keys = at<U>(workspace, 0);
    U* sorted = at<U>(workspace, L.keys_out);
    // One stable pass per slice element, the last first; the positions
    // alternate between the workspace and sorted_pos.
    int64_t* other = sorted_pos;
    for (int64_t j = m.outer * m.inner - 1; j >= 0; --j) {
      unique_keys_kernel<U><<<grid_for(m.n), kBlock, 0, stream>>>(xu, m, j, cur, keys);
      cudaError_t r = cudaGetLastError();
      if (r == cudaSuccess)
        r = sort_pairs<U>(at<void>(workspace, L.temp), L.temp_bytes, keys, sorted, cur, other, m.n, segment, stream);
      if (r != cudaSuccess) return r;
      std::swap(cur, other);
    }
    if (cur != sorted_pos) {
      const cudaError_t r = cudaMemcpyAsync(sorted_pos, cur, static_cast<size_t>(m.n) * sizeof(int64_t),
                                            cudaMemcpyDeviceToDevice, stream);
      if (r != cudaSuccess) return r;
    }
    unique_heads_kernel<U><<<grid_for(m.n), kBlock, 0, stream>>>(xu, m, sorted_pos, sorted, heads);
    return cudaGetLastError();
  });
  if (e != cudaSuccess) return e;
  return launch_nonzero_count(heads_meta(m), heads, offsets, total, stream);
}

cudaError_t unique_write_workspace_bytes(int64_t u, bool sorted, size_t* bytes) {
  WriteLayout L;
  const cudaError_t e = write_layout(u, sorted, &L);
  *bytes = L.total;
  return e;
}

cudaError_t launch_unique_write(const UniqueMeta& m, const void* x, const int64_t* sorted_pos, const uint8_t* heads,
                                const int64_t* offsets, int64_t u, bool sorted, void* workspace, size_t workspace_bytes,
                                void* y, int64_t* indices, int64_t* inverse, int64_t* counts, cudaStream_t stream) {
  WriteLayout L;
  cudaError_t e = write_layout(u, sorted, &L);
  if (e != cudaSuccess) return e;
  if (workspace_bytes < L.total || m.n < u) return cudaErrorInvalidValue;
  int64_t* starts = at<int64_t>(workspace, 0);
  int64_t* firsts = at<int64_t>(workspace, L.firsts);
  int64_t* sizes = at<int64_t>(workspace, L.sizes);
  int64_t* place = sorted ? nullptr : at<int64_t>(workspace, L.place);
  int64_t* ids = sorted ? nullptr : at<int64_t>(workspace, L.ids);
  int* segment = sorted ? nullptr : at<int>(workspace, L.segment);
  if ((e = launch_nonzero_write(heads_meta(m), heads, offsets, u, starts, stream)) != cudaSuccess) return e;
  unique_groups_kernel<<<grid_for(u), kBlock, 0, stream>>>(sorted_pos, starts, u, m.n, firsts, sizes, ids, segment);
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  if (!sorted) {
    int64_t* by_first_keys = at<int64_t>(workspace, L.by_first_keys);
    int64_t* by_first = at<int64_t>(workspace, L.by_first);
    e = sort_pairs<int64_t>(at<void>(workspace, L.temp), L.temp_bytes, firsts, by_first_keys, ids, by_first, u, segment,
                            stream);
    if (e != cudaSuccess) return e;
    unique_place_kernel<<<grid_for(u), kBlock, 0, stream>>>(by_first, u, place);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
  }
  unique_write_kernel<<<grid_for(u), kBlock, 0, stream>>>(firsts, sizes, place, u, indices, counts);
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  if (const int64_t len = m.outer * m.inner; len > 0) {
    e = by_width(m.unit, [&](auto tag) {
      using U = typename decltype(tag)::type;
      unique_slices_kernel<U><<<grid_for(u * len), kBlock, 0, stream>>>(static_cast<const U*>(x), m, firsts, place, u,
                                                                        static_cast<U*>(y));
      return cudaGetLastError();
    });
    if (e != cudaSuccess) return e;
  }
  if (!inverse) return cudaSuccess;
  unique_inverse_kernel<<<grid_for(m.n), kBlock, 0, stream>>>(sorted_pos, starts, place, u, m.n, inverse);
  return cudaGetLastError();
}

}  // namespace sy::cuda

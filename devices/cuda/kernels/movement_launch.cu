// CUDA kernels of the data-movement ops. Elements are moved as opaque units of
// 1-16 bytes; the host side (movement_kernels.cc) computes every shape, view
// and stride, widens units where rows allow it, and decides whether 32-bit
// index arithmetic is safe (64-bit division costs several times more).
#include <cstring>

#include "devices/cuda/kernels/movement_launch.h"

namespace sy::cuda {
namespace {

constexpr unsigned kBlock = 256;

unsigned blocks_for(int64_t n, unsigned block = kBlock) {
  int64_t g = (n + block - 1) / block;
  if (g < 1) g = 1;
  if (g > 65535LL * 32) g = 65535LL * 32;  // grid-stride loops cover the rest
  return static_cast<unsigned>(g);
}

__device__ __forceinline__ int64_t first_index() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t grid_step() { return static_cast<int64_t>(gridDim.x) * blockDim.x; }

// Calls f(T{}) with the unsigned type of `unit` bytes (uint4 for 16).
template <typename F>
cudaError_t by_unit(int unit, F&& f) {
  switch (unit) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    case 8: return f(uint64_t{});
    case 16: return f(uint4{});
    default: return cudaErrorInvalidValue;
  }
}

template <typename T>
__device__ __forceinline__ T zero_unit() {
  T z;
  memset(&z, 0, sizeof(T));
  return z;
}

// ---- strided copy ----------------------------------------------------------

// The dim loop is unrolled to the fixed maximum with a uniform rank guard, so
// the metadata is indexed statically and stays in the parameter bank.
template <typename T, typename I>
__global__ void strided_copy_kernel(T* __restrict__ dst, const T* __restrict__ src, int64_t n,
                                    const __grid_constant__ StridedCopyMeta m) {
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    I rem = static_cast<I>(i);
    I off = 0;
#pragma unroll
    for (int k = kMoveMaxViewDims - 1; k >= 0; --k) {
      if (k < m.rank) {
        I c = rem;
        if (k > 0) {
          const I d = static_cast<I>(m.dims[k]);
          c = rem % d;
          rem /= d;
        }
        off += c * static_cast<I>(m.strides[k]);
      }
    }
    dst[i] = src[off];
  }
}

// ---- tiled transpose -------------------------------------------------------

constexpr int kTile = 32;
constexpr int kTileRows = 8;  // threads per block: kTile x kTileRows

template <typename T>
__global__ void transpose_tiled_kernel(T* __restrict__ dst, const T* __restrict__ src, TransposeTileMeta m,
                                       int64_t tiles_r, int64_t tiles_c, int64_t total_tiles) {
  __shared__ T tile[kTile][kTile + 1];  // +1: reads down a column hit distinct banks
  const int tx = threadIdx.x, ty = threadIdx.y;
  // The loop bound depends only on blockIdx, so every thread reaches the barriers.
  for (int64_t t = blockIdx.x; t < total_tiles; t += gridDim.x) {
    const int64_t b = t / (tiles_r * tiles_c);
    const int64_t rem = t - b * tiles_r * tiles_c;
    const int64_t a0 = (rem / tiles_c) * kTile;  // output rows
    const int64_t c0 = (rem % tiles_c) * kTile;  // output columns
    const T* s = src + b * m.batch_stride;
    T* d = dst + b * m.rows * m.cols;
    {
      const int64_t a = a0 + tx;
      for (int j = ty; j < kTile; j += kTileRows) {
        const int64_t c = c0 + j;
        if (a < m.rows && c < m.cols) tile[j][tx] = s[c * m.rows + a];
      }
    }
    __syncthreads();
    {
      const int64_t c = c0 + tx;
      for (int j = ty; j < kTile; j += kTileRows) {
        const int64_t a = a0 + j;
        if (a < m.rows && c < m.cols) d[a * m.cols + c] = tile[tx][j];
      }
    }
    __syncthreads();
  }
}

// ---- Concat / Split ----------------------------------------------------------

template <typename T, typename I, bool kToParts>
__global__ void slab_kernel(T* __restrict__ big, int64_t n, const __grid_constant__ SlabMeta m) {
  const I width = static_cast<I>(m.col_end[m.count - 1]);
  const I big_row = static_cast<I>(m.big_row);
  const I col0 = static_cast<I>(m.col0);
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    const I idx = static_cast<I>(i);
    const I o = idx / width;
    const I c = idx - o * width;
    int lo = 0, hi = m.count - 1;  // first part whose end lies past c
    while (lo < hi) {
      const int mid = (lo + hi) >> 1;
      if (static_cast<I>(m.col_end[mid]) > c) hi = mid;
      else lo = mid + 1;
    }
    const I begin = lo > 0 ? static_cast<I>(m.col_end[lo - 1]) : I(0);
    const I row = static_cast<I>(m.col_end[lo]) - begin;
    const I part_index = o * row + (c - begin);
    const I big_index = o * big_row + col0 + c;
    T* part = static_cast<T*>(m.parts[lo]);
    if constexpr (kToParts) {
      if (part) part[part_index] = big[big_index];
    } else {
      big[big_index] = part[part_index];
    }
  }
}

// ---- Gather / GatherElements -------------------------------------------------

template <typename T, typename Idx, typename I>
__global__ void gather_kernel(T* __restrict__ dst, const T* __restrict__ src, const Idx* __restrict__ indices,
                              int64_t n, GatherMeta m, int* __restrict__ error) {
  const I inner = static_cast<I>(m.inner);
  const I nidx = static_cast<I>(m.nidx);
  const I axis_dim = static_cast<I>(m.axis_dim);
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    const I idx = static_cast<I>(i);
    const I t = idx / inner;
    const I e = idx - t * inner;
    const I o = t / nidx;
    const I j = t - o * nidx;
    int64_t g = static_cast<int64_t>(indices[j]);
    if (g < 0) g += m.axis_dim;
    if (g < 0 || g >= m.axis_dim) {
      dst[i] = zero_unit<T>();
      *error = 1;
    } else {
      dst[i] = src[(o * axis_dim + static_cast<I>(g)) * inner + e];
    }
  }
}

template <typename T, typename Idx>
__global__ void gather_elements_kernel(T* __restrict__ dst, const T* __restrict__ src,
                                       const Idx* __restrict__ indices, int64_t n,
                                       const __grid_constant__ GatherElementsMeta m, int* __restrict__ error) {
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    int64_t g = static_cast<int64_t>(indices[i]);
    if (g < 0) g += m.axis_dim;
    if (g < 0 || g >= m.axis_dim) {
      dst[i] = zero_unit<T>();
      *error = 1;
      continue;
    }
    dst[i] = src[elements_data_offset(m, i, g)];
  }
}

// ---- Pad ---------------------------------------------------------------------

// Output coordinate -> input coordinate, -1 for "constant"; mirrors the CPU
// kernel's pad_source (periodic reflect, so pads wider than the axis work).
__device__ __forceinline__ int64_t pad_source(int64_t o, int64_t before, int64_t dim, int mode) {
  const int64_t c = o - before;
  if (c >= 0 && c < dim) return c;
  switch (mode) {
    case 0: return -1;
    case 2: return c < 0 ? 0 : dim - 1;
    case 3: {
      const int64_t r = c % dim;
      return r < 0 ? r + dim : r;
    }
    default: {
      if (dim == 1) return 0;
      const int64_t period = 2 * (dim - 1);
      int64_t r = c % period;
      if (r < 0) r += period;
      return r < dim ? r : period - r;
    }
  }
}

template <typename T>
__global__ void pad_kernel(T* __restrict__ dst, const T* __restrict__ src, int64_t n,
                           const __grid_constant__ PadMeta m) {
  T value;
  memcpy(&value, &m.value, sizeof(T));
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    int64_t rem = i, off = 0;
    bool constant = false;
#pragma unroll
    for (int k = kMoveMaxRank - 1; k >= 0; --k) {
      if (k < m.rank) {
        int64_t c = rem;
        if (k > 0) {
          c = rem % m.out_dims[k];
          rem /= m.out_dims[k];
        }
        const int64_t s = pad_source(c, m.before[k], m.in_dims[k], m.mode);
        if (s < 0) constant = true;
        else off += s * m.in_strides[k];
      }
    }
    dst[i] = constant ? value : src[off];
  }
}

// ---- fills -------------------------------------------------------------------

template <typename T>
__global__ void fill_kernel(T* __restrict__ dst, int64_t n, T value) {
  for (int64_t i = first_index(); i < n; i += grid_step()) dst[i] = value;
}

__global__ void write_int64s_kernel(int64_t* __restrict__ dst, const __grid_constant__ SmallInt64s v) {
  const int t = threadIdx.x;
  if (t < v.count) dst[t] = v.v[t];
}

}  // namespace

cudaError_t launch_strided_copy(void* dst, const void* src, int64_t n, int unit, bool index32,
                                const StridedCopyMeta& m, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  if (m.rank < 0 || m.rank > kMoveMaxViewDims) return cudaErrorInvalidValue;
  return by_unit(unit, [&](auto tag) {
    using T = decltype(tag);
    if (index32) {
      strided_copy_kernel<T, int32_t><<<blocks_for(n), kBlock, 0, stream>>>(static_cast<T*>(dst),
                                                                             static_cast<const T*>(src), n, m);
    } else {
      strided_copy_kernel<T, int64_t><<<blocks_for(n), kBlock, 0, stream>>>(static_cast<T*>(dst),
                                                                             static_cast<const T*>(src), n, m);
    }
    return cudaGetLastError();
  });
}

cudaError_t launch_transpose_tiled(void* dst, const void* src, int unit, const TransposeTileMeta& m,
                                   cudaStream_t stream) {
  if (m.batch <= 0 || m.rows <= 0 || m.cols <= 0) return cudaSuccess;
  if (unit > 8) return cudaErrorInvalidValue;
  const int64_t tiles_r = (m.rows + kTile - 1) / kTile, tiles_c = (m.cols + kTile - 1) / kTile;
  const int64_t total = m.batch * tiles_r * tiles_c;
  const unsigned blocks = static_cast<unsigned>(total < 65535LL * 32 ? total : 65535LL * 32);
  return by_unit(unit, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (sizeof(T) <= 8) {
      transpose_tiled_kernel<T><<<blocks, dim3(kTile, kTileRows), 0, stream>>>(
          static_cast<T*>(dst), static_cast<const T*>(src), m, tiles_r, tiles_c, total);
      return cudaGetLastError();
    } else {
      return cudaErrorInvalidValue;
    }
  });
}

cudaError_t launch_slab_copy(void* big, const SlabMeta& m, int unit, bool to_parts, bool index32,
                             cudaStream_t stream) {
  if (m.count <= 0 || m.count > kMaxSlabParts || m.outer <= 0) return cudaSuccess;
  const int64_t width = m.col_end[m.count - 1];
  if (width <= 0) return cudaSuccess;
  const int64_t n = m.outer * width;
  return by_unit(unit, [&](auto tag) {
    using T = decltype(tag);
    T* b = static_cast<T*>(big);
    if (to_parts) {
      if (index32) slab_kernel<T, int32_t, true><<<blocks_for(n), kBlock, 0, stream>>>(b, n, m);
      else slab_kernel<T, int64_t, true><<<blocks_for(n), kBlock, 0, stream>>>(b, n, m);
    } else {
      if (index32) slab_kernel<T, int32_t, false><<<blocks_for(n), kBlock, 0, stream>>>(b, n, m);
      else slab_kernel<T, int64_t, false><<<blocks_for(n), kBlock, 0, stream>>>(b, n, m);
    }
    return cudaGetLastError();
  });
}

cudaError_t launch_gather(void* dst, const void* src, const void* indices, bool indices64, int unit, bool index32,
                          const GatherMeta& m, int* error, cudaStream_t stream) {
  const int64_t n = m.outer * m.nidx * m.inner;
  if (n <= 0) return cudaSuccess;
  return by_unit(unit, [&](auto tag) {
    using T = decltype(tag);
    T* d = static_cast<T*>(dst);
    const T* s = static_cast<const T*>(src);
    const unsigned g = blocks_for(n);
    if (indices64) {
      const auto* ind = static_cast<const int64_t*>(indices);
      if (index32) gather_kernel<T, int64_t, int32_t><<<g, kBlock, 0, stream>>>(d, s, ind, n, m, error);
      else gather_kernel<T, int64_t, int64_t><<<g, kBlock, 0, stream>>>(d, s, ind, n, m, error);
    } else {
      const auto* ind = static_cast<const int32_t*>(indices);
      if (index32) gather_kernel<T, int32_t, int32_t><<<g, kBlock, 0, stream>>>(d, s, ind, n, m, error);
      else gather_kernel<T, int32_t, int64_t><<<g, kBlock, 0, stream>>>(d, s, ind, n, m, error);
    }
    return cudaGetLastError();
  });
}

cudaError_t launch_gather_elements(void* dst, const void* src, const void* indices, bool indices64, int unit,
                                   int64_t n, const GatherElementsMeta& m, int* error, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  if (m.rank < 1 || m.rank > kMoveMaxRank) return cudaErrorInvalidValue;
  return by_unit(unit, [&](auto tag) {
    using T = decltype(tag);
    T* d = static_cast<T*>(dst);
    const T* s = static_cast<const T*>(src);
    if (indices64) {
      gather_elements_kernel<T, int64_t><<<blocks_for(n), kBlock, 0, stream>>>(
          d, s, static_cast<const int64_t*>(indices), n, m, error);
    } else {
      gather_elements_kernel<T, int32_t><<<blocks_for(n), kBlock, 0, stream>>>(
          d, s, static_cast<const int32_t*>(indices), n, m, error);
    }
    return cudaGetLastError();
  });
}

cudaError_t launch_pad(void* dst, const void* src, int unit, int64_t n, const PadMeta& m, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  if (m.rank < 1 || m.rank > kMoveMaxRank) return cudaErrorInvalidValue;
  return by_unit(unit, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (sizeof(T) <= 8) {
      pad_kernel<T><<<blocks_for(n), kBlock, 0, stream>>>(static_cast<T*>(dst), static_cast<const T*>(src), n, m);
      return cudaGetLastError();
    } else {
      return cudaErrorInvalidValue;
    }
  });
}

cudaError_t launch_fill(void* dst, int64_t n, int unit, uint64_t value_bits, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  return by_unit(unit, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (sizeof(T) <= 8) {
      T value;
      std::memcpy(&value, &value_bits, sizeof(T));
      fill_kernel<T><<<blocks_for(n), kBlock, 0, stream>>>(static_cast<T*>(dst), n, value);
      return cudaGetLastError();
    } else {
      return cudaErrorInvalidValue;
    }
  });
}

cudaError_t launch_write_int64s(int64_t* dst, const SmallInt64s& values, cudaStream_t stream) {
  if (values.count <= 0) return cudaSuccess;
  if (values.count > kMoveMaxRank) return cudaErrorInvalidValue;
  write_int64s_kernel<<<1, kMoveMaxRank, 0, stream>>>(dst, values);
  return cudaGetLastError();
}

}  // namespace sy::cuda

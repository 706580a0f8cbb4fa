// CUDA kernels of the index ops (see index_launch.h). The host side
// (index_kernels.cc) validates shapes exactly as the CPU kernels do; these
// kernels range-check the indices they read from device memory, apply
// scatter reductions with atomics, and reproduce the CPU kernels'
// arithmetic where values are computed (Range, scatter reductions).
// Flat indices are int64 throughout: these ops are memory-bound, and the
// 64-bit divisions are not what limits them.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstring>
#include <type_traits>

#include "devices/cuda/kernels/elementwise_device.cuh"
#include "devices/cuda/kernels/index_launch.h"

namespace sy::cuda {
namespace {

// Launch geometry and type tags are the elementwise family's.
using ew::by_unit;
using ew::first_index;
using ew::float_to_half;
using ew::half_to_float;
using ew::kBlock;
using ew::kIsHalf;
using ew::Tag;

unsigned blocks_for(int64_t n) { return ew::grid_for(n); }
__device__ __forceinline__ int64_t grid_step() { return ew::grid_stride(); }

// ONNX codes of the element types (sy::DataType values).
constexpr int kFloat = 1, kUInt8 = 2, kInt8 = 3, kUInt16 = 4, kInt16 = 5, kInt32 = 6, kInt64 = 7, kBool = 9,
              kFloat16 = 10, kDouble = 11, kUInt32 = 12, kUInt64 = 13, kBFloat16 = 16;

// Calls f(Tag<T>{}) with the arithmetic type of a reducing scatter: every
// numeric type but the 8-bit integers (see scatter_reduce_supported).
template <typename F>
cudaError_t by_reduce_type(int dtype, F&& f) {
  switch (dtype) {
    case kFloat: return f(Tag<float>{});
    case kUInt16: return f(Tag<uint16_t>{});
    case kInt16: return f(Tag<int16_t>{});
    case kInt32: return f(Tag<int32_t>{});
    case kInt64: return f(Tag<int64_t>{});
    case kBool: return f(Tag<bool>{});
    case kFloat16: return f(Tag<__half>{});
    case kDouble: return f(Tag<double>{});
    case kUInt32: return f(Tag<uint32_t>{});
    case kUInt64: return f(Tag<uint64_t>{});
    case kBFloat16: return f(Tag<__nv_bfloat16>{});
    default: return cudaErrorNotSupported;
  }
}

// Calls f(Tag<T>{}) with the C++ type of any numeric ONNX type (OneHot's
// indices, Range's output).
template <typename F>
cudaError_t by_numeric_type(int dtype, F&& f) {
  switch (dtype) {
    case kUInt8: return f(Tag<uint8_t>{});
    case kInt8: return f(Tag<int8_t>{});
    default: return by_reduce_type(dtype, f);
  }
}

template <typename F>
cudaError_t by_index_type(bool indices64, F&& f) {
  return indices64 ? f(Tag<int64_t>{}) : f(Tag<int32_t>{});
}

template <typename T>
__device__ __forceinline__ T zero_of() {
  T z;
  memset(&z, 0, sizeof(T));
  return z;
}

// Index i normalised into [0, dim), or -1 when it is outside [-dim, dim).
__device__ __forceinline__ int64_t normalized(int64_t i, int64_t dim) {
  if (i < 0) i += dim;
  return i >= 0 && i < dim ? i : -1;
}

// ---- scatter updates -----------------------------------------------------------

// The CPU kernels' combine(dst, update): 16-bit floats in float rounded
// back, integers wrapping (computed unsigned, so no signed overflow),
// max/min giving NaN when either side is NaN.
template <ScatterReduce R, typename T>
__device__ __forceinline__ T combine(T a, T b) {
  if constexpr (kIsHalf<T>) {
    return float_to_half<T>(combine<R>(half_to_float(a), half_to_float(b)));
  } else if constexpr (R == ScatterReduce::kMax) {
    return a < b || b != b ? b : a;
  } else if constexpr (R == ScatterReduce::kMin) {
    return b < a || b != b ? b : a;
  } else if constexpr (std::is_floating_point_v<T>) {
    return R == ScatterReduce::kAdd ? a + b : a * b;
  } else {
    using W = std::conditional_t<sizeof(T) <= 4, uint32_t, uint64_t>;
    const W x = static_cast<W>(a), y = static_cast<W>(b);
    return static_cast<T>(R == ScatterReduce::kAdd ? x + y : x * y);
  }
}

template <typename T>
using Bits = std::conditional_t<sizeof(T) == 2, unsigned short,
                                std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>>;

// *p = combine(*p, u) as one atomic step: a compare-and-swap loop on the
// element's own bits (2, 4 or 8 bytes; sm_70+ has the 16-bit CAS).
template <ScatterReduce R, typename T>
__device__ __forceinline__ void cas_update(T* p, T u) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "no CAS of this width");
  using U = Bits<T>;
  U* a = reinterpret_cast<U*>(p);
  U old = *a, assumed;
  do {
    assumed = old;
    T cur;
    memcpy(&cur, &assumed, sizeof(T));
    const T next = combine<R>(cur, u);
    U bits;
    memcpy(&bits, &next, sizeof(T));
    old = atomicCAS(a, assumed, bits);
  } while (old != assumed);
}

template <typename T>
inline constexpr bool kNativeAdd = std::is_same_v<T, float> || std::is_same_v<T, double> || kIsHalf<T> ||
                                   std::is_same_v<T, int32_t> || std::is_same_v<T, uint32_t> ||
                                   std::is_same_v<T, int64_t> || std::is_same_v<T, uint64_t>;

template <ScatterReduce R, typename T>
__device__ __forceinline__ void apply(T* p, T u) {
  if constexpr (R == ScatterReduce::kNone) {
    *p = u;  // duplicates are undefined in ONNX: any one of them wins
  } else if constexpr (std::is_same_v<T, bool>) {
    // add/max are OR, mul/min AND (the CPU's combine<bool>). Every thread
    // that changes the element stores the same value, so plain stores race
    // harmlessly and the result does not depend on the order.
    if constexpr (R == ScatterReduce::kAdd || R == ScatterReduce::kMax) {
      if (u) *p = true;
    } else {
      if (!u) *p = false;
    }
  } else if constexpr (R == ScatterReduce::kAdd && kNativeAdd<T>) {
    if constexpr (std::is_integral_v<T> && sizeof(T) == 8)
      atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(u));
    else
      atomicAdd(p, u);
  } else {
    cas_update<R>(p, u);
  }
}

// Offset of index tuple `tuple` (k entries) or -1 if one is out of range.
template <typename Idx>
__device__ __forceinline__ int64_t tuple_offset(const Idx* __restrict__ tuple, int32_t k, const int64_t* dims,
                                                const int64_t* strides) {
  int64_t off = 0;
#pragma unroll
  for (int j = 0; j < kIndexMaxRank; ++j) {
    if (j < k) {
      const int64_t a = normalized(static_cast<int64_t>(tuple[j]), dims[j]);
      if (a < 0) return -1;
      off += a * strides[j];
    }
  }
  return off;
}

template <typename T, typename Idx, ScatterReduce R>
__global__ void scatter_nd_kernel(T* out, const T* __restrict__ upd, const Idx* __restrict__ ind, int64_t n,
                                  const __grid_constant__ ScatterNDMeta m, int* __restrict__ error) {
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    const int64_t t = i / m.slice;
    const int64_t e = i - t * m.slice;
    const int64_t off = tuple_offset(ind + t * m.k, m.k, m.dims, m.strides);
    if (off < 0) {
      *error = 1;
      continue;
    }
    apply<R>(out + off + e, upd[i]);
  }
}

template <typename T, typename Idx, ScatterReduce R>
__global__ void scatter_elements_kernel(T* out, const T* __restrict__ upd, const Idx* __restrict__ ind, int64_t n,
                                        const __grid_constant__ ScatterElementsMeta m, int* __restrict__ error) {
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    const int64_t g = normalized(static_cast<int64_t>(ind[i]), m.axis_dim);
    if (g < 0) {
      *error = 1;
      continue;
    }
    apply<R>(out + elements_data_offset(m, i, g), upd[i]);
  }
}

// Calls f(integral_constant<R>) for a runtime reduction other than kNone.
template <typename F>
cudaError_t by_reduce(ScatterReduce r, F&& f) {
  switch (r) {
    case ScatterReduce::kAdd: return f(std::integral_constant<ScatterReduce, ScatterReduce::kAdd>{});
    case ScatterReduce::kMul: return f(std::integral_constant<ScatterReduce, ScatterReduce::kMul>{});
    case ScatterReduce::kMax: return f(std::integral_constant<ScatterReduce, ScatterReduce::kMax>{});
    case ScatterReduce::kMin: return f(std::integral_constant<ScatterReduce, ScatterReduce::kMin>{});
    default: return cudaErrorInvalidValue;
  }
}

// Calls launch(Tag<T>{}, integral_constant<R>) for the scatter's element
// type: a storage unit without reduction, the arithmetic type with one.
template <typename F>
cudaError_t by_scatter(int dtype, int unit, ScatterReduce r, F&& launch) {
  if (r == ScatterReduce::kNone) {
    return by_unit(unit, [&](auto tag) {
      return launch(tag, std::integral_constant<ScatterReduce, ScatterReduce::kNone>{});
    });
  }
  if (!scatter_reduce_supported(dtype, r)) return cudaErrorNotSupported;
  return by_reduce_type(dtype, [&](auto tag) { return by_reduce(r, [&](auto red) { return launch(tag, red); }); });
}

// ---- GatherND ------------------------------------------------------------------

template <typename T, typename Idx>
__global__ void gather_nd_kernel(T* __restrict__ out, const T* __restrict__ data, const Idx* __restrict__ ind,
                                 int64_t n, const __grid_constant__ GatherNDMeta m, int* __restrict__ error) {
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    const int64_t t = i / m.slice;
    const int64_t e = i - t * m.slice;
    const int64_t off = tuple_offset(ind + t * m.k, m.k, m.dims, m.strides);
    if (off < 0) {
      out[i] = zero_of<T>();
      *error = 1;
      continue;
    }
    out[i] = data[(t / m.per_batch) * m.batch_stride + off + e];
  }
}

struct CheckDims {
  int64_t d[kIndexMaxRank];
};

template <typename Idx>
__global__ void check_nd_kernel(const Idx* __restrict__ ind, int64_t n, int32_t k, const __grid_constant__ CheckDims m,
                                int* __restrict__ error) {
  for (int64_t i = first_index(); i < n; i += grid_step())
    if (normalized(static_cast<int64_t>(ind[i]), m.d[i % k]) < 0) *error = 1;
}

// ---- Trilu, Range, EyeLike, OneHot -------------------------------------------

template <typename T>
__global__ void trilu_kernel(T* __restrict__ out, const T* __restrict__ in, int64_t n, TriluMeta m) {
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    const int64_t row_index = i / m.cols;  // over all matrices
    const int64_t col = i - row_index * m.cols;
    const int64_t row = row_index % m.rows;
    const int64_t diff = col - row;  // |diff| < 2^62: no overflow
    const bool keep = m.upper ? diff >= m.k : diff <= m.k;
    out[i] = keep ? in[i] : zero_of<T>();
  }
}

template <typename T>
__global__ void range_kernel(T* __restrict__ out, int64_t n, RangeMeta m) {
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    if constexpr (std::is_same_v<T, float>) {
      // Explicit roundings: a fused multiply-add would differ from the CPU.
      out[i] = __fadd_rn(static_cast<float>(m.fstart), __fmul_rn(static_cast<float>(i), static_cast<float>(m.fdelta)));
    } else if constexpr (std::is_same_v<T, double>) {
      out[i] = __dadd_rn(m.fstart, __dmul_rn(static_cast<double>(i), m.fdelta));
    } else if constexpr (kIsHalf<T>) {
      const double v = __dadd_rn(m.fstart, __dmul_rn(static_cast<double>(i), m.fdelta));
      out[i] = float_to_half<T>(__double2float_rn(v));
    } else {
      const uint64_t v = static_cast<uint64_t>(m.istart) + static_cast<uint64_t>(i) * static_cast<uint64_t>(m.idelta);
      out[i] = static_cast<T>(v);
    }
  }
}

template <typename T>
__global__ void eye_kernel(T* __restrict__ out, T one, int64_t cols, int64_t row0, int64_t k, int64_t count) {
  for (int64_t i = first_index(); i < count; i += grid_step()) {
    const int64_t r = row0 + i;
    out[r * cols + r + k] = one;
  }
}

template <typename T>
__device__ __forceinline__ double index_as_double(T v) {
  if constexpr (kIsHalf<T>) return static_cast<double>(half_to_float(v));
  else if constexpr (std::is_same_v<T, bool>) return v ? 1.0 : 0.0;
  else return static_cast<double>(v);
}

template <typename V, typename Idx>
__global__ void one_hot_kernel(V* __restrict__ out, const V* __restrict__ values, const Idx* __restrict__ ind,
                               int64_t n, OneHotMeta m) {
  const V off = values[0], on = values[1];
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    const int64_t t = i / m.inner;
    const int64_t in = i - t * m.inner;
    const int64_t o = t / m.depth;
    const int64_t d = t - o * m.depth;
    // The CPU kernel's test, in the same order: the range check in double
    // first, so the cast to int64 below is always defined.
    const double v = index_as_double(ind[o * m.inner + in]);
    bool hit = false;
    if (v > -static_cast<double>(m.depth) - 1 && v < static_cast<double>(m.depth)) {
      int64_t idx = static_cast<int64_t>(v);
      if (idx < 0) idx += m.depth;
      hit = idx == d;
    }
    out[i] = hit ? on : off;
  }
}

}  // namespace

bool scatter_reduce_supported(int dtype, ScatterReduce r) {
  if (r == ScatterReduce::kNone) return true;
  switch (dtype) {
    case kFloat: case kUInt16: case kInt16: case kInt32: case kInt64: case kBool: case kFloat16: case kDouble:
    case kUInt32: case kUInt64: case kBFloat16:
      return true;
    default:
      return false;
  }
}

cudaError_t launch_scatter_nd(void* out, const void* updates, const void* indices, bool indices64, int dtype,
                              int unit, ScatterReduce r, const ScatterNDMeta& m, int* error, cudaStream_t stream) {
  const int64_t n = m.tuples * m.slice;
  if (n <= 0) return cudaSuccess;
  if (m.k < 0 || m.k > kIndexMaxRank) return cudaErrorInvalidValue;
  return by_scatter(dtype, unit, r, [&](auto tag, auto red) {
    using T = typename decltype(tag)::type;
    constexpr ScatterReduce R = decltype(red)::value;
    return by_index_type(indices64, [&](auto itag) {
      using Idx = typename decltype(itag)::type;
      scatter_nd_kernel<T, Idx, R><<<blocks_for(n), kBlock, 0, stream>>>(
          static_cast<T*>(out), static_cast<const T*>(updates), static_cast<const Idx*>(indices), n, m, error);
      return cudaGetLastError();
    });
  });
}

cudaError_t launch_scatter_elements(void* out, const void* updates, const void* indices, bool indices64, int dtype,
                                    int unit, ScatterReduce r, int64_t n, const ScatterElementsMeta& m, int* error,
                                    cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  if (m.rank < 1 || m.rank > kIndexMaxRank) return cudaErrorInvalidValue;
  return by_scatter(dtype, unit, r, [&](auto tag, auto red) {
    using T = typename decltype(tag)::type;
    constexpr ScatterReduce R = decltype(red)::value;
    return by_index_type(indices64, [&](auto itag) {
      using Idx = typename decltype(itag)::type;
      scatter_elements_kernel<T, Idx, R><<<blocks_for(n), kBlock, 0, stream>>>(
          static_cast<T*>(out), static_cast<const T*>(updates), static_cast<const Idx*>(indices), n, m, error);
      return cudaGetLastError();
    });
  });
}

cudaError_t launch_gather_nd(void* out, const void* data, const void* indices, bool indices64, int unit,
                             const GatherNDMeta& m, int* error, cudaStream_t stream) {
  const int64_t n = m.tuples * m.slice;
  if (n <= 0) return cudaSuccess;
  if (m.k < 1 || m.k > kIndexMaxRank || m.per_batch < 1) return cudaErrorInvalidValue;
  return by_unit(unit, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return by_index_type(indices64, [&](auto itag) {
      using Idx = typename decltype(itag)::type;
      gather_nd_kernel<T, Idx><<<blocks_for(n), kBlock, 0, stream>>>(
          static_cast<T*>(out), static_cast<const T*>(data), static_cast<const Idx*>(indices), n, m, error);
      return cudaGetLastError();
    });
  });
}

cudaError_t launch_check_nd_indices(const void* indices, bool indices64, int64_t count, int32_t k,
                                    const int64_t (&dims)[kIndexMaxRank], int* error, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  if (k < 1 || k > kIndexMaxRank) return cudaErrorInvalidValue;
  CheckDims m;
  for (int j = 0; j < kIndexMaxRank; ++j) m.d[j] = dims[j];
  return by_index_type(indices64, [&](auto itag) {
    using Idx = typename decltype(itag)::type;
    check_nd_kernel<Idx><<<blocks_for(count), kBlock, 0, stream>>>(static_cast<const Idx*>(indices), count, k, m,
                                                                    error);
    return cudaGetLastError();
  });
}

cudaError_t launch_trilu(void* out, const void* in, int unit, int64_t n, const TriluMeta& m, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  if (m.rows <= 0 || m.cols <= 0 || unit > 8) return cudaErrorInvalidValue;
  return by_unit(unit, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (sizeof(T) <= 8) {
      trilu_kernel<T><<<blocks_for(n), kBlock, 0, stream>>>(static_cast<T*>(out), static_cast<const T*>(in), n, m);
      return cudaGetLastError();
    } else {
      return cudaErrorInvalidValue;
    }
  });
}

cudaError_t launch_range(void* out, int dtype, int64_t n, const RangeMeta& m, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  if (dtype == kBool) return cudaErrorNotSupported;
  return by_numeric_type(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {
      return cudaErrorNotSupported;
    } else {
      range_kernel<T><<<blocks_for(n), kBlock, 0, stream>>>(static_cast<T*>(out), n, m);
      return cudaGetLastError();
    }
  });
}

cudaError_t launch_eye(void* out, int unit, uint64_t one_bits, int64_t cols, int64_t row0, int64_t k, int64_t count,
                       cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  if (unit > 8) return cudaErrorInvalidValue;
  return by_unit(unit, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (sizeof(T) <= 8) {
      T one;
      std::memcpy(&one, &one_bits, sizeof(T));
      eye_kernel<T><<<blocks_for(count), kBlock, 0, stream>>>(static_cast<T*>(out), one, cols, row0, k, count);
      return cudaGetLastError();
    } else {
      return cudaErrorInvalidValue;
    }
  });
}

cudaError_t launch_one_hot(void* out, const void* values, int unit, const void* indices, int index_dtype,
                           const OneHotMeta& m, cudaStream_t stream) {
  const int64_t n = m.outer * m.depth * m.inner;
  if (n <= 0) return cudaSuccess;
  if (unit > 8) return cudaErrorInvalidValue;
  return by_unit(unit, [&](auto vtag) {
    using V = typename decltype(vtag)::type;
    if constexpr (sizeof(V) <= 8) {
      return by_numeric_type(index_dtype, [&](auto itag) {
        using Idx = typename decltype(itag)::type;
        one_hot_kernel<V, Idx><<<blocks_for(n), kBlock, 0, stream>>>(
            static_cast<V*>(out), static_cast<const V*>(values), static_cast<const Idx*>(indices), n, m);
        return cudaGetLastError();
      });
    } else {
      return cudaErrorInvalidValue;
    }
  });
}

}  // namespace sy::cuda

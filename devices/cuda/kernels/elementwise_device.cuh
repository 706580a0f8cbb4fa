// Device-side helpers shared by the elementwise .cu files: the type
// dispatcher, element conversions with the CPU family's semantics, float/
// double math overloads, broadcast offsets and the launch geometry.
// nvcc only; no project headers.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "devices/cuda/kernels/elementwise_launch.h"
#include "devices/host_device.h"

namespace sy::cuda::ew {

template <typename T>
struct Tag {
  using type = T;
};

template <typename T>
inline constexpr bool kIsHalf = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

// Arithmetic runs in float for the 16-bit float types, natively otherwise
// (the CPU kernels' Compute<T>).
template <typename T>
using Calc = std::conditional_t<kIsHalf<T>, float, T>;

// Sums and statistics of the norm and pooling kernels: double for double,
// float for every other type (16-bit floats and 8-bit integers included),
// as the CPU's norm and pooling kernels accumulate.
template <typename T>
using Accum = std::conditional_t<std::is_same_v<T, double>, double, float>;

// Every element type with its ONNX code, for the dispatcher.
#define SY_EW_ALL_TYPES(X)                                                                              \
  X(1, float) X(2, uint8_t) X(3, int8_t) X(4, uint16_t) X(5, int16_t) X(6, int32_t) X(7, int64_t)        \
  X(9, bool) X(10, __half) X(11, double) X(12, uint32_t) X(13, uint64_t) X(16, __nv_bfloat16)

// Calls fn(Tag<T>{}) for the type with code `t` if its bit is in kMask;
// cudaErrorNotSupported otherwise. Only the types in kMask are instantiated.
template <uint32_t kMask, typename Fn>
cudaError_t visit(int t, Fn&& fn) {
  switch (t) {
#define SY_EW_CASE(code, T)                                 \
  case code:                                                \
    if constexpr (((kMask >> (code)) & 1u) != 0) return fn(Tag<T>{}); \
    break;
    SY_EW_ALL_TYPES(SY_EW_CASE)
#undef SY_EW_CASE
    default:
      break;
  }
  return cudaErrorNotSupported;
}

// Calls f(Tag<T>{}) with the unsigned type of `unit` bytes (uint4 for 16).
template <typename F>
cudaError_t by_unit(int unit, F&& f) {
  switch (unit) {
    case 1: return f(Tag<uint8_t>{});
    case 2: return f(Tag<uint16_t>{});
    case 4: return f(Tag<uint32_t>{});
    case 8: return f(Tag<uint64_t>{});
    case 16: return f(Tag<uint4>{});
    default: return cudaErrorInvalidValue;
  }
}

// ---- conversions --------------------------------------------------------------

template <typename T>
__device__ __forceinline__ float half_to_float(T v) {
  if constexpr (std::is_same_v<T, __half>)
    return __half2float(v);
  else
    return __bfloat162float(v);
}

template <typename T>
__device__ __forceinline__ T float_to_half(float f) {
  if constexpr (std::is_same_v<T, __half>)
    return __float2half_rn(f);
  else
    return __float2bfloat16_rn(f);
}

// Mirrors elementwise::cvt (devices/cpu/kernels/elementwise_common.h): the
// conversions a plain cast leaves undefined (NaN or out-of-range float to
// integer) get the CPU kernels' results.
template <typename To, typename From>
__device__ __forceinline__ To cvt(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (kIsHalf<From>) {
    return cvt<To>(half_to_float(v));
  } else if constexpr (kIsHalf<To>) {
    if constexpr (std::is_same_v<From, bool>)
      return float_to_half<To>(v ? 1.0f : 0.0f);
    else if constexpr (std::is_same_v<From, double>)
      return float_to_half<To>(float_round_to_odd(v));
    else
      return float_to_half<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    if (isnan(v)) return To(0);
    if constexpr (std::is_same_v<To, uint64_t>) {
      if (v >= From(0) && v < From(18446744073709551616.0)) return static_cast<uint64_t>(v);
    }
    // Through int64 then truncate: the wrap-around numpy shows on x86.
    if (v >= From(-9223372036854775808.0) && v < From(9223372036854775808.0))
      return static_cast<To>(static_cast<int64_t>(v));
    return static_cast<To>(static_cast<int64_t>(INT64_MIN));
  } else {
    return static_cast<To>(v);
  }
}

// ---- math overloads -----------------------------------------------------------
// Explicit float/double forms so float math never silently runs in double.

#define SY_EW_MATH1(name)                                          \
  template <typename C>                                            \
  __device__ __forceinline__ C m_##name(C x) {                     \
    if constexpr (std::is_same_v<C, float>)                        \
      return name##f(x);                                           \
    else                                                           \
      return name(x);                                              \
  }
SY_EW_MATH1(sqrt)
SY_EW_MATH1(exp)
SY_EW_MATH1(expm1)
SY_EW_MATH1(log)
SY_EW_MATH1(log1p)
SY_EW_MATH1(floor)
SY_EW_MATH1(ceil)
SY_EW_MATH1(rint)
SY_EW_MATH1(sin)
SY_EW_MATH1(cos)
SY_EW_MATH1(tan)
SY_EW_MATH1(asin)
SY_EW_MATH1(acos)
SY_EW_MATH1(atan)
SY_EW_MATH1(sinh)
SY_EW_MATH1(cosh)
SY_EW_MATH1(asinh)
SY_EW_MATH1(acosh)
SY_EW_MATH1(atanh)
SY_EW_MATH1(tanh)
SY_EW_MATH1(erf)
SY_EW_MATH1(fabs)
#undef SY_EW_MATH1

template <typename C>
__device__ __forceinline__ C m_fmod(C a, C b) {
  if constexpr (std::is_same_v<C, float>)
    return fmodf(a, b);
  else
    return fmod(a, b);
}

// std::min / std::max semantics (the CPU kernels use them): with a NaN the
// first argument is returned.
template <typename C>
__device__ __forceinline__ C s_min(C a, C b) { return (b < a) ? b : a; }
template <typename C>
__device__ __forceinline__ C s_max(C a, C b) { return (a < b) ? b : a; }

template <typename C>
__device__ __forceinline__ bool is_nan(C x) {
  if constexpr (std::is_floating_point_v<C>)
    return isnan(x);
  else
    return false;
}

// Wrapping integer arithmetic: the operands are widened to an unsigned type at
// least as wide as int, so no signed overflow and no promotion to int occurs.
template <typename C>
using Wide = std::conditional_t<sizeof(C) <= 4, uint32_t, uint64_t>;

template <typename C>
__device__ __forceinline__ C wrap_neg(C a) {
  if constexpr (std::is_integral_v<C>)
    return static_cast<C>(Wide<C>(0) - static_cast<Wide<C>>(a));
  else
    return -a;
}

// ---- workspaces ---------------------------------------------------------------

// Scratch carved out of one workspace allocation: each piece starts on a
// 256-byte boundary, as CUB wants its temporary storage.
constexpr size_t align_up(size_t n) { return (n + 255) & ~size_t{255}; }

template <typename T>
T* at(void* base, size_t offset) {
  return reinterpret_cast<T*>(static_cast<char*>(base) + offset);
}

// ---- launch geometry and broadcast offsets ------------------------------------

constexpr unsigned kBlock = 256;

// Same policy as cuda::grid_for (cuda_launch.h, not includable here): at least
// one block, capped; kernels use grid-stride loops.
inline unsigned grid_for(int64_t n) {
  int64_t g = (n + kBlock - 1) / kBlock;
  if (g < 1) g = 1;
  if (g > 65535LL * 32) g = 65535LL * 32;
  return static_cast<unsigned>(g);
}

__device__ __forceinline__ int64_t first_index() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t grid_stride() { return static_cast<int64_t>(gridDim.x) * blockDim.x; }

// Element offsets of the first N operands of m for output index i. The loops
// are unrolled over kEwMaxRank with guards so m stays in parameter space
// (indexing it with a runtime value would copy it to local memory).
template <int N>
__device__ __forceinline__ void offsets(const EwBroadcast& m, int64_t i, int64_t (&off)[N]) {
  if (m.rank == 1) {
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] = i * m.strides[k][0];
    return;
  }
  if (m.small) {
    uint32_t rem = static_cast<uint32_t>(i);
    uint32_t o[N];
#pragma unroll
    for (int k = 0; k < N; ++k) o[k] = 0;
#pragma unroll
    for (int d = kEwMaxRank - 1; d >= 1; --d) {
      if (d < m.rank) {
        const uint32_t dim = static_cast<uint32_t>(m.dims[d]);
        const uint32_t q = rem / dim;
        const uint32_t r = rem - q * dim;
#pragma unroll
        for (int k = 0; k < N; ++k) o[k] += r * static_cast<uint32_t>(m.strides[k][d]);
        rem = q;
      }
    }
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] = static_cast<int64_t>(o[k] + rem * static_cast<uint32_t>(m.strides[k][0]));
    return;
  }
  int64_t rem = i;
#pragma unroll
  for (int k = 0; k < N; ++k) off[k] = 0;
#pragma unroll
  for (int d = kEwMaxRank - 1; d >= 1; --d) {
    if (d < m.rank) {
      const int64_t q = rem / m.dims[d];
      const int64_t r = rem - q * m.dims[d];
#pragma unroll
      for (int k = 0; k < N; ++k) off[k] += r * m.strides[k][d];
      rem = q;
    }
  }
#pragma unroll
  for (int k = 0; k < N; ++k) off[k] += rem * m.strides[k][0];
}

}  // namespace sy::cuda::ew

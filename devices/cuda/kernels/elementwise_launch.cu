// CUDA elementwise kernels, part 1: the broadcasting binary ops, Pow, Mean's
// final division and Where. Every binary op is a functor on compute-type
// values mirroring the CPU functor of the same name
// (devices/cpu/kernels/elementwise_kernels.cc) and runs through the one
// broadcast kernel below.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "devices/cuda/kernels/elementwise_device.cuh"
#include "devices/cuda/kernels/elementwise_launch.h"

namespace sy::cuda {
namespace ew {
namespace {

// ---- functors on compute values ---------------------------------------------

struct ArithBase {
  static constexpr bool kBoolOut = false;
};
struct BoolOutBase {
  static constexpr bool kBoolOut = true;
};

struct AddF : ArithBase {
  template <typename C>
  __device__ C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>)
      return static_cast<C>(static_cast<Wide<C>>(a) + static_cast<Wide<C>>(b));
    else
      return a + b;
  }
};
struct SubF : ArithBase {
  template <typename C>
  __device__ C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>)
      return static_cast<C>(static_cast<Wide<C>>(a) - static_cast<Wide<C>>(b));
    else
      return a - b;
  }
};
struct MulF : ArithBase {
  template <typename C>
  __device__ C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>)
      return static_cast<C>(static_cast<Wide<C>>(a) * static_cast<Wide<C>>(b));
    else
      return a * b;
  }
};
struct DivF : ArithBase {
  template <typename C>
  __device__ C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      // Integer division by zero (or INT_MIN / -1) has no defined result:
      // give the CPU kernel's.
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<C>)
        if (b == -1) return wrap_neg(a);
      return static_cast<C>(a / b);
    } else {
      return a / b;
    }
  }
};

// fmod = 0: result takes the divisor's sign (Python); fmod = 1: C fmod.
template <bool kFmod>
struct ModF : ArithBase {
  template <typename C>
  __device__ C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<C>) {
        if (b == -1) return 0;
        C r = static_cast<C>(a % b);
        if (!kFmod && r != 0 && ((r < 0) != (b < 0))) r = static_cast<C>(r + b);
        return r;
      } else {
        return static_cast<C>(a % b);
      }
    } else {
      C r = m_fmod(a, b);
      if (!kFmod && r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    }
  }
};

struct PReluF : ArithBase {
  template <typename C>
  __device__ C operator()(C x, C slope) const {
    if constexpr (std::is_unsigned_v<C>)
      return x;
    else
      return x < C(0) ? MulF{}(x, slope) : x;
  }
};

// NaN propagates like np.maximum.
template <bool kMax>
struct MaxMinF : ArithBase {
  template <typename C>
  __device__ C operator()(C a, C b) const {
    if (is_nan(a)) return a;
    if (is_nan(b)) return b;
    if constexpr (kMax)
      return a < b ? b : a;
    else
      return b < a ? b : a;
  }
};

template <int K>  // 0 and, 1 or, 2 xor
struct LogicF : BoolOutBase {
  template <typename C>
  __device__ bool operator()(C a, C b) const {
    if constexpr (K == 0) return a && b;
    if constexpr (K == 1) return a || b;
    return a != b;
  }
};

template <int K>  // 0 ==, 1 <, 2 <=, 3 >, 4 >=
struct CompareF : BoolOutBase {
  template <typename C>
  __device__ bool operator()(C a, C b) const {
    if constexpr (K == 0) return a == b;
    if constexpr (K == 1) return a < b;
    if constexpr (K == 2) return a <= b;
    if constexpr (K == 3) return a > b;
    return a >= b;
  }
};

template <int K>  // 0 and, 1 or, 2 xor
struct BitwiseF : ArithBase {
  template <typename C>
  __device__ C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      if constexpr (K == 0) return static_cast<C>(a & b);
      if constexpr (K == 1) return static_cast<C>(a | b);
      if constexpr (K == 2) return static_cast<C>(a ^ b);
    }
    return a;
  }
};

template <bool kLeft>
struct ShiftF : ArithBase {
  template <typename C>
  __device__ C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      if (b >= static_cast<C>(sizeof(C) * 8)) return 0;
      const Wide<C> w = static_cast<Wide<C>>(a);
      return static_cast<C>(kLeft ? (w << b) : (w >> b));
    } else {
      return a;
    }
  }
};

// Raw elements in, raw element out, arithmetic in the compute type.
template <typename F, typename T, typename O>
struct Lift {
  F f;
  __device__ O operator()(T a, T b) const { return cvt<O>(f(cvt<Calc<T>>(a), cvt<Calc<T>>(b))); }
};

// ---- the broadcast kernels ------------------------------------------------------

// No __restrict__: Max/Min/Sum/Mean fold into their output, so `a` may
// alias `out` (same index, so each thread reads before it writes).
template <typename F, typename O, typename A, typename B>
__global__ void broadcast2_kernel(F f, const A* a, const B* b, O* out, EwBroadcast m) {
  for (int64_t i = first_index(); i < m.numel; i += grid_stride()) {
    int64_t off[2];
    offsets<2>(m, i, off);
    out[i] = f(a[off[0]], b[off[1]]);
  }
}

template <typename F, typename O, typename A, typename B>
cudaError_t launch2(F f, const A* a, const B* b, O* out, const EwBroadcast& m, cudaStream_t s) {
  if (m.numel <= 0) return cudaSuccess;
  broadcast2_kernel<F, O, A, B><<<grid_for(m.numel), kBlock, 0, s>>>(f, a, b, out, m);
  return cudaGetLastError();
}

template <typename Op, uint32_t kMask>
cudaError_t run_binary(Op op, int type, const void* a, const void* b, void* out, const EwBroadcast& m,
                       cudaStream_t s) {
  return visit<kMask>(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using O = std::conditional_t<Op::kBoolOut, bool, T>;
    return launch2(Lift<Op, T, O>{op}, static_cast<const T*>(a), static_cast<const T*>(b), static_cast<O*>(out),
                   m, s);
  });
}

// ---- Pow -------------------------------------------------------------------------

constexpr uint64_t kNoSqrt = ~uint64_t{0};

// The square root of v if v is a perfect square, else kNoSqrt. The double
// sqrt is within one of the integer root; the check is exact.
__device__ __forceinline__ uint64_t exact_sqrt(uint64_t v) {
  const uint64_t s = static_cast<uint64_t>(sqrt(static_cast<double>(v)));
  for (uint64_t t = s > 0 ? s - 1 : 0; t <= s + 1; ++t)
    if (t <= 0xFFFFFFFFull && t * t == v) return t;
  return kNoSqrt;
}

template <typename C, typename E>
__device__ __forceinline__ C pow_value(C base, E e) {
  if constexpr (std::is_integral_v<C> && std::is_integral_v<E>) {
    if constexpr (std::is_signed_v<E>) {
      if (e < 0) return cvt<C>(pow(static_cast<double>(base), static_cast<double>(e)));
    }
    // Exact integer power by squaring (wraps like numpy on overflow).
    using U = Wide<C>;
    U result = 1, b = static_cast<U>(base);
    auto n = static_cast<std::make_unsigned_t<E>>(e);
    while (n) {
      if (n & 1) result = static_cast<U>(result * b);
      b = static_cast<U>(b * b);
      n >>= 1;
    }
    return static_cast<C>(result);
  } else if constexpr (std::is_same_v<C, float> && std::is_same_v<E, float>) {
    return powf(base, e);
  } else if constexpr (std::is_integral_v<C> && std::is_floating_point_v<E>) {
    // Integer base, float exponent (Pow(int32, float32)): the result is
    // truncated to C, so it must round like the CPU kernel's, which converts
    // glibc's pow (exact whenever the power is a double, else correctly
    // rounded in all but exact-midpoint cases). CUDA's double pow is only
    // documented to 2 ulp, and libdevice's gives 3^1 = 2.9999999999999996,
    // 2^11 = 2047.9999999999998 and 9^0.5 = 2.9999999999999996, which would
    // truncate to 2, 2047 and 2. So when the power is an integer below 2^63,
    // compute it exactly in integers and round it to double as the CPU's
    // pow does (wrap-around to C included). Every double exponent is
    // m / 2^q; base^(m / 2^q) is an integer only if base is a perfect 2^q-th
    // power (else it is irrational), which for base >= 2 needs q <= 5: take
    // exact square roots while the scaled exponent is fractional. A negative
    // base with a fractional exponent gives NaN and skips this.
    const double ed = static_cast<double>(e);
    const double r = pow(static_cast<double>(base), ed);
    if (ed >= 0.0 && ed < 9.2e18 && fabs(r) < 9.2e18) {  // |power| < 2^63 even 2 ulp off
      uint64_t root = static_cast<uint64_t>(base);
      double m = ed;
      for (int q = 0; q <= 5; ++q) {
        if (floor(m) == m) {
          uint64_t result = 1, b = root;
          uint64_t n = static_cast<uint64_t>(m);
          while (n) {
            if (n & 1) result *= b;
            b *= b;
            n >>= 1;
          }
          return cvt<C>(static_cast<double>(static_cast<int64_t>(result)));
        }
        root = exact_sqrt(root);
        if (root == kNoSqrt) break;
        m *= 2.0;
      }
    }
    return cvt<C>(r);
  } else {
    return cvt<C>(pow(static_cast<double>(base), static_cast<double>(e)));
  }
}

template <typename T, typename E>
struct PowF {
  __device__ T operator()(T x, E y) const { return cvt<T>(pow_value(cvt<Calc<T>>(x), cvt<Calc<E>>(y))); }
};

// Integers divide by the count in 64 bits, as the CPU kernel does: as a T
// it would wrap (uint8 256 -> 0, int8 128 -> -128).
template <typename T>
__global__ void div_count_kernel(T* data, int64_t n, int64_t count) {
  for (int64_t i = first_index(); i < n; i += grid_stride()) {
    if constexpr (std::is_integral_v<T>) {
      using W = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
      data[i] = static_cast<T>(static_cast<W>(data[i]) / static_cast<W>(count));
    } else {
      data[i] = cvt<T>(cvt<Calc<T>>(data[i]) / static_cast<Calc<T>>(count));
    }
  }
}

// ---- Where -----------------------------------------------------------------------

template <typename T>
__global__ void where_kernel(const bool* __restrict__ c, const T* __restrict__ x, const T* __restrict__ y,
                             T* __restrict__ out, EwBroadcast m) {
  for (int64_t i = first_index(); i < m.numel; i += grid_stride()) {
    int64_t off[3];
    offsets<3>(m, i, off);
    out[i] = c[off[0]] ? x[off[1]] : y[off[2]];
  }
}

}  // namespace
}  // namespace ew

cudaError_t launch_binary(EwBinary op, int type, const void* a, const void* b, void* out, const EwBroadcast& m,
                          cudaStream_t stream) {
  using namespace ew;
#define SY_EW_BIN(E, F) \
  case EwBinary::E:     \
    return run_binary<F, ew_binary_types(EwBinary::E)>(F{}, type, a, b, out, m, stream);
  switch (op) {
    SY_EW_BIN(kAdd, AddF)
    SY_EW_BIN(kSub, SubF)
    SY_EW_BIN(kMul, MulF)
    SY_EW_BIN(kDiv, DivF)
    SY_EW_BIN(kMod, ModF<false>)
    SY_EW_BIN(kFmod, ModF<true>)
    SY_EW_BIN(kPRelu, PReluF)
    SY_EW_BIN(kMax, MaxMinF<true>)
    SY_EW_BIN(kMin, MaxMinF<false>)
    SY_EW_BIN(kAnd, LogicF<0>)
    SY_EW_BIN(kOr, LogicF<1>)
    SY_EW_BIN(kXor, LogicF<2>)
    SY_EW_BIN(kEqual, CompareF<0>)
    SY_EW_BIN(kLess, CompareF<1>)
    SY_EW_BIN(kLessOrEqual, CompareF<2>)
    SY_EW_BIN(kGreater, CompareF<3>)
    SY_EW_BIN(kGreaterOrEqual, CompareF<4>)
    SY_EW_BIN(kBitAnd, BitwiseF<0>)
    SY_EW_BIN(kBitOr, BitwiseF<1>)
    SY_EW_BIN(kBitXor, BitwiseF<2>)
    SY_EW_BIN(kShiftLeft, ShiftF<true>)
    SY_EW_BIN(kShiftRight, ShiftF<false>)
  }
#undef SY_EW_BIN
  return cudaErrorNotSupported;
}

cudaError_t launch_pow(int base_type, int exp_type, const void* x, const void* y, void* out, const EwBroadcast& m,
                       cudaStream_t stream) {
  using namespace ew;
  return visit<kEwPowTypes>(base_type, [&](auto tag) -> cudaError_t {
    using T = typename decltype(tag)::type;
    const T* px = static_cast<const T*>(x);
    T* po = static_cast<T*>(out);
    if (exp_type == base_type) return launch2(PowF<T, T>{}, px, static_cast<const T*>(y), po, m, stream);
    if (exp_type == ew_type::kInt64)
      return launch2(PowF<T, int64_t>{}, px, static_cast<const int64_t*>(y), po, m, stream);
    if (exp_type == ew_type::kDouble)
      return launch2(PowF<T, double>{}, px, static_cast<const double*>(y), po, m, stream);
    return cudaErrorNotSupported;
  });
}

cudaError_t launch_div_count(int type, void* data, int64_t n, int64_t count, cudaStream_t stream) {
  using namespace ew;
  if (n <= 0) return cudaSuccess;
  return visit<kEwNumeric>(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    div_count_kernel<T><<<grid_for(n), kBlock, 0, stream>>>(static_cast<T*>(data), n, count);
    return cudaGetLastError();
  });
}

cudaError_t launch_where(int elem_size, const bool* cond, const void* x, const void* y, void* out,
                         const EwBroadcast& m, cudaStream_t stream) {
  using namespace ew;
  if (m.numel <= 0) return cudaSuccess;
  auto go = [&](auto tag) {
    using T = typename decltype(tag)::type;
    where_kernel<T><<<grid_for(m.numel), kBlock, 0, stream>>>(cond, static_cast<const T*>(x),
                                                              static_cast<const T*>(y), static_cast<T*>(out), m);
    return cudaGetLastError();
  };
  switch (elem_size) {
    case 1: return go(Tag<uint8_t>{});
    case 2: return go(Tag<uint16_t>{});
    case 4: return go(Tag<uint32_t>{});
    case 8: return go(Tag<uint64_t>{});
    default: return cudaErrorNotSupported;
  }
}

}  // namespace sy::cuda

// CUDA elementwise kernels, part 2: unary math and activations, and Clip.
// Each op mirrors the CPU functor of the same name
// (devices/cpu/kernels/elementwise_unary.cc), formula for formula, so both
// backends agree up to the math library's last bits.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "devices/cuda/kernels/elementwise_device.cuh"
#include "devices/cuda/kernels/elementwise_launch.h"

namespace sy::cuda {
namespace ew {
namespace {

// One functor for all unary ops: the op is a template parameter, the
// attributes travel in p.
template <EwUnary kOp>
struct UnaryF {
  EwUnaryParams p;

  template <typename C>
  __device__ auto operator()(C x) const {
    if constexpr (kOp == EwUnary::kIsNaN) {
      return static_cast<bool>(is_nan(x));
    } else if constexpr (kOp == EwUnary::kIsInf) {
      return static_cast<bool>(isinf(x) && (x > C(0) ? p.detect_positive : p.detect_negative));
    } else {
      return value(x);
    }
  }

  template <typename C>
  __device__ C value(C x) const {
    constexpr EwUnary op = kOp;
    if constexpr (op == EwUnary::kAbs) {
      if constexpr (std::is_unsigned_v<C>)
        return x;
      else if constexpr (std::is_integral_v<C>)
        return x < 0 ? wrap_neg(x) : x;
      else
        return m_fabs(x);
    } else if constexpr (op == EwUnary::kNeg) {
      return wrap_neg(x);
    } else if constexpr (op == EwUnary::kReciprocal) {
      return C(1) / x;
    } else if constexpr (op == EwUnary::kSqrt) {
      return m_sqrt(x);
    } else if constexpr (op == EwUnary::kExp) {
      return m_exp(x);
    } else if constexpr (op == EwUnary::kLog) {
      return m_log(x);
    } else if constexpr (op == EwUnary::kFloor) {
      return m_floor(x);
    } else if constexpr (op == EwUnary::kCeil) {
      return m_ceil(x);
    } else if constexpr (op == EwUnary::kRound) {
      return m_rint(x);  // round half to even
    } else if constexpr (op == EwUnary::kSin) {
      return m_sin(x);
    } else if constexpr (op == EwUnary::kCos) {
      return m_cos(x);
    } else if constexpr (op == EwUnary::kTan) {
      return m_tan(x);
    } else if constexpr (op == EwUnary::kAsin) {
      return m_asin(x);
    } else if constexpr (op == EwUnary::kAcos) {
      return m_acos(x);
    } else if constexpr (op == EwUnary::kAtan) {
      return m_atan(x);
    } else if constexpr (op == EwUnary::kSinh) {
      return m_sinh(x);
    } else if constexpr (op == EwUnary::kCosh) {
      return m_cosh(x);
    } else if constexpr (op == EwUnary::kAsinh) {
      return m_asinh(x);
    } else if constexpr (op == EwUnary::kAcosh) {
      return m_acosh(x);
    } else if constexpr (op == EwUnary::kAtanh) {
      return m_atanh(x);
    } else if constexpr (op == EwUnary::kTanh) {
      return m_tanh(x);
    } else if constexpr (op == EwUnary::kSigmoid) {
      // Split by sign so exp never overflows into inf/inf.
      return x >= C(0) ? C(1) / (C(1) + m_exp(-x)) : m_exp(x) / (C(1) + m_exp(x));
    } else if constexpr (op == EwUnary::kSoftsign) {
      return x / (C(1) + m_fabs(x));
    } else if constexpr (op == EwUnary::kSoftplus) {
      return softplus(x);
    } else if constexpr (op == EwUnary::kMish) {
      return x * m_tanh(softplus(x));
    } else if constexpr (op == EwUnary::kGeluErf) {
      return C(0.5) * x * (C(1) + m_erf(x * C(0.7071067811865476)));
    } else if constexpr (op == EwUnary::kGeluTanh) {
      return C(0.5) * x * (C(1) + m_tanh(C(0.7978845608028654) * (x + C(0.044715) * x * x * x)));
    } else if constexpr (op == EwUnary::kHardSwish) {
      return x * s_max(C(0), s_min(C(1), x / C(6) + C(0.5)));
    } else if constexpr (op == EwUnary::kErf) {
      if constexpr (std::is_floating_point_v<C>)
        return m_erf(x);
      else
        return cvt<C>(erf(static_cast<double>(x)));
    } else if constexpr (op == EwUnary::kSign) {
      if constexpr (std::is_unsigned_v<C>) {
        return x > C(0) ? C(1) : C(0);
      } else {
        if (is_nan(x)) return x;
        return x > C(0) ? C(1) : (x < C(0) ? static_cast<C>(-1) : C(0));
      }
    } else if constexpr (op == EwUnary::kNot) {
      return !x;
    } else if constexpr (op == EwUnary::kBitNot) {
      if constexpr (std::is_integral_v<C>)
        return static_cast<C>(~x);
      else
        return x;
    } else if constexpr (op == EwUnary::kRelu) {
      return x < C(0) ? C(0) : x;  // NaN stays NaN, as on the CPU
    } else if constexpr (op == EwUnary::kLeakyRelu) {
      return x < C(0) ? C(p.alpha) * x : x;
    } else if constexpr (op == EwUnary::kElu) {
      return x < C(0) ? C(p.alpha) * m_expm1(x) : x;
    } else if constexpr (op == EwUnary::kSelu) {
      return x <= C(0) ? C(p.gamma) * (C(p.alpha) * m_exp(x) - C(p.alpha)) : C(p.gamma) * x;
    } else if constexpr (op == EwUnary::kCelu) {
      return s_max(x, C(0)) + s_min(C(p.alpha) * m_expm1(x / C(p.alpha)), C(0));
    } else if constexpr (op == EwUnary::kHardSigmoid) {
      return s_max(s_min(C(p.alpha) * x + C(p.beta), C(1)), C(0));
    } else if constexpr (op == EwUnary::kThresholdedRelu) {
      return x > C(p.alpha) ? x : C(0);
    } else if constexpr (op == EwUnary::kShrink) {
      // Compare in double so integer inputs follow the float thresholds.
      const double v = static_cast<double>(x);
      const double lambd = static_cast<double>(p.alpha);
      if (v < -lambd) return cvt<C>(v + static_cast<double>(p.beta));
      if (v > lambd) return cvt<C>(v - static_cast<double>(p.beta));
      return C(0);
    } else {
      return x;
    }
  }

  template <typename C>
  __device__ static C softplus(C x) {
    return x > C(0) ? x + m_log1p(m_exp(-x)) : m_log1p(m_exp(x));
  }
};

template <typename F, typename T, typename O>
__global__ void unary_kernel(F f, const T* __restrict__ in, O* __restrict__ out, int64_t n) {
  for (int64_t i = first_index(); i < n; i += grid_stride()) out[i] = cvt<O>(f(cvt<Calc<T>>(in[i])));
}

template <EwUnary kOp>
cudaError_t run_unary(int type, const void* in, void* out, int64_t n, const EwUnaryParams& p, cudaStream_t s) {
  return visit<ew_unary_types(kOp)>(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using O = std::conditional_t<ew_unary_bool_out(kOp), bool, T>;
    unary_kernel<UnaryF<kOp>, T, O>
        <<<grid_for(n), kBlock, 0, s>>>(UnaryF<kOp>{p}, static_cast<const T*>(in), static_cast<O*>(out), n);
    return cudaGetLastError();
  });
}

template <typename T>
__global__ void clip_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t n, Calc<T> lo, Calc<T> hi) {
  for (int64_t i = first_index(); i < n; i += grid_stride()) {
    Calc<T> v = cvt<Calc<T>>(in[i]);
    v = v < lo ? lo : v;  // NaN passes through both comparisons
    v = hi < v ? hi : v;
    out[i] = cvt<T>(v);
  }
}

}  // namespace
}  // namespace ew

cudaError_t launch_unary(EwUnary op, int type, const void* in, void* out, int64_t n, const EwUnaryParams& p,
                         cudaStream_t stream) {
  using namespace ew;
  if (n <= 0) return cudaSuccess;
#define SY_EW_UN(E) \
  case EwUnary::E:  \
    return run_unary<EwUnary::E>(type, in, out, n, p, stream);
  switch (op) {
    SY_EW_UN(kAbs) SY_EW_UN(kNeg) SY_EW_UN(kReciprocal) SY_EW_UN(kSqrt) SY_EW_UN(kExp) SY_EW_UN(kLog)
    SY_EW_UN(kFloor) SY_EW_UN(kCeil) SY_EW_UN(kRound) SY_EW_UN(kSin) SY_EW_UN(kCos) SY_EW_UN(kTan)
    SY_EW_UN(kAsin) SY_EW_UN(kAcos) SY_EW_UN(kAtan) SY_EW_UN(kSinh) SY_EW_UN(kCosh) SY_EW_UN(kAsinh)
    SY_EW_UN(kAcosh) SY_EW_UN(kAtanh) SY_EW_UN(kTanh) SY_EW_UN(kSigmoid) SY_EW_UN(kSoftsign)
    SY_EW_UN(kSoftplus) SY_EW_UN(kMish) SY_EW_UN(kGeluErf) SY_EW_UN(kGeluTanh) SY_EW_UN(kHardSwish) SY_EW_UN(kErf)
    SY_EW_UN(kSign) SY_EW_UN(kNot)
    SY_EW_UN(kBitNot) SY_EW_UN(kIsNaN) SY_EW_UN(kIsInf) SY_EW_UN(kRelu) SY_EW_UN(kLeakyRelu) SY_EW_UN(kElu)
    SY_EW_UN(kSelu) SY_EW_UN(kCelu) SY_EW_UN(kHardSigmoid) SY_EW_UN(kThresholdedRelu) SY_EW_UN(kShrink)
  }
#undef SY_EW_UN
  return cudaErrorNotSupported;
}

cudaError_t launch_clip(int type, const void* in, void* out, int64_t n, EwScalar lo, EwScalar hi,
                        cudaStream_t stream) {
  using namespace ew;
  if (n <= 0) return cudaSuccess;
  return visit<kEwNumeric>(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = Calc<T>;
    static_assert(sizeof(C) <= sizeof(lo.bytes));
    C l, h;
    std::memcpy(&l, lo.bytes, sizeof(C));
    std::memcpy(&h, hi.bytes, sizeof(C));
    clip_kernel<T><<<grid_for(n), kBlock, 0, stream>>>(static_cast<const T*>(in), static_cast<T*>(out), n, l, h);
    return cudaGetLastError();
  });
}

}  // namespace sy::cuda

// SY_HOST_DEVICE marks a function that both the host compiler and nvcc's
// device pass compile: plain C++ shared by a CPU kernel and its CUDA twin
// (an attention tile's rows, a recurrent cell's activations), so the two
// backends run one definition instead of two copies that can drift apart.
#pragma once

#include <cstdint>
#include <cstring>

#ifdef __CUDACC__
#define SY_HOST_DEVICE __host__ __device__
#else
#define SY_HOST_DEVICE
#endif

namespace sy {

// std::clamp for code compiled for both: a NaN v stays NaN.
template <typename T>
SY_HOST_DEVICE T hd_clamp(T v, T lo, T hi) {
  return v < lo ? lo : (hi < v ? hi : v);
}

// v as a float rounded to odd (toward zero, then the last bit set when
// inexact). Rounded again to nearest, into float16 or bfloat16, that gives
// v correctly rounded, as the float keeps more than two bits past theirs;
// double -> float -> float16 rounded twice (65519.99 gave inf, not 65504).
SY_HOST_DEVICE inline float float_round_to_odd(double v) {
  const float f = static_cast<float>(v);
  if (static_cast<double>(f) == v || v != v) return f;
  uint32_t b;
#ifdef __CUDA_ARCH__
  b = __float_as_uint(f);
#else
  std::memcpy(&b, &f, sizeof b);
#endif
  const double af = f < 0 ? -static_cast<double>(f) : static_cast<double>(f), av = v < 0 ? -v : v;
  if (af > av) --b;  // the truncation (FLT_MAX for an overflow)
  b |= 1u;
#ifdef __CUDA_ARCH__
  return __uint_as_float(b);
#else
  float r;
  std::memcpy(&r, &b, sizeof r);
  return r;
#endif
}

}  // namespace sy

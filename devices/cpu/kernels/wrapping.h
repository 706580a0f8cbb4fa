// Arithmetic as ONNX and NumPy define it where C++'s differs. Integer
// arithmetic wraps around on overflow, as two's-complement hardware, numpy
// and ONNX Runtime do, instead of being undefined behaviour (which UBSan
// reports and an optimiser may exploit); max and min propagate NaN. Narrow types compute
// in unsigned int: uint16 * uint16 would otherwise promote to a signed int
// that can overflow. The conversion back is modular (C++20). Other types
// (floating point, the half types' float) get the ordinary operation.
#pragma once

#include <type_traits>

namespace sy {

template <typename T>
constexpr bool kWraps = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <typename T>
using WrapUnsigned = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <typename T>
constexpr T wrap_add(T a, T b) {
  if constexpr (kWraps<T>) return static_cast<T>(static_cast<WrapUnsigned<T>>(a) + static_cast<WrapUnsigned<T>>(b));
  else return a + b;
}

template <typename T>
constexpr T wrap_sub(T a, T b) {
  if constexpr (kWraps<T>) return static_cast<T>(static_cast<WrapUnsigned<T>>(a) - static_cast<WrapUnsigned<T>>(b));
  else return a - b;
}

template <typename T>
constexpr T wrap_mul(T a, T b) {
  if constexpr (kWraps<T>) return static_cast<T>(static_cast<WrapUnsigned<T>>(a) * static_cast<WrapUnsigned<T>>(b));
  else return a * b;
}

template <typename T>
constexpr T wrap_neg(T a) {
  if constexpr (kWraps<T>) return static_cast<T>(WrapUnsigned<T>{0} - static_cast<WrapUnsigned<T>>(a));
  else return -a;
}

// The larger and the smaller of a and v, NaN where either is, as NumPy's
// maximum and minimum (std::max and std::min return their first argument
// against a NaN). One unconditional select, which vectorises.
template <typename T>
constexpr T max_nan(T a, T v) {
  return v > a || v != v ? v : a;
}
template <typename T>
constexpr T min_nan(T a, T v) {
  return v < a || v != v ? v : a;
}

}  // namespace sy

// GridSample's per-axis arithmetic, shared by the CPU kernel
// (image_kernels.cc) and the CUDA one (devices/cuda/kernels/
// grid_sample_launch.cu): denormalising a grid coordinate, rounding and
// padding it, and the taps (element indices and weights) it reads along one
// axis. Plain C++17 with no project types, so nvcc compiles it into the
// device kernel and both backends share one definition of each rule (see
// image_kernels.cc for the rules themselves). A is the arithmetic type:
// float, or double for double tensors.
#pragma once

#include <math.h>

#include <cstdint>

#include "devices/host_device.h"

namespace sy::grid_sample {

enum class SampleMode : int32_t { kLinear, kNearest, kCubic };
enum class PaddingMode : int32_t { kZeros, kBorder, kReflection };

// Reflects x into [lo, hi] as the reference's _gs_reflect does. Computed in
// double. Non-finite input gives NaN; an empty range gives lo.
SY_HOST_DEVICE inline double reflect(double x, double lo, double hi) {
  if (!isfinite(x)) return NAN;
  const double range = hi - lo;
  if (!(range > 0)) return lo;
  double fx = x;
  if (x < lo) {
    const double dx = lo - x;
    const double n = floor(dx / range);
    const double r = dx - n * range;
    fx = fmod(n, 2.0) == 0 ? lo + r : hi - r;
  } else if (x > hi) {
    const double dx = x - hi;
    const double n = floor(dx / range);
    const double r = dx - n * range;
    fx = fmod(n, 2.0) == 0 ? hi - r : lo + r;
  } else {
    return x;
  }
  return hd_clamp(fx, lo, hi);  // guards rounding for huge |x|
}

// Converts a finite coordinate to an integer index, saturating far outside
// any real tensor extent so that tap arithmetic cannot overflow.
template <typename A>
SY_HOST_DEVICE int64_t to_index(A v) {
  constexpr int64_t kLim = int64_t{1} << 40;
  if (v <= static_cast<A>(-kLim)) return -kLim;
  if (v >= static_cast<A>(kLim)) return kLim;
  return static_cast<int64_t>(v);
}

// One axis of the padding geometry.
struct Axis {
  int64_t size = 0;
  double lo = 0, hi = 0;  // border range of the coordinate

  Axis() = default;
  SY_HOST_DEVICE Axis(int64_t d, bool align_corners) : size(d) {
    lo = align_corners ? 0.0 : -0.5;
    hi = align_corners ? static_cast<double>(d) - 1.0 : static_cast<double>(d) - 0.5;
  }

  // Denormalizes, rounds (nearest, half to even) and pads a grid coordinate.
  template <typename A>
  SY_HOST_DEVICE A coordinate(A g, bool align_corners, SampleMode mode, PaddingMode pad) const {
    const A d = static_cast<A>(size);
    A x = align_corners ? (g + A(1)) / A(2) * (d - A(1)) : ((g + A(1)) * d - A(1)) / A(2);
    if (mode == SampleMode::kNearest) x = nearbyint(x);
    if (x < static_cast<A>(lo) || x > static_cast<A>(hi)) {
      if (pad == PaddingMode::kBorder)
        x = hd_clamp(x, A(0), d - A(1));
      else if (pad == PaddingMode::kReflection)
        x = static_cast<A>(reflect(static_cast<double>(x), lo, hi));
    }
    return x;
  }

  // The element index read for tap index i, or -1 for a zero (zeros padding).
  SY_HOST_DEVICE int64_t tap(int64_t i, PaddingMode pad) const {
    if (i >= 0 && i < size) return i;
    switch (pad) {
      case PaddingMode::kZeros:
        return -1;
      case PaddingMode::kBorder:
        return hd_clamp<int64_t>(i, 0, size - 1);
      case PaddingMode::kReflection: {
        const double r = reflect(static_cast<double>(i), lo, hi);
        if (isnan(r)) return -1;
        return hd_clamp<int64_t>(static_cast<int64_t>(r), 0, size - 1);
      }
    }
    return -1;
  }
};

// Keys' cubic convolution weights (alpha = -0.75) for fraction t.
template <typename A>
SY_HOST_DEVICE void cubic_coeffs(A t, A* c) {
  constexpr A kA = A(-0.75);
  const A x = t < A(0) ? -t : t;
  const A x1 = x + A(1), y = A(1) - x, y1 = A(2) - x;
  c[0] = ((kA * x1 - A(5) * kA) * x1 + A(8) * kA) * x1 - A(4) * kA;
  c[1] = ((kA + A(2)) * x - (kA + A(3))) * x * x + A(1);
  c[2] = ((kA + A(2)) * y - (kA + A(3))) * y * y + A(1);
  c[3] = ((kA * y1 - A(5) * kA) * y1 + A(8) * kA) * y1 - A(4) * kA;
}

constexpr int taps_of(SampleMode mode) {
  return mode == SampleMode::kNearest ? 1 : mode == SampleMode::kLinear ? 2 : 4;
}

// Tap indices (-1 = zero) and weights along one axis for coordinate x.
// Returns false when x is NaN (the sample is NaN).
template <typename A>
SY_HOST_DEVICE bool axis_taps(const Axis& ax, A x, SampleMode mode, PaddingMode pad, int64_t* idx, A* w) {
  if (isnan(x)) return false;
  if (isinf(x)) {
    // Only reachable with zeros padding (border clamps, reflection gives
    // NaN): every tap lies outside the input.
    for (int k = 0; k < 4; ++k) {
      idx[k] = -1;
      w[k] = A(0);
    }
    return true;
  }
  switch (mode) {
    case SampleMode::kNearest:
      idx[0] = ax.tap(to_index(x), pad);
      w[0] = A(1);
      break;
    case SampleMode::kLinear: {
      const A f = floor(x);
      const int64_t i0 = to_index(f);
      const A t = x - f;
      idx[0] = ax.tap(i0, pad);
      idx[1] = ax.tap(i0 + 1, pad);
      w[0] = A(1) - t;
      w[1] = t;
      break;
    }
    case SampleMode::kCubic: {
      const A f = floor(x);
      const int64_t i0 = to_index(f);
      cubic_coeffs(x - f, w);
      for (int k = 0; k < 4; ++k) idx[k] = ax.tap(i0 - 1 + k, pad);
      break;
    }
  }
  return true;
}

// AffineGrid's normalised coordinate of point i of n along an axis, in
// [-1, 1]: pixel centres, or with align_corners the corner pixels at -1
// and 1.
SY_HOST_DEVICE inline double affine_coordinate(int64_t i, int64_t n, bool align_corners) {
  if (align_corners) return n == 1 ? -1.0 : -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(n - 1);
  return -1.0 + (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(n);
}

}  // namespace sy::grid_sample

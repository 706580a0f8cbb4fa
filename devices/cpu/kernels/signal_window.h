// The window functions' and the mel filter bank's values, shared by the CPU
// kernels (misc_signal_kernels.cc) and the CUDA ones
// (devices/cuda/kernels/signal_launch.cu). Plain C++ with no project
// types, so nvcc compiles it into the device kernels and both backends
// evaluate one formula, in double.
#pragma once

#include <math.h>

#include <cstdint>

#include "devices/host_device.h"

namespace sy::signal {

enum class WindowKind : int32_t { kHann, kHamming, kBlackman };

// Sample i of a window whose period is n1 (its size when periodic, one
// less when symmetric).
SY_HOST_DEVICE inline double window_value(WindowKind k, int64_t i, double n1) {
  constexpr double kPi = 3.14159265358979323846;
  const double x = static_cast<double>(i);
  switch (k) {
    case WindowKind::kHann: {
      const double s = sin(kPi * x / n1);
      return s * s;
    }
    case WindowKind::kHamming: {
      const double alpha = 25.0 / 46.0;
      return alpha - (1 - alpha) * cos(2 * kPi * x / n1);
    }
    default:
      return 0.42 - 0.5 * cos(2 * kPi * x / n1) + 0.08 * cos(4 * kPi * x / n1);
  }
}

// MelWeightMatrix's entry for spectrogram bin j and the triangular filter
// whose edges are the DFT bins lo <= center <= hi: rising from lo to
// center, falling from center to hi (exclusive), 1 at a centre that
// coincides with its lower edge.
SY_HOST_DEVICE inline double mel_weight(int64_t j, int64_t lo, int64_t center, int64_t hi) {
  if (j >= center && j < hi) return static_cast<double>(hi - j) / static_cast<double>(hi - center);
  if (center == lo) return j == center ? 1.0 : 0.0;
  if (j >= lo && j <= center) return static_cast<double>(j - lo) / static_cast<double>(center - lo);
  return 0.0;
}

}  // namespace sy::signal

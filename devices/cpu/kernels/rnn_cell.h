// What the CPU recurrent kernels (rnn_kernels.cc) and the CUDA ones
// (devices/cuda/kernels/rnn_kernels.cc, rnn_launch.cu) compute alike: the
// activations ONNX lets RNN, GRU and LSTM name, and where a time step, a
// direction and a batch row sit in X, Y and the state tensors for either
// `layout`. Plain C++17 with no project types, so nvcc compiles it into the
// gate kernels and both backends share one definition of each formula.
#pragma once

#include <math.h>

#include <cstdint>

#include "devices/host_device.h"

namespace sy::rnn {

enum class ActKind : int32_t {
  kRelu,
  kTanh,
  kSigmoid,
  kAffine,
  kLeakyRelu,
  kThresholdedRelu,
  kScaledTanh,
  kHardSigmoid,
  kElu,
  kSoftsign,
  kSoftplus
};

// One activation with its alpha and beta, evaluated in double whatever the
// tensor type (the float defaults, Sigmoid and Tanh, have a vectorised
// float path on the CPU; see rnn_kernels.cc).
struct Activation {
  ActKind kind = ActKind::kTanh;
  double alpha = 0, beta = 0;

  SY_HOST_DEVICE double operator()(double x) const {
    switch (kind) {
      case ActKind::kRelu: return x > 0 ? x : 0;
      case ActKind::kTanh: return ::tanh(x);
      case ActKind::kSigmoid: return 1.0 / (1.0 + ::exp(-x));
      case ActKind::kAffine: return alpha * x + beta;
      case ActKind::kLeakyRelu: return x >= 0 ? x : alpha * x;
      case ActKind::kThresholdedRelu: return x > alpha ? x : 0;
      case ActKind::kScaledTanh: return alpha * ::tanh(beta * x);
      case ActKind::kHardSigmoid: {
        const double v = alpha * x + beta;
        return v < 0 ? 0 : (v > 1 ? 1 : v);
      }
      case ActKind::kElu: return x >= 0 ? x : alpha * (::exp(x) - 1);
      case ActKind::kSoftsign: return x / (1 + ::fabs(x));
      case ActKind::kSoftplus: return ::log1p(::exp(x));
    }
    return x;
  }
};

// v clamped to [-clip, clip] (clip 0: none); a NaN stays NaN.
template <typename T>
SY_HOST_DEVICE T clip_to(T v, T clip) {
  return clip <= 0 ? v : hd_clamp(v, -clip, clip);
}

// Element offsets for layout 0 (X [S, B, I], Y [S, D, B, H], states
// [D, B, H]) and layout 1 (X [B, S, I], Y [B, S, D, H], states [B, D, H]).
struct Layout {
  int64_t S = 0, B = 0, D = 1, H = 0;
  bool batch_first = false;  // layout 1

  // Row of X (and of X's projection, one row per time step and batch row).
  SY_HOST_DEVICE int64_t x_row(int64_t t, int64_t b) const { return batch_first ? b * S + t : t * B + b; }
  // First element of direction d, batch row b in Y_h, Y_c, initial_h and
  // initial_c; consecutive batch rows are state_stride() apart.
  SY_HOST_DEVICE int64_t state_at(int64_t d, int64_t b) const { return (batch_first ? b * D + d : d * B + b) * H; }
  SY_HOST_DEVICE int64_t state_stride() const { return batch_first ? D * H : H; }
  SY_HOST_DEVICE int64_t y_at(int64_t t, int64_t d, int64_t b) const {
    return (batch_first ? (b * S + t) * D + d : (t * D + d) * B + b) * H;
  }
};

}  // namespace sy::rnn

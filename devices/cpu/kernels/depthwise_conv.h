// Float depthwise convolution (group = C = M, 1 or 2 spatial dims), as
// MobileNet's: each channel has its own window and nothing mixes channels,
// so oneDNN's plain-layout path, which expects channels to mix, is no fit.
#pragma once

#include <cstdint>

#include "devices/cpu/kernels/nn_common.h"

namespace sy::nn {

// Y = act(depthwise conv(X, W) + B) (B may be null) over the device's cores,
// for X [N, C, spatial], W [C, 1, window], w.nsp <= 2; the activation is
// applied in registers. Thread-safe.
void depthwise_conv(const float* X, const float* W, const float* B, float* Y, int64_t N, int64_t C, const Window& w,
                    const ConvActivation& act);

}  // namespace sy::nn

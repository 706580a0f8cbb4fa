// Float depthwise convolution at stride 1 or 2 with "same" padding (output
// rows as wide as the input's, or half as wide), as in MobileNet's and
// EfficientNet's layers, 3x3 and 5x5: a helper of depthwise_conv.cc.
#pragma once

#include <cstdint>

#include "devices/cpu/kernels/nn_common.h"

namespace sy::nn {

// As depthwise_conv, where the CPU has AVX-512, the window has at most 49
// taps, and either both strides are 1 and the output is as wide as the
// input (w.out[2] == w.in[2]), or both are 2, the output has more than 112
// pixels and its rows hold every other input column (w.out[2] >=
// ceil(w.in[2] / 2)); false, having done nothing, otherwise. Each output is
// the bias, then its taps in row-major order in fused multiply-adds.
bool depthwise_flat(const float* X, const float* W, const float* B, float* Y, int64_t N, int64_t C, const Window& w,
                    const ConvActivation& act);

}  // namespace sy::nn

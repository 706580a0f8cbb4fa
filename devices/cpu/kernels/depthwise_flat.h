// Float depthwise convolution of small planes at stride 1 whose output rows
// are as wide as the input's ("same" padding along the rows, as MobileNet's
// and EfficientNet's last stages, [1, 960, 7, 7] 3x3): a helper of
// depthwise_conv.cc.
#pragma once

#include <cstdint>

#include "devices/cpu/kernels/nn_common.h"

namespace sy::nn {

// As depthwise_conv, where the CPU has AVX-512, both strides are 1, the
// output is as wide as the input (w.out[2] == w.in[2]) and the window has
// at most 49 taps; false, having done nothing, otherwise. Each output is
// the bias, then its taps in row-major order in fused multiply-adds.
bool depthwise_flat(const float* X, const float* W, const float* B, float* Y, int64_t N, int64_t C, const Window& w,
                    const ConvActivation& act);

}  // namespace sy::nn

// Float 1x1 convolution, unstrided and unpadded (MobileNet's expansions and
// projections, ResNet's bottlenecks), in AVX-512 register tiles: a helper
// of nn_conv.cc.
#pragma once

#include <cstdint>

#include "devices/cpu/kernels/nn_common.h"

namespace sy::nn {

// Y[n] = act(W X[n] + B) for X [N, C, P], W [M, C] and Y [N, M, P] (B [M]
// or null) over the device's cores, where the CPU has AVX-512, P (the
// pixels of an image) is at least 32, and C is under 512 or at most M;
// false, having done nothing, otherwise. Each output is the bias, then W's row times X's column in
// fused multiply-adds in channel order. Thread-safe.
bool pointwise_conv(const float* X, const float* W, const float* B, float* Y, int64_t N, int64_t C, int64_t M,
                    int64_t P, const ConvActivation& act);

}  // namespace sy::nn

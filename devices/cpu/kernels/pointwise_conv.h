// Float 1x1 convolution, unpadded (MobileNet's expansions and projections,
// ResNet's bottlenecks and strided shortcuts), in AVX-512 register tiles: a
// helper of nn_conv.cc.
#pragma once

#include <cstdint>

#include "devices/cpu/kernels/nn_common.h"

namespace sy::nn {

// Y[n] = act(W X[n] + B + Z[n]) for X [N, C, in], W [M, C] and Y and Z
// [N, M, out] (B [M] and Z may be null), w being a 1x1 window without pads,
// over the device's cores, where the CPU has AVX-512, the output has at
// least 32 pixels an image, and C is under 512 or at most M; false, having
// done nothing, otherwise. Strided inputs are gathered into a plain image
// first. Each output is the bias, then W's row times X's column in fused
// multiply-adds in channel order, then plus Z. Thread-safe.
bool pointwise_conv(const float* X, const float* W, const float* B, const float* Z, float* Y, int64_t N, int64_t C,
                    int64_t M, const Window& w, const ConvActivation& act);

}  // namespace sy::nn

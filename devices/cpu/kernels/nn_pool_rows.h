// Float MaxPool (without Indices) and AveragePool a block of rows at a
// time, for windows without dilation (nn_pool.cc's kernels call it where
// oneDNN has no JIT kernel for the shape, or is slower). Also the window
// geometry the pooling loops share.
#pragma once

#include <cstdint>

#include "devices/cpu/kernels/nn_common.h"
#include "devices/cpu/kernels/wrapping.h"  // max_nan: a window with a NaN has NaN for its maximum

namespace sy::nn {

// Of one spatial dimension j of a window starting at index `start`: the
// offsets [lo, hi) whose index start + kk * dilation lies in the input,
// and how many offsets come before the end padding.
struct Span {
  int64_t lo = 0, hi = 0, padded = 0;
};
Span span(const Window& w, int j, int64_t start);

// Pools `planes` planes of x into y (both dense, plane after plane, shaped
// by w). A window holding a NaN gives NaN for MaxPool. False, with nothing
// written, when the window is not one it takes: dilation, padding as wide
// as the kernel.
bool pool_float_rows(const Window& w, bool max, bool count_include_pad, int64_t planes, const float* x, float* y);

}  // namespace sy::nn

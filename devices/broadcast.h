// Numpy-style multidirectional broadcasting: the one shared helper every
// backend uses for shapes and strides.
#pragma once

#include <span>

#include "ir/dims.h"
#include "ir/status.h"

namespace sy {

// Broadcast shape of a and b, or InvalidArgument naming both shapes.
StatusOr<Dims> broadcast_dims(const Dims& a, const Dims& b);
// Element strides of `in` viewed at the rank of `out`, with 0 for broadcast
// dimensions, so out index i maps to in offset sum(idx[k] * strides[k]).
Dims broadcast_strides(const Dims& in, const Dims& out);
// Row-major contiguous strides of `d`.
Dims contiguous_strides(const Dims& d);

}  // namespace sy

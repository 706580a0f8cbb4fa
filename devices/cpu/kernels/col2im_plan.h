// Col2Im's input checks, shared by the CPU kernel (image_kernels.cc, which
// defines them) and the CUDA one (devices/cuda/kernels/fold_kernels.cc), so
// both accept and refuse the same nodes with the same messages.
#pragma once

#include <cstdint>
#include <vector>

#include "devices/kernel.h"

namespace sy::col2im {

struct Attrs {
  std::vector<int64_t> dilations, pads, strides;  // empty: the defaults
};
Attrs parse_attrs(const Node& node);

// Input [N, channels * kernel, blocks]: `kernel` = prod(block) positions
// of each of the `blocks` = prod(count) sliding blocks, summed into the
// image out [N, channels, image...]. Per spatial axis a: block a's
// position l and kernel offset k land at l * str[a] - pads[a] + k * dil[a].
struct Plan {
  Dims image, block, dil, pads, str, count;  // pads: 2 * rank, begins first
  int64_t kernel = 1, blocks = 1, channels = 0;
  Dims out;
};

// InvalidArgument for mismatched shapes or attributes.
StatusOr<Plan> plan(const KernelContext& ctx, const Attrs& a);

}  // namespace sy::col2im

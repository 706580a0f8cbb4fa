// SoftmaxCrossEntropyLoss's and NegativeLogLikelihoodLoss's attributes and
// input checks, shared by the CPU kernel (loss_kernels.cc, which defines
// these) and the CUDA one (devices/cuda/kernels/loss_kernels.cc), so that
// both accept and refuse the same nodes with the same messages.
#pragma once

#include <cstdint>
#include <optional>

#include "devices/kernel.h"

namespace sy::loss {

enum class Reduction { kNone, kSum, kMean };

struct Attrs {
  bool softmax = true;  // SoftmaxCrossEntropyLoss: log-softmax over C first
  Reduction reduction = Reduction::kMean;
  std::optional<int64_t> ignore_index;
};

// InvalidArgument for an unknown reduction.
StatusOr<Attrs> parse_attrs(const Node& node);

// The input viewed as [n, c, d] (d: the product of the trailing dims), the
// labels as [n, d].
struct Plan {
  int64_t n = 0, c = 0, d = 0;
  Dims loss_dims;  // the labels' shape with reduction "none", else a scalar
};

// Checks the input (a float tensor of rank >= 2), the labels (int32 or
// int64, the input's shape without dim 1) and the optional weights (a float
// tensor of shape [C]): InvalidArgument otherwise. The labels' values are
// each backend's to check, where they are.
StatusOr<Plan> plan(const KernelContext& ctx, const Attrs& a);

}  // namespace sy::loss

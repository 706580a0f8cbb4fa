// DepthToSpace / SpaceToDepth as a strided view of the input, shared by the
// CPU kernel (tensor_movement.cc, through strided_copy) and the CUDA kernel
// (devices/cuda/kernels/resize_kernels.cc, through copy_view) so both
// validate and map indices identically. Stateless and thread-safe.
#pragma once

#include <cstdint>

#include "ir/dims.h"
#include "ir/graph.h"
#include "ir/status.h"

namespace sy::tensor_ops {

// The blocksize (positive) and mode (DCR or CRD) attributes.
struct DepthSpaceAttrs {
  int64_t block = 0;
  bool crd = false;
};
StatusOr<DepthSpaceAttrs> parse_depth_space_attrs(const Node& node);

// The output dims and the 6-D view (dims, element strides into the
// contiguous 4-D input) whose row-major copy is the output.
struct DepthSpaceView {
  Dims out_dims;
  Dims view;
  Dims strides;
};
// `in` is NCHW (anything else is InvalidArgument); to_space selects
// DepthToSpace over SpaceToDepth.
StatusOr<DepthSpaceView> depth_space_view(const Dims& in, const DepthSpaceAttrs& a, bool to_space);

}  // namespace sy::tensor_ops

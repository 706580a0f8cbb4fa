// Host-side fill of the by-value metadata that the CUDA GatherElements and
// ScatterElements kernels share (GatherElementsMeta): both walk the indices
// tensor and replace the axis coordinate, so one layout and one fill serve
// both (movement_index_kernels.cc, index_kernels.cc). Stateless.
#pragma once

#include <cstdint>

#include "devices/broadcast.h"
#include "devices/cuda/kernels/movement_launch.h"
#include "devices/tensor.h"
#include "ir/dims.h"

namespace sy::cuda {

// Meta for indices `ind` into data `x` along `axis` (normalised); the
// caller has checked the shapes and that x.rank() <= kMoveMaxRank.
inline GatherElementsMeta elements_meta(const Tensor& x, const Tensor& ind, int64_t axis) {
  const Dims strides = contiguous_strides(x.dims());
  GatherElementsMeta m;
  m.rank = static_cast<int32_t>(x.rank());
  m.axis = static_cast<int32_t>(axis);
  m.axis_dim = x.dim(axis);
  for (size_t k = 0; k < x.rank(); ++k) {
    m.dims[k] = ind.dim(k);
    m.data_strides[k] = strides[k];
  }
  return m;
}

}  // namespace sy::cuda

// Registration helpers shared by the tensor_*.cc kernel files.
#pragma once

#include <climits>
#include <cstdint>

#include "devices/kernel_registry.h"

namespace sy::tensor_ops {

constexpr uint64_t kBit0 = 1, kBit1 = 2, kBit2 = 4, kBit3 = 8, kBit4 = 16;

template <typename K>
void add_kernel(KernelRegistry& r, const char* op, int since, uint64_t host_inputs = 0,
                bool data_dependent_shape = false, int end = INT_MAX) {
  KernelDef d;
  d.domain = "";
  d.op = op;
  d.since_version = since;
  d.end_version = end;
  d.device = DeviceKind::kCpu;
  d.host_inputs = host_inputs;
  d.data_dependent_shape = data_dependent_shape;
  d.factory = &make_kernel<K>;
  r.add(std::move(d));
}

// Computes Reshape's output dims (0 copies, -1 infers; allowzero keeps 0).
StatusOr<Dims> reshape_dims(const Dims& in, const Dims& shape, bool allowzero);

void register_shape_kernels(KernelRegistry& r);     // tensor_kernels.cc
void register_movement_kernels(KernelRegistry& r);  // tensor_movement.cc
void register_index_kernels(KernelRegistry& r);     // tensor_index.cc
void register_resize_kernels(KernelRegistry& r);    // tensor_resize.cc

}  // namespace sy::tensor_ops

// Registration helpers shared by the tensor_*.cc kernel files.
#pragma once

#include <climits>
#include <cstdint>
#include <memory>
#include <vector>

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

// Shape and Size: any input type, and the input is read where it lives
// (KernelDef::shape_only_inputs), never copied for its dims.
template <typename K>
void add_shape_reader(KernelRegistry& r, const char* op, DeviceKind device, std::vector<DataType> types = {}) {
  KernelDef d;
  d.op = op;
  d.device = device;
  d.types = std::move(types);
  d.shape_only_inputs = kBit0;
  d.factory = &make_kernel<K>;
  r.add(std::move(d));
}

// Computes Reshape's output dims (0 copies, -1 infers; allowzero keeps 0).
StatusOr<Dims> reshape_dims(const Dims& in, const Dims& shape, bool allowzero);

// Reshape, Flatten, Squeeze and Unsqueeze never touch element data (they
// read host shape inputs and emit a view of the input's buffer), so other
// backends register these same kernels for their own device kinds.
std::unique_ptr<Kernel> make_reshape_view_kernel();
std::unique_ptr<Kernel> make_flatten_view_kernel();
std::unique_ptr<Kernel> make_squeeze_view_kernel();
std::unique_ptr<Kernel> make_unsqueeze_view_kernel();

void register_shape_kernels(KernelRegistry& r);     // tensor_kernels.cc
void register_movement_kernels(KernelRegistry& r);  // tensor_movement.cc
void register_index_kernels(KernelRegistry& r);     // tensor_index.cc
void register_resize_kernels(KernelRegistry& r);    // tensor_resize.cc

}  // namespace sy::tensor_ops

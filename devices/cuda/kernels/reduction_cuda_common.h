// Host-side pieces shared by the CUDA reduction area's kernel files
// (reduction_kernels.cc, sort_scan_kernels.cc, norm_kernels.cc).
#pragma once

#include <vector>

#include "devices/cpu/kernels/reduction_common.h"
#include "devices/cuda/kernels/reduction_launch.h"
#include "devices/kernel_registry.h"

namespace sy::cuda {

// Sub-family registration, called from register_cuda_reduction_kernels.
void register_cuda_sort_scan_kernels(KernelRegistry& r);  // TopK, CumSum (sort_scan_kernels.cc)
void register_cuda_norm_kernels(KernelRegistry& r);       // LayerNorm, InstanceNorm, MVN, LpNorm (norm_kernels.cc)

// The by-value group table of a merged reduction plan, with the launch
// shape chosen (plan_reduce_launch). Unimplemented when the plan has more
// alternating groups than the table holds.
StatusOr<ReduceGroups> to_reduce_groups(const Node& node, const reduce_detail::ReducePlan& p);

// The element types the reduction, sort and scan launchers are
// instantiated for, and a visitor calling f(T{}) for them (false for others).
const std::vector<DataType>& cuda_reduce_types();
template <typename F>
bool visit_cuda_reduce_type(DataType t, F&& f) {
  switch (t) {
    case DataType::kFloat: f(float{}); return true;
    case DataType::kDouble: f(double{}); return true;
    case DataType::kInt32: f(int32_t{}); return true;
    case DataType::kInt64: f(int64_t{}); return true;
    default: return false;
  }
}

// OK for a type the launchers are instantiated for; otherwise Unimplemented,
// so that the node falls back to the CPU kernel. Only a value whose type was
// unknown at placement reaches a kernel with such a type (the KernelDefs list
// cuda_reduce_types()).
inline Status check_cuda_reduce_type(const Node& node, const Tensor& x) {
  if (visit_cuda_reduce_type(x.dtype(), [](auto) {})) return OkStatus();
  return Unimplemented(node.describe(), ": no CUDA kernel for ", x.describe(), " input");
}

}  // namespace sy::cuda

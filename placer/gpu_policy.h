// GpuPolicy ("gpu"): every node on the first accelerator (in --devices
// order) that has a kernel for it; nodes no accelerator can run fall back
// to the first CPU candidate through normal placement. The all-GPU baseline
// that dynamic placement is measured against.
//
// Thread-safety: place() is stateless.
#pragma once

#include "placer/placement_policy.h"

namespace sy {

// Index of the first candidate that is not a CPU, or 0 if all are CPUs.
inline int first_accelerator(std::span<const Candidate> candidates) {
  for (size_t i = 0; i < candidates.size(); ++i)
    if (candidates[i].device.kind != DeviceKind::kCpu) return static_cast<int>(i);
  return 0;
}

class GpuPolicy final : public PlacementPolicy {
 public:
  std::string_view name() const override { return "gpu"; }
  bool uses_costs() const override { return false; }
  PlacementDecision place(const PlacementRequest& request) override {
    const int i = first_accelerator(request.candidates);
    return {i, request.candidates[static_cast<size_t>(i)].device.kind == DeviceKind::kCpu ? "no accelerator kernel"
                                                                                          : "first accelerator"};
  }
};

}  // namespace sy

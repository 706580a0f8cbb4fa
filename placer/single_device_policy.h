// SingleDevicePolicy ("single", alias "cpu"): every node on the first
// candidate, which is the session's first device that has a kernel. It is
// the baseline and the fast path: place() is one branch.
#pragma once

#include "placer/placement_policy.h"

namespace sy {

class SingleDevicePolicy final : public PlacementPolicy {
 public:
  explicit SingleDevicePolicy(std::string_view name = "single") : name_(name) {}
  std::string_view name() const override { return name_; }
  bool uses_costs() const override { return false; }
  PlacementDecision place(const PlacementRequest&) override { return {0, "single device"}; }

 private:
  std::string name_;
};

}  // namespace sy

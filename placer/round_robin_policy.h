// RoundRobinPolicy ("round-robin"): the k-th placement request, over the
// whole session, goes to candidate k mod (number of candidates). It ignores
// costs entirely; it exists as a load-spreading baseline and to exercise
// cross-device transfers in tests.
//
// Thread-safety: place() is safe from any number of threads (one relaxed
// atomic counter); with concurrent callers the interleaving, and so the
// exact assignment, depends on timing.
#pragma once

#include <atomic>
#include <cstdint>

#include "placer/placement_policy.h"

namespace sy {

class RoundRobinPolicy final : public PlacementPolicy {
 public:
  std::string_view name() const override { return "round-robin"; }
  bool uses_costs() const override { return false; }
  PlacementDecision place(const PlacementRequest& request) override;

 private:
  std::atomic<uint64_t> next_{0};
};

}  // namespace sy

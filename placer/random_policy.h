// RandomPolicy ("random"): each request goes to a uniformly random
// candidate. The k-th request of a session draws splitmix64(seed, k), so a
// single-threaded run is reproducible for a given --seed and different
// seeds give different placements. It ignores costs; it is a baseline that
// any cost-aware policy should beat.
//
// Thread-safety: place() is safe from any number of threads (one relaxed
// atomic counter). With concurrent callers each draw is still uniform, but
// which node gets which draw depends on timing.
#pragma once

#include <atomic>
#include <cstdint>

#include "placer/placement_policy.h"

namespace sy {

class RandomPolicy final : public PlacementPolicy {
 public:
  explicit RandomPolicy(uint64_t seed) : seed_(seed) {}
  std::string_view name() const override { return "random"; }
  bool uses_costs() const override { return false; }
  PlacementDecision place(const PlacementRequest& request) override;

 private:
  const uint64_t seed_;
  std::atomic<uint64_t> counter_{0};
};

}  // namespace sy

#include "placer/round_robin_policy.h"

namespace sy {

PlacementDecision RoundRobinPolicy::place(const PlacementRequest& request) {
  uint64_t k = next_.fetch_add(1, std::memory_order_relaxed);
  uint64_t n = request.candidates.empty() ? 1 : request.candidates.size();
  return {static_cast<int>(k % n), "round-robin"};
}

}  // namespace sy

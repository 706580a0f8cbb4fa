#include "placer/random_policy.h"

namespace sy {
namespace {

// splitmix64's output function over seed + k * golden gamma: a counter-based
// generator, so no shared state beyond the counter is needed.
uint64_t splitmix64(uint64_t seed, uint64_t k) {
  uint64_t z = seed + (k + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

PlacementDecision RandomPolicy::place(const PlacementRequest& request) {
  uint64_t k = counter_.fetch_add(1, std::memory_order_relaxed);
  uint64_t n = request.candidates.empty() ? 1 : request.candidates.size();
  // Multiply-high maps 64 random bits onto [0, n) without modulo bias worth
  // mentioning (n is a handful of devices).
  uint64_t pick = static_cast<uint64_t>((static_cast<unsigned __int128>(splitmix64(seed_, k)) * n) >> 64);
  return {static_cast<int>(pick), "random"};
}

}  // namespace sy

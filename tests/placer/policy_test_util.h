// Helpers shared by the placement-policy tests.
#pragma once

#include <vector>

#include "placer/placement_policy.h"

namespace sy::testing {

// Candidates on session devices 0..n-1 (or the given indices), CPU spaces,
// with calibrated estimates (many samples behind each).
inline std::vector<Candidate> candidates_on(std::vector<int> device_indices) {
  std::vector<Candidate> out;
  for (int d : device_indices) {
    Candidate c;
    c.device = DeviceId{DeviceKind::kCpu, static_cast<int16_t>(d)};
    c.space = MemorySpace{DeviceKind::kCpu, static_cast<int16_t>(d)};
    c.device_index = d;
    c.samples = 100;
    out.push_back(c);
  }
  return out;
}

inline PlacementRequest request_for(const std::vector<Candidate>& c, std::atomic<int32_t>* memo = nullptr) {
  PlacementRequest r;
  r.candidates = c;
  r.memo = memo;
  return r;
}

}  // namespace sy::testing

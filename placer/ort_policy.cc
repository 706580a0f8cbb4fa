#include "placer/ort_policy.h"

#include "placer/gpu_policy.h"

namespace sy {

PlacementDecision OrtPolicy::place(const PlacementRequest& request) {
  // The memo holds the chosen device index once decided; replaying it keeps
  // the partition fixed even if a caller passed candidates in another order.
  int n = static_cast<int>(request.candidates.size());
  if (request.memo) {
    int32_t dev = request.memo->load(std::memory_order_relaxed);
    if (dev >= 0)
      for (int i = 0; i < n; ++i)
        if (request.candidates[static_cast<size_t>(i)].device_index == dev) return {i, "first-fit (decided once)"};
    if (n > 0)
      request.memo->store(request.candidates[static_cast<size_t>(first_accelerator(request.candidates))].device_index,
                          std::memory_order_relaxed);
  }
  return {first_accelerator(request.candidates), "first-fit by device priority"};
}

}  // namespace sy

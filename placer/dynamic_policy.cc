#include "placer/dynamic_policy.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sy {
namespace {

double finish_us(const Candidate& c) {
  // A device without room for the node is never the earliest finish.
  if (!c.memory_ok) return std::numeric_limits<double>::infinity();
  double f = c.finish_us();
  // A NaN estimate must not win every comparison by failing it.
  return std::isnan(f) ? std::numeric_limits<double>::infinity() : f;
}

}  // namespace

PlacementDecision DynamicPolicy::place(const PlacementRequest& request) {
  const auto& cands = request.candidates;
  const int n = static_cast<int>(cands.size());
  if (n <= 1) {
    if (request.memo && n == 1) request.memo->store(cands[0].device_index, std::memory_order_relaxed);
    return {0, "only candidate"};
  }

  // Calibration first (as StarPU's dmda does): a device whose estimate
  // rests on too few measurements gets the node, so that one bad early
  // sample cannot keep a device unused forever. Bounded: kCalibrationRuns
  // per (op, device, shape class).
  for (int i = 0; i < n; ++i)
    if (cands[static_cast<size_t>(i)].samples < kCalibrationRuns && cands[static_cast<size_t>(i)].memory_ok)
      return {i, "calibrating"};
  int best = 0;
  double best_finish = finish_us(cands[0]);
  int32_t prev_dev = request.memo ? request.memo->load(std::memory_order_relaxed) : -1;
  int prev = -1;
  for (int i = 0; i < n; ++i) {
    const Candidate& c = cands[static_cast<size_t>(i)];
    if (c.device_index == prev_dev) prev = i;
    if (i == 0) continue;
    double f = finish_us(c);
    if (f < best_finish) {  // strict: ties go to the earlier (higher-priority) device
      best = i;
      best_finish = f;
    }
  }

  if (prev >= 0 && prev != best) {
    double prev_finish = finish_us(cands[static_cast<size_t>(prev)]);
    double margin = std::max(kRelativeMargin * prev_finish, kAbsoluteMarginUs);
    bool clear_win = !std::isfinite(prev_finish) || prev_finish - best_finish > margin;
    if (!clear_win) return {prev, "kept previous (hysteresis)"};
  }
  if (request.memo && best != prev) request.memo->store(cands[static_cast<size_t>(best)].device_index, std::memory_order_relaxed);
  return {best, "earliest finish"};
}

}  // namespace sy

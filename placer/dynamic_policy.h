// DynamicPolicy ("dynamic", the default): places each ready node on the
// candidate with the earliest predicted finish time (Candidate::finish_us),
//   finish = backlog + input transfers + issue + compute + output transfers,
// all filled in by the executor from the cost model, the devices' queues
// and where the node's consumers ran last and run fastest, at the moment
// the node becomes ready. The issue and output terms keep it from sending a
// node to a device whose kernel is faster but whose launch, or the copy of
// the result back to its consumers, costs more than the kernel saves; the
// output term also keeps a cheap node from holding a heavy consumer away
// from the device it runs fastest on (one step of lookahead).
//
// Until a candidate has kCalibrationRuns measurements for the node's op and
// shape class, it is chosen outright ("calibrating"), as StarPU's dmda
// does: estimates from a single cold sample or an extrapolation can
// otherwise rule a device out for good.
//
// A candidate whose device lacks the memory for the node (memory_ok false)
// is neither calibrated nor chosen unless every candidate lacks it.
//
// Hysteresis keeps placements from flapping between near-equal devices,
// which would pay for transfers that the predictions cannot see coming: the
// node's memo remembers the device chosen last time, and that device is
// kept unless the best candidate finishes earlier by more than
// max(10% of the previous device's finish, 2 us).
//
// place() runs per node on the hot path: no allocation, no locks, no
// strings; reasons are static.
//
// Thread-safety: place() is safe from any number of threads. The memo is a
// relaxed atomic; two runs placing the same node at once may each see the
// other's choice or not, which only affects hysteresis.
#pragma once

#include "placer/placement_policy.h"

namespace sy {

class DynamicPolicy final : public PlacementPolicy {
 public:
  // Hysteresis margin: a switch needs a gain above both of these.
  static constexpr double kRelativeMargin = 0.10;
  static constexpr double kAbsoluteMarginUs = 2.0;
  // Measurements per (op, device, shape class) before estimates are trusted.
  static constexpr int64_t kCalibrationRuns = 2;

  std::string_view name() const override { return "dynamic"; }
  bool uses_costs() const override { return true; }
  PlacementDecision place(const PlacementRequest& request) override;
};

}  // namespace sy

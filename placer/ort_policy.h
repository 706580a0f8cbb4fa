// OrtPolicy ("ort"): static first-fit by device priority, as ONNX Runtime
// partitions a graph. Accelerators come first, in --devices order, and
// CPUs last, as ONNX Runtime always appends its CPU provider after the
// ones a user registers; candidates are restricted to devices with a
// kernel for the node, so the choice is the highest-priority device that
// can run it, falling back down the list otherwise. The
// choice depends only on the node, so it is decided once per session and
// cached in the node's memo, as ONNX Runtime fixes its partition at session
// creation; measured costs never change it.
//
// Thread-safety: place() is safe from any number of threads (it only reads
// and writes the request's atomic memo).
#pragma once

#include "placer/placement_policy.h"

namespace sy {

class OrtPolicy final : public PlacementPolicy {
 public:
  std::string_view name() const override { return "ort"; }
  bool uses_costs() const override { return false; }
  PlacementDecision place(const PlacementRequest& request) override;
};

}  // namespace sy

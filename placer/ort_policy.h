// OrtPolicy ("ort"): static placement as ONNX Runtime partitions a graph
// between its CUDA and CPU execution providers.
//
// - First fit by device priority: accelerators first, in --devices order,
//   and CPUs last, as ONNX Runtime always appends its CPU provider after the
//   ones a user registers. Candidates are the devices with a kernel for the
//   node, so the choice is the highest-priority device that can run it.
// - Shape subgraphs on the CPU (ONNX Runtime's GetCpuPreferredNodes, which
//   every CUDA session applies): prepare() walks forward from the outputs
//   of Shape and Size, which ONNX Runtime's CUDA kernels leave in host
//   memory, and moves to the CPU each node whose inputs are all such host
//   tensors, graph inputs or initializers of at most 100 elements, unless
//   the accelerator's kernel wants that host tensor as a host input anyway
//   (the shape of Reshape, the starts of Slice) or an input is float16 or
//   bfloat16. Nodes without an accelerator kernel met on the way run on the
//   CPU and pass the walk on. Each graph (If branches, Loop and Scan
//   bodies) is partitioned on its own, as ONNX Runtime does.
//   One difference remains: our CUDA Shape writes its few bytes to device
//   memory, so a CPU consumer pays a small copy that ONNX Runtime does not.
// - The choice depends only on the node, so it is decided once per session
//   and cached in the node's memo, as ONNX Runtime fixes its partition at
//   session creation; measured costs never change it.
//
// Thread-safety: prepare() is not concurrent with place(); place() is safe
// from any number of threads (it reads the partition and the request's
// atomic memo).
#pragma once

#include <unordered_map>
#include <vector>

#include "placer/placement_policy.h"

namespace sy {

class OrtPolicy final : public PlacementPolicy {
 public:
  std::string_view name() const override { return "ort"; }
  bool uses_costs() const override { return false; }
  Status prepare(const PlanView& plan) override;
  PlacementDecision place(const PlacementRequest& request) override;

  // Whether prepare() moved node `n` of `g` to the CPU (tests, --decisions).
  bool cpu_preferred(const Graph& g, NodeId n) const;

 private:
  void partition(const PlanView& plan, const Graph& g);
  // Per graph, indexed by node id: 1 where the shape-subgraph rule applies.
  std::unordered_map<const Graph*, std::vector<char>> cpu_preferred_;
};

}  // namespace sy

// StaticHeftPolicy ("static-heft"): a static list schedule computed once per
// session by HEFT (Heterogeneous Earliest Finish Time, Topcuoglu et al.
// 2002) from the plan's offline cost estimates, then replayed at run time.
//
// prepare() schedules the root graph and, separately, every subgraph (If
// branches, Loop/Scan bodies, nested to any depth):
//  * a node's cost is its predicted compute averaged over its candidates;
//    an edge's cost is the transfer of the value's static size averaged over
//    ordered pairs of distinct devices;
//  * upward rank = node cost + max over successors (edge cost + rank);
//  * in decreasing rank order each node goes to the device where it would
//    finish first: max(device free, inputs arrived) + its compute there,
//    where an input produced on another device pays the transfer. Graph
//    inputs and outer-scope captures start in device 0's memory;
//    initializers count as already resident.
// Control-flow nodes have no candidates (the executor runs them on the
// host): they are scheduled on device 0 with a cost of their body's summed
// average node costs (for If, the costlier branch, since only one runs;
// a loop body counts one iteration, the trip count being unknown).
//
// place() maps the planned device index to the request's candidate and
// caches that candidate index in the node's memo. Nodes of a graph prepare()
// never saw, or whose planned device is not among the candidates, go to
// candidate 0.
//
// Thread-safety: prepare() must not run concurrently with anything else;
// place() and planned_device() only read the plan and are safe from any
// number of threads.
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

#include "placer/placement_policy.h"

namespace sy {

class StaticHeftPolicy final : public PlacementPolicy {
 public:
  StaticHeftPolicy();
  ~StaticHeftPolicy() override;
  std::string_view name() const override { return "static-heft"; }
  bool uses_costs() const override { return false; }
  Status prepare(const PlanView& plan) override;
  PlacementDecision place(const PlacementRequest& request) override;

  // The session device index HEFT chose for node `n` of `g`, or -1 if the
  // graph was not prepared. For tests and --decisions.
  int planned_device(const Graph& g, NodeId n) const;
  // Predicted finish of the last node of `g` in the static schedule (one
  // execution of `g` in isolation), or -1 if not prepared.
  double planned_makespan_us(const Graph& g) const;

 private:
  struct GraphPlan {
    std::vector<int> device;  // per NodeId
    double makespan_us = 0;
  };
  struct GraphCosts;

  // Fills costs_ for `g` and its subgraphs (children first).
  void analyze(const PlanView& plan, const Graph& g);
  void schedule(const PlanView& plan, const Graph& g);

  std::unordered_map<const Graph*, GraphPlan> plans_;
  // Scratch used only during prepare().
  std::unordered_map<const Graph*, std::unique_ptr<GraphCosts>> costs_;
};

}  // namespace sy

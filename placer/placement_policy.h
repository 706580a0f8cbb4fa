// PlacementPolicy: decides, for every ready node at run time, which device
// runs it. The executor builds a PlacementRequest when a node becomes ready
// (including nodes inside If branches and Loop/Scan bodies, every iteration)
// and calls place(); measured times come back through observe().
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "devices/device_id.h"
#include "ir/dims.h"
#include "ir/graph.h"
#include "ir/status.h"

namespace sy {

class PlanView;

// One device that has a kernel for the node, with the cost model's view.
struct Candidate {
  DeviceId device;
  MemorySpace space;                 // the device's memory space
  int device_index = 0;              // index in the session's device list
  double predicted_compute_us = 0;   // cost model's estimate of the kernel time
  // Time to bring missing inputs over, from issuing each copy to its
  // landing; a copy is shared among the input's readers still to finish
  // (each pays its share), as every reader that runs here will use it.
  double predicted_transfer_us = 0;
  double backlog_us = 0;             // predicted time until the device is free
  // Host time to issue the kernel on this device (its launch: allocation,
  // library calls, completion set-up), as measured on earlier nodes. The
  // loop thread does nothing else meanwhile, and the kernel cannot start
  // before it ends.
  double issue_us = 0;
  // What this choice costs the nodes after it, per consumer the larger of:
  // moving the outputs to where it ran last next to this node's inputs
  // (and a main-graph output to the host), issue included; and, if it runs
  // faster on another device (its last predicted issue plus compute), the
  // smaller of the copy there and the time it would lose here. 0 where the
  // consumers ran here and run fastest here, or have not run yet.
  double output_transfer_us = 0;
  // Measurements behind predicted_compute_us at this shape class; 0 means
  // the figure is extrapolated (a line, another device, a default guess).
  int64_t samples = 0;
  // False when the device's free memory cannot hold the inputs it lacks
  // plus an output as large as all inputs together: placing there would
  // likely fail to allocate.
  bool memory_ok = true;
  // Bit i set: this device's kernel reads input i in host memory (a shape,
  // the K of TopK), so the input is copied to the host whatever the choice.
  uint64_t host_inputs = 0;

  // When the node's results are predicted to be usable where its consumers
  // run, if it runs here.
  double finish_us() const {
    return backlog_us + predicted_transfer_us + issue_us + predicted_compute_us + output_transfer_us;
  }
};

// What the policy may know about one input of the node.
struct InputInfo {
  MemorySpace location;  // where its current copy lives (kHostSpace if absent)
  DataType dtype = DataType::kUndefined;
  const Dims* dims = nullptr;  // null for absent inputs and sequences
  uint64_t bytes = 0;
};

struct PlacementRequest {
  const Graph* graph = nullptr;
  const Node* node = nullptr;
  int depth = 0;  // control-flow nesting depth of the graph
  std::span<const InputInfo> inputs;
  std::span<const Candidate> candidates;  // never empty; session device order
  // Per (graph, node) memory the policy may use freely, shared by all runs
  // of the session; starts at -1. Dynamic policies keep their last choice
  // here for hysteresis, static ones cache their decision.
  std::atomic<int32_t>* memo = nullptr;
  // Costs are filled only when the policy's uses_costs() is true.
};

struct PlacementDecision {
  int candidate = 0;             // index into PlacementRequest::candidates
  const char* reason = nullptr;  // static string for --decisions; may be null
};

struct Completion {
  const Graph* graph = nullptr;
  const Node* node = nullptr;
  DeviceId device;
  int device_index = 0;
  double work = 0;  // the cost model's work size for this execution
  double predicted_us = 0;
  double measured_us = 0;
};

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  virtual std::string_view name() const = 0;
  // Called once per session before any run, with a read-only view of the
  // plan (graphs, candidates, static cost estimates). Static policies
  // compute their partition here. Not called concurrently with place().
  virtual Status prepare(const PlanView& plan) {
    (void)plan;
    return OkStatus();
  }
  // False if place() ignores the candidates' predicted times, so the
  // executor can skip computing them.
  virtual bool uses_costs() const { return true; }
  // Called once per ready node, possibly from several runs at once:
  // implementations must be thread-safe. Must be cheap: it is on the
  // per-node hot path.
  virtual PlacementDecision place(const PlacementRequest& request) = 0;
  // Measured time of a finished node. Thread-safe; default ignores it.
  virtual void observe(const Completion& completion) { (void)completion; }
};

// Read-only view of a session's plan for PlacementPolicy::prepare.
class PlanView {
 public:
  virtual ~PlanView() = default;
  virtual const Graph& root() const = 0;
  // The session's devices, in order (Candidate::device_index indexes this).
  virtual std::span<const DeviceId> devices() const = 0;
  // Candidates of node `n` of `g` (the root or any subgraph of it), with
  // predicted compute at the node's static shapes (unknown dimensions count
  // as 1), no transfer and no backlog. Empty for control-flow nodes, which
  // the executor runs on the host.
  virtual std::vector<Candidate> candidates(const Graph& g, NodeId n) const = 0;
  // Predicted time to move `bytes` from device `from`'s memory to `to`'s.
  virtual double transfer_us(int from, int to, uint64_t bytes) const = 0;
  // Static size estimate of value `v` of `g` in bytes (unknown dims as 1).
  virtual uint64_t value_bytes(const Graph& g, ValueId v) const = 0;
};

}  // namespace sy

// PlacementPolicy: decides, for every ready node at run time, which device
// runs it. The executor builds a PlacementRequest when a node becomes ready
// (including nodes inside If branches and Loop/Scan bodies, every iteration)
// and calls place(); measured times come back through observe().
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "devices/device_id.h"
#include "ir/graph.h"
#include "ir/status.h"

namespace sy {

// One device that has a kernel for the node, with the cost model's view.
struct Candidate {
  DeviceId device;
  int device_index = 0;             // index in the session's device list
  double predicted_compute_us = 0;  // cost model's estimate of the kernel time
  double predicted_transfer_us = 0; // time to bring missing inputs over
  double backlog_us = 0;            // predicted time until the device is free
};

struct PlacementRequest {
  const Graph* graph = nullptr;
  const Node* node = nullptr;
  int depth = 0;  // control-flow nesting depth of the graph
  // Memory space of each input's current copy (kHostSpace for absent ones).
  std::span<const MemorySpace> input_locations;
  std::span<const Candidate> candidates;  // never empty
};

struct PlacementDecision {
  int candidate = 0;  // index into PlacementRequest::candidates
};

struct Completion {
  const Node* node = nullptr;
  DeviceId device;
  double predicted_us = 0;
  double measured_us = 0;
};

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  virtual std::string_view name() const = 0;
  // Called once per ready node, possibly from several runs at once:
  // implementations must be thread-safe. Must be cheap: it is on the
  // per-node hot path.
  virtual PlacementDecision place(const PlacementRequest& request) = 0;
  // Measured time of a finished node. Thread-safe; default ignores it.
  virtual void observe(const Completion& completion) { (void)completion; }
};

}  // namespace sy

// RunObserver: read-only views of what a run did, for tracing and decision
// logs (Taskflow-style observers). The run loop calls these on its own
// thread; an observer shared by concurrent runs must be thread-safe.
#pragma once

#include <cstdint>
#include <span>

#include "devices/device_id.h"
#include "devices/runtime_value.h"
#include "ir/graph.h"
#include "placer/placement_policy.h"

namespace sy {

struct KernelEvent {
  const Graph* graph = nullptr;
  const Node* node = nullptr;
  int device_index = 0;
  int64_t start_ns = 0, end_ns = 0;  // device clock
  double predicted_us = 0;           // 0 when the policy does not use costs
  double work = 0;                   // the cost model's work size (0 if not computed)
  // The node's inputs as produced (not the staged copies) and its outputs;
  // null for absent ones. Valid during the call only.
  std::span<const RuntimeValue* const> inputs, outputs;
};

struct CopyEvent {
  const Graph* graph = nullptr;  // graph that owns the value
  ValueId value = kNoValue;
  int device_index = 0;  // device whose copy queue ran it
  MemorySpace from, to;
  uint64_t bytes = 0;
  int64_t start_ns = 0, end_ns = 0;
};

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void on_decision(const PlacementRequest& request, const PlacementDecision& decision) {
    (void)request;
    (void)decision;
  }
  virtual void on_kernel(const KernelEvent& event) { (void)event; }
  virtual void on_copy(const CopyEvent& event) { (void)event; }
};

}  // namespace sy

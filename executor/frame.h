// Frame: the values and node states of one graph instance in one run. The
// root graph gets one frame per run; an If branch, Loop or Scan body gets a
// child frame that is reused across iterations, so an iteration allocates
// nothing but its scalar inputs.
#pragma once

#include <memory>
#include <vector>

#include "devices/device.h"
#include "devices/kernel.h"
#include "executor/execution_plan.h"

namespace sy {

class Frame;
struct ControlState;

// The device work item of one node in one frame; preallocated per frame.
class NodeTask final : public DeviceTask {
 public:
  Status execute(Device& device) override;

  Frame* frame = nullptr;
  NodeId node = -1;
  int device_index = -1;
  const Kernel* kernel = nullptr;
};

class Frame {
 public:
  Frame(const ExecutionPlan& plan, Frame* parent, NodeId parent_node);
  ~Frame();
  Frame(const Frame&) = delete;
  Frame& operator=(const Frame&) = delete;

  // Resets node and value state for a fresh execution: counts from the
  // plan, initializers and captures bound, everything else cleared.
  void reset();
  // Releases one use of `v`; frees it when dead unless pinned.
  void release(ValueId v) {
    if (--uses_[v] == 0 && !plan_.pinned()[v]) values_[v].reset();
  }

  const ExecutionPlan& plan() const { return plan_; }
  const Graph& graph() const { return plan_.graph(); }
  Frame* parent() const { return parent_; }
  NodeId parent_node() const { return parent_node_; }

  std::vector<RuntimeValue>& values() { return values_; }
  RuntimeValue& value(ValueId v) { return values_[v]; }
  std::vector<int32_t>& pending() { return pending_; }
  std::vector<int32_t>& uses() { return uses_; }
  int32_t& remaining() { return remaining_; }
  NodeTask& task(NodeId n) { return tasks_[n]; }
  // Per-node state of a control-flow node, created on first use.
  std::unique_ptr<ControlState>& control(NodeId n) { return control_[n]; }

 private:
  const ExecutionPlan& plan_;
  Frame* parent_;
  NodeId parent_node_;
  std::vector<RuntimeValue> values_;
  std::vector<int32_t> pending_;
  std::vector<int32_t> uses_;
  int32_t remaining_ = 0;
  std::vector<NodeTask> tasks_;
  std::vector<std::unique_ptr<ControlState>> control_;
};

}  // namespace sy

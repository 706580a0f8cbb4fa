// Frame: the values and node states of one graph instance in one run. The
// root graph gets one frame per run; an If branch, Loop or Scan body gets a
// child frame that is reused across iterations, so an iteration allocates
// nothing but its scalar inputs.
//
// Residency: with several memory spaces, a frame also keeps, per value and
// space, the extra copies made for consumers on other devices and the copy
// in flight, so a value is copied at most once per space. A captured outer
// value's copies live in the frame that owns it (owner()), so a Loop body
// reading an outer weight on another device copies it once, not once per
// iteration.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "devices/device.h"
#include "devices/kernel.h"
#include "devices/topology.h"
#include "executor/execution_plan.h"

namespace sy {

class Frame;
struct ControlState;

// Work the run loop hands to a device: a node's kernel or a copy.
class LoopTask : public DeviceTask {
 public:
  enum class Kind : uint8_t { kNode, kCopy };
  explicit LoopTask(Kind k) : kind(k) {}
  Kind kind;
  Frame* frame = nullptr;
  int device_index = -1;
  // The loop's clock around Device::enqueue (when learning costs): the
  // host time issuing took, the task's own run excepted if it ran inline.
  int64_t issue_begin_ns = 0, issue_end_ns = 0;
};

// The kernel work item of one node in one frame; preallocated per frame.
class NodeTask final : public LoopTask {
 public:
  NodeTask() : LoopTask(Kind::kNode) {}
  Status execute(Device& device) override;

  NodeId node = -1;
  int space = 0;          // topology index of the device's memory space
  int host_space = 0;     // topology index of kHostSpace
  int32_t staging = 0;    // input copies still in flight
  const Kernel* kernel = nullptr;
  const KernelDef* def = nullptr;
  int cost_slot = -1;
  double predicted_us = 0;
  // With several memory spaces: each input as staged for this device (the
  // value itself or its copy in the device's space). Empty otherwise.
  std::vector<const RuntimeValue*> staged;
  // A kernel that sizes its outputs on the device runs twice
  // (KernelContext::resume_after): the first launch's state, start and
  // device time.
  KernelResume resume;
  int64_t first_start_ns = 0, first_ns = 0;
  // Inputs given up to the kernel this run (KernelContext::input_donated).
  uint64_t donated = 0;
};

// Copies one value into one memory space; pooled per frame.
class CopyTask final : public LoopTask {
 public:
  CopyTask() : LoopTask(Kind::kCopy) {}
  Status execute(Device& device) override;

  ValueId value = kNoValue;  // in `frame` (the owner)
  int from = 0, to = 0;      // topology indices (spaces and bytes: DeviceTask)
  RuntimeValue src;     // keeps the source alive while copying
  RuntimeValue result;
  std::vector<std::pair<Frame*, NodeId>> waiters;  // nodes staging on it
};

class Frame {
 public:
  // `num_spaces` > 1 enables residency tracking; children inherit it.
  Frame(const ExecutionPlan& plan, Frame* parent, NodeId parent_node, int num_spaces = 1);
  ~Frame();
  Frame(const Frame&) = delete;
  Frame& operator=(const Frame&) = delete;

  // Resets node and value state for a fresh execution: counts from the
  // plan, initializers and captures bound, everything else cleared.
  void reset();
  // Releases one use of `v`; frees it (and its copies) when dead unless
  // pinned.
  void release(ValueId v) {
    if (--uses_[v] == 0 && !plan_.pinned()[v]) clear_value(v);
  }
  void clear_value(ValueId v) {
    values_[v].reset();
    if (num_spaces_ > 1) clear_replicas(v);
  }

  const ExecutionPlan& plan() const { return plan_; }
  const Graph& graph() const { return plan_.graph(); }
  Frame* parent() const { return parent_; }
  NodeId parent_node() const { return parent_node_; }
  int num_spaces() const { return num_spaces_; }

  std::vector<RuntimeValue>& values() { return values_; }
  RuntimeValue& value(ValueId v) { return values_[v]; }
  std::vector<int32_t>& pending() { return pending_; }
  std::vector<int32_t>& uses() { return uses_; }
  int32_t& remaining() { return remaining_; }
  NodeTask& task(NodeId n) { return tasks_[n]; }
  // Per-node state of a control-flow node, created on first use.
  std::unique_ptr<ControlState>& control(NodeId n) { return control_[n]; }

  // --- residency (num_spaces() > 1) ----------------------------------------
  // The frame that owns `*v` (following captures outward); updates `*v` to
  // the id in that frame.
  Frame* owner(ValueId* v);
  // The copy of owned value `v` in space `s` (kNone if there is none).
  RuntimeValue& replica(ValueId v, int s) { return replicas_[static_cast<size_t>(v) * num_spaces_ + s]; }
  CopyTask*& in_flight(ValueId v, int s) { return copying_[static_cast<size_t>(v) * num_spaces_ + s]; }
  // A pooled copy task for this frame.
  CopyTask* new_copy();
  void recycle(CopyTask* c);

 private:
  void clear_replicas(ValueId v);

  const ExecutionPlan& plan_;
  Frame* parent_;
  NodeId parent_node_;
  int num_spaces_;
  std::vector<RuntimeValue> values_;
  std::vector<int32_t> pending_;
  std::vector<int32_t> uses_;
  int32_t remaining_ = 0;
  std::vector<NodeTask> tasks_;
  std::vector<std::unique_ptr<ControlState>> control_;
  std::vector<RuntimeValue> replicas_;  // [value][space]
  std::vector<CopyTask*> copying_;      // [value][space]
  std::vector<std::unique_ptr<CopyTask>> copy_pool_;
  std::vector<CopyTask*> free_copies_;
};

// A copy of `src` in memory space `to`: the tensor, or each sequence item
// not already there (the others are shared); other values are returned as
// they are. `copy_tensor(const Tensor&)` returns StatusOr<Tensor> in `to`.
// Keeps the optional flag.
template <typename CopyTensor>
StatusOr<RuntimeValue> copy_value(const RuntimeValue& src, MemorySpace to, CopyTensor&& copy_tensor) {
  RuntimeValue out;
  if (src.is_tensor()) {
    ASSIGN_OR_RETURN(Tensor t, copy_tensor(src.tensor()));
    out = RuntimeValue(std::move(t));
  } else if (src.is_sequence()) {
    auto seq = std::make_shared<Sequence>();
    seq->elem = src.sequence()->elem;
    seq->items.reserve(src.sequence()->items.size());
    for (const Tensor& item : src.sequence()->items) {
      if (item.space() == to) {
        seq->items.push_back(item);
      } else {
        ASSIGN_OR_RETURN(Tensor t, copy_tensor(item));
        seq->items.push_back(std::move(t));
      }
    }
    out = RuntimeValue(std::shared_ptr<const Sequence>(std::move(seq)));
  } else {
    return src;
  }
  out.set_optional(src.is_optional());
  return out;
}

// Topology index of the space a value lives in; -1 if it needs no copy
// (absent, empty sequence), -2 for a sequence spread over several spaces.
int value_space(const RuntimeValue& v, const Topology& topology);

}  // namespace sy

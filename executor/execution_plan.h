// ExecutionPlan: what the run loop needs about one graph, computed once per
// session: each node's kernels per device, dependency counts, successors,
// value use counts, and the plans of its subgraphs. Immutable after build,
// so concurrent runs share it.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "devices/device.h"
#include "devices/kernel_registry.h"
#include "ir/graph.h"
#include "placer/cost_model.h"
#include "placer/placement_policy.h"

namespace sy {

class ExecutionPlan;

enum class NodeKind : uint8_t { kKernel, kIf, kLoop, kScan, kSequenceMap };

struct NodePlan {
  NodeKind kind = NodeKind::kKernel;
  // Per session device: the kernel, or null when that device has none.
  std::vector<std::unique_ptr<Kernel>> kernels;
  std::vector<const KernelDef*> defs;
  // Devices that have a kernel, in session order. Costs are filled per request.
  std::vector<Candidate> candidates;
  std::vector<int> cost_slots;     // per candidate; empty without a cost model
  int32_t initial_pending = 0;     // distinct producer nodes it waits for
  std::vector<NodeId> successors;  // distinct nodes waiting for it
  std::vector<ValueId> releases;   // distinct values it reads (incl. implicit)
  uint64_t constant_inputs = 0;    // bit i: input i is constant (KernelContext::input_constant)
  // Bit i: input i is made by a node of this graph (not a graph input, a
  // constant or a graph output) and read by this node in that slot only,
  // so that where this node is its last reader the run loop may give the
  // kernel its buffer (KernelContext::input_donated).
  uint64_t donor_inputs = 0;
  std::vector<const ExecutionPlan*> subplans;  // If: then, else; others: body
};

// A node's kernel for one kind of device, made and initialised.
struct ChosenKernel {
  const KernelDef* def = nullptr;
  std::unique_ptr<Kernel> kernel;  // null: that kind has none for the node
};
// The kernel a device of `kind` would run node `n` of `g` with: none when
// the kind has no kernel for its op and types, an accelerator kernel
// declines its attributes (Unimplemented), or it reads or writes values
// only the host holds (strings, sequences, optionals); an error when a
// kernel rejects the node otherwise. What build() asks for each device, and
// `switchyard info` for device kinds the machine may not have. Thread-safe.
StatusOr<ChosenKernel> choose_kernel(const Graph& g, const Node& n, DeviceKind kind, const KernelRegistry& registry);

class ExecutionPlan {
 public:
  // Builds the plan for `graph` and its subgraphs. Fails if a node has no
  // kernel on any of `devices`. With a cost model, resolves each
  // candidate's cost slot now so runs never look up by name.
  static StatusOr<std::unique_ptr<ExecutionPlan>> build(const Graph& graph, const std::vector<Device*>& devices,
                                                        const KernelRegistry& registry, CostModel* cost = nullptr);

  const Graph& graph() const { return graph_; }
  const NodePlan& node(NodeId id) const { return nodes_[static_cast<size_t>(id)]; }
  const std::vector<NodePlan>& nodes() const { return nodes_; }
  const std::vector<int32_t>& initial_uses() const { return initial_uses_; }
  // Values the run loop must not free when their uses reach zero: graph
  // outputs and captures (owned by the enclosing frame).
  const std::vector<uint8_t>& pinned() const { return pinned_; }
  const std::vector<NodeId>& initial_ready() const { return initial_ready_; }
  // (value id, borrowed tensor) for each initializer.
  const std::vector<std::pair<ValueId, Tensor>>& initializers() const { return initializers_; }
  size_t max_arity() const { return max_arity_; }
  const std::vector<std::unique_ptr<ExecutionPlan>>& subplans() const { return subplans_; }
  // The policy's per-node memo (PlacementRequest::memo), shared by runs.
  std::atomic<int32_t>* memo(NodeId n) const { return &memos_[static_cast<size_t>(n)]; }
  // A signature of the input types and shapes that an accelerator kernel
  // of node n last declined at compute (0: none), shared by runs, so that a
  // loop body or the next run sends those shapes to the CPU at once instead
  // of staging them to the accelerator to be declined again.
  std::atomic<uint64_t>* declined(NodeId n) const { return &declined_[static_cast<size_t>(n)]; }
  // Where node n last ran (a topology space index; -1: not yet) and how
  // large value v last was, shared by runs: what placing v's producer
  // elsewhere would cost in copies to its consumers.
  std::atomic<int32_t>* last_space(NodeId n) const { return &last_space_[static_cast<size_t>(n)]; }
  std::atomic<uint64_t>* last_bytes(ValueId v) const { return &last_bytes_[static_cast<size_t>(v)]; }
  // Node n's issue plus compute time on each session device (indexed like
  // the devices; negative: no kernel there, or not predicted yet) as last
  // predicted, shared by runs: which device its producers should feed.
  std::atomic<float>* last_cost_us(NodeId n) const { return &last_cost_us_[static_cast<size_t>(n) * num_devices_]; }
  // In a Loop or Scan body: the body input that output v becomes in the
  // next iteration (a loop-carried value stays where it is), else kNoValue.
  ValueId carried_to(ValueId v) const { return carried_to_.empty() ? kNoValue : carried_to_[static_cast<size_t>(v)]; }
  // Whether the graph's outputs, carried ones aside, are read on the host:
  // by the run's caller (main graph), or by the Loop or Scan that reads the
  // condition and stacks the scan outputs there. If branches' outputs are
  // not: they become the If's outputs where they are.
  bool outputs_read_on_host() const { return outputs_read_on_host_; }

  // Copies of constants in other memory spaces, kept for the session so
  // that weights cross to a device once, not once per run or iteration. A
  // constant holds the same tensor in every run: an initializer that is not
  // a graph input (whose initializer is only a default), or a Constant
  // node's output. Any other value is never cached: cached_constant() says
  // there is no copy, cache_constant() ignores it. `out` may be null to ask
  // only whether there is one. Thread-safe.
  bool cached_constant(ValueId v, int space, RuntimeValue* out) const;
  void cache_constant(ValueId v, int space, const RuntimeValue& copy) const;

 private:
  explicit ExecutionPlan(const Graph& g) : graph_(g) {}
  Status build_nodes(const std::vector<Device*>& devices, const KernelRegistry& registry, CostModel* cost);

  const Graph& graph_;
  std::vector<NodePlan> nodes_;
  std::vector<int32_t> initial_uses_;
  std::vector<uint8_t> pinned_;
  std::vector<uint8_t> constant_;
  std::vector<NodeId> initial_ready_;
  std::vector<std::pair<ValueId, Tensor>> initializers_;
  std::vector<std::unique_ptr<ExecutionPlan>> subplans_;
  size_t max_arity_ = 0;
  std::unique_ptr<std::atomic<int32_t>[]> memos_;
  std::unique_ptr<std::atomic<uint64_t>[]> declined_;
  std::unique_ptr<std::atomic<int32_t>[]> last_space_;
  std::unique_ptr<std::atomic<uint64_t>[]> last_bytes_;
  std::unique_ptr<std::atomic<float>[]> last_cost_us_;
  size_t num_devices_ = 0;
  std::vector<ValueId> carried_to_;  // empty outside loop bodies
  bool outputs_read_on_host_ = true;
  mutable std::mutex constants_mu_;
  mutable std::map<std::pair<ValueId, int>, RuntimeValue> constants_;
};

// Ops the executor runs itself because they own subgraphs.
bool is_control_flow_op(const Node& node);

}  // namespace sy

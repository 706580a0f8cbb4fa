#include "executor/execution_plan.h"

#include <algorithm>
#include <map>

namespace sy {

bool is_control_flow_op(const Node& n) {
  return n.domain.empty() &&
         (n.op_type == "If" || n.op_type == "Loop" || n.op_type == "Scan" || n.op_type == "SequenceMap");
}

namespace {
NodeKind kind_of(const Node& n) {
  if (!is_control_flow_op(n)) return NodeKind::kKernel;
  if (n.op_type == "If") return NodeKind::kIf;
  if (n.op_type == "Loop") return NodeKind::kLoop;
  if (n.op_type == "Scan") return NodeKind::kScan;
  return NodeKind::kSequenceMap;
}

// True if the node reads or writes a string tensor, a sequence or an
// optional by its static types. Those live in host memory only, and the
// registry keys kernels by the first input's type alone, so without this an
// accelerator kernel could be chosen for CastLike(float, like=string) and
// fail at compute, where nothing falls back to the CPU.
bool touches_host_only_values(const Graph& g, const Node& n) {
  auto host_only = [&](ValueId v) {
    if (v == kNoValue) return false;
    const TypeInfo& t = g.value(v).type;
    return t.kind == TypeInfo::Kind::kSequence || t.kind == TypeInfo::Kind::kOptional ||
           (t.kind == TypeInfo::Kind::kTensor && t.elem == DataType::kString);
  };
  return std::any_of(n.inputs.begin(), n.inputs.end(), host_only) ||
         std::any_of(n.outputs.begin(), n.outputs.end(), host_only);
}

template <typename T>
void push_unique(std::vector<T>& v, T x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

DataType first_input_type(const Graph& g, const Node& n) {
  if (n.inputs.empty() || n.inputs[0] == kNoValue) return DataType::kUndefined;
  const TypeInfo& t = g.value(n.inputs[0]).type;
  return t.kind == TypeInfo::Kind::kTensor ? t.elem : DataType::kUndefined;
}
}  // namespace

StatusOr<ChosenKernel> choose_kernel(const Graph& g, const Node& n, DeviceKind kind, const KernelRegistry& registry) {
  if (kind != DeviceKind::kCpu && touches_host_only_values(g, n)) return ChosenKernel{};
  const DataType first = first_input_type(g, n);
  const KernelDef* def = registry.find(n.domain, n.op_type, n.opset, kind, first);
  // CPU kernels take any type they are asked to; accelerator kernels
  // only the types they list, so other types fall back to the CPU.
  if (!def && first != DataType::kUndefined && kind == DeviceKind::kCpu)
    def = registry.find(n.domain, n.op_type, n.opset, kind);
  if (!def) return ChosenKernel{};
  std::unique_ptr<Kernel> k = def->factory();
  Status s = k->init(n);
  // An accelerator kernel declines attribute combinations it does not
  // implement (Unimplemented); the node then runs on another device.
  if (!s.ok() && kind != DeviceKind::kCpu && s.code() == StatusCode::kUnimplemented) return ChosenKernel{};
  if (!s.ok()) return s.with_context(n.describe());
  return ChosenKernel{def, std::move(k)};
}

StatusOr<std::unique_ptr<ExecutionPlan>> ExecutionPlan::build(const Graph& graph, const std::vector<Device*>& devices,
                                                              const KernelRegistry& registry, CostModel* cost) {
  std::unique_ptr<ExecutionPlan> plan(new ExecutionPlan(graph));
  RETURN_IF_ERROR(plan->build_nodes(devices, registry, cost));
  return plan;
}

bool ExecutionPlan::cached_constant(ValueId v, int space, RuntimeValue* out) const {
  if (!constant_[static_cast<size_t>(v)]) return false;  // no lock for the common case
  std::lock_guard<std::mutex> lock(constants_mu_);
  auto it = constants_.find({v, space});
  if (it == constants_.end()) return false;
  if (out) *out = it->second;
  return true;
}

void ExecutionPlan::cache_constant(ValueId v, int space, const RuntimeValue& copy) const {
  if (!constant_[static_cast<size_t>(v)]) return;
  std::lock_guard<std::mutex> lock(constants_mu_);
  constants_.emplace(std::make_pair(v, space), copy);
}

Status ExecutionPlan::build_nodes(const std::vector<Device*>& devices, const KernelRegistry& registry,
                                  CostModel* cost) {
  const Graph& g = graph_;
  nodes_.resize(g.nodes().size());
  memos_ = std::make_unique<std::atomic<int32_t>[]>(g.nodes().size());
  declined_ = std::make_unique<std::atomic<uint64_t>[]>(g.nodes().size());
  last_space_ = std::make_unique<std::atomic<int32_t>[]>(g.nodes().size());
  for (size_t i = 0; i < g.nodes().size(); ++i) {
    memos_[i].store(-1, std::memory_order_relaxed);
    declined_[i].store(0, std::memory_order_relaxed);
    last_space_[i].store(-1, std::memory_order_relaxed);
  }
  last_bytes_ = std::make_unique<std::atomic<uint64_t>[]>(g.num_values());
  for (size_t v = 0; v < g.num_values(); ++v) last_bytes_[v].store(0, std::memory_order_relaxed);
  num_devices_ = devices.size();
  last_cost_us_ = std::make_unique<std::atomic<float>[]>(g.nodes().size() * num_devices_);
  for (size_t i = 0; i < g.nodes().size() * num_devices_; ++i) last_cost_us_[i].store(-1, std::memory_order_relaxed);
  initial_uses_.assign(g.num_values(), 0);
  pinned_.assign(g.num_values(), 0);
  for (ValueId v : g.outputs()) pinned_[v] = 1;
  for (ValueId v : g.captures()) pinned_[v] = 1;
  constant_.assign(g.num_values(), 0);
  for (ValueId v = 0; v < static_cast<ValueId>(g.num_values()); ++v) {
    const ValueInfo& info = g.value(v);
    if (info.initializer >= 0) initializers_.emplace_back(v, Tensor::borrow(g.initializers()[info.initializer]));
    // A graph input's initializer is only its default: the caller may feed
    // another value on any run.
    const bool fixed_initializer = info.initializer >= 0 && !info.is_graph_input;
    // A Constant node makes the same tensor every run (and every loop
    // iteration): its copies can be kept like an initializer's.
    const bool constant_node =
        info.producer >= 0 && g.node(info.producer).op_type == "Constant" && g.node(info.producer).domain.empty();
    constant_[v] = fixed_initializer || constant_node;
  }

  std::map<const Graph*, const ExecutionPlan*> sub_of;
  for (const Node& n : g.nodes()) {
    NodePlan& np = nodes_[n.id];
    np.kind = kind_of(n);
    max_arity_ = std::max({max_arity_, n.inputs.size(), n.outputs.size()});
    for (ValueId v : n.inputs)
      if (v != kNoValue) push_unique(np.releases, v);
    for (ValueId v : n.implicit_inputs) push_unique(np.releases, v);
    for (ValueId v : np.releases) initial_uses_[v]++;
    for (size_t i = 0; i < n.inputs.size() && i < 64; ++i) {
      const ValueId v = n.inputs[i];
      if (v == kNoValue) continue;
      if (constant_[v]) np.constant_inputs |= uint64_t{1} << i;
      const bool read_once =
          std::count(n.inputs.begin(), n.inputs.end(), v) == 1 &&
          std::find(n.implicit_inputs.begin(), n.implicit_inputs.end(), v) == n.implicit_inputs.end();
      if (g.value(v).producer >= 0 && !g.value(v).is_graph_input && !constant_[v] && !pinned_[v] && read_once)
        np.donor_inputs |= uint64_t{1} << i;
    }
    std::vector<NodeId> preds;
    for (ValueId v : np.releases)
      if (g.value(v).producer >= 0) push_unique(preds, g.value(v).producer);
    np.initial_pending = static_cast<int32_t>(preds.size());
    for (NodeId p : preds) nodes_[p].successors.push_back(n.id);
    if (preds.empty()) initial_ready_.push_back(n.id);

    if (np.kind != NodeKind::kKernel) {
      // `carried` body outputs from `first_out` on feed the body inputs
      // from `first_in` on in the next iteration.
      auto add_sub = [&](const Graph* sg, size_t first_out = 0, size_t first_in = 0, size_t carried = 0) -> Status {
        auto sp = ExecutionPlan::build(*sg, devices, registry, cost);
        if (!sp.ok()) return sp.status();
        ExecutionPlan& sub = **sp;
        sub.outputs_read_on_host_ = np.kind != NodeKind::kIf;
        carried = std::min({carried, sg->outputs().size() - std::min(first_out, sg->outputs().size()),
                            sg->inputs().size() - std::min(first_in, sg->inputs().size())});
        if (carried) sub.carried_to_.assign(sg->num_values(), kNoValue);
        for (size_t i = 0; i < carried; ++i) sub.carried_to_[sg->outputs()[first_out + i]] = sg->inputs()[first_in + i];
        np.subplans.push_back(&sub);
        subplans_.push_back(std::move(sp).value());
        return OkStatus();
      };
      if (np.kind == NodeKind::kIf) {
        ASSIGN_OR_RETURN(const Graph* t, n.required_graph("then_branch"));
        ASSIGN_OR_RETURN(const Graph* e, n.required_graph("else_branch"));
        RETURN_IF_ERROR(add_sub(t));
        RETURN_IF_ERROR(add_sub(e));
      } else {
        ASSIGN_OR_RETURN(const Graph* b, n.required_graph("body"));
        const size_t ins = b->inputs().size();
        if (np.kind == NodeKind::kLoop) {  // body: (iter, cond, carried...) -> (cond, carried..., scans...)
          RETURN_IF_ERROR(add_sub(b, 1, 2, ins > 2 ? ins - 2 : 0));
        } else if (np.kind == NodeKind::kScan) {  // body: (states..., elements...) -> (states..., scans...)
          const auto scans = static_cast<size_t>(std::max<int64_t>(n.attr_int("num_scan_inputs", 1), 0));
          RETURN_IF_ERROR(add_sub(b, 0, 0, ins > scans ? ins - scans : 0));
        } else {
          RETURN_IF_ERROR(add_sub(b));
        }
      }
      continue;
    }
    np.kernels.resize(devices.size());
    np.defs.resize(devices.size(), nullptr);
    for (size_t d = 0; d < devices.size(); ++d) {
      ASSIGN_OR_RETURN(ChosenKernel chosen, choose_kernel(g, n, devices[d]->info().kernel_kind, registry));
      if (!chosen.kernel) continue;
      np.kernels[d] = std::move(chosen.kernel);
      np.defs[d] = chosen.def;
      Candidate c;
      c.device = devices[d]->id();
      c.space = devices[d]->memory_space();
      c.device_index = static_cast<int>(d);
      c.host_inputs = chosen.def->host_inputs;
      np.candidates.push_back(c);
      if (cost) np.cost_slots.push_back(cost->slot(n, c.device));
    }
    if (np.candidates.empty()) {
      // Only accelerators were listed (--devices cuda:0): a CPU would take
      // the node, so say how to add one rather than only that none fits.
      const bool cpu_listed = std::any_of(devices.begin(), devices.end(),
                                          [](const Device* d) { return d->info().kernel_kind == DeviceKind::kCpu; });
      const char* hint = !cpu_listed && registry.find(n.domain, n.op_type, n.opset, DeviceKind::kCpu)
                             ? "; the CPU has one: add cpu to the devices (e.g. --devices cuda:0,cpu)"
                             : "";
      return Unimplemented(n.describe(), ": no kernel for ", n.domain.empty() ? "" : n.domain + "::", n.op_type,
                           " (opset ", n.opset, ", input type ", dtype_name(first_input_type(g, n)),
                           ") on any device", hint);
    }
  }
  return OkStatus();
}

}  // namespace sy

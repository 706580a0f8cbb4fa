#include "placer/ort_policy.h"

#include <queue>

#include "placer/gpu_policy.h"

namespace sy {
namespace {

// ONNX Runtime's limit for an initializer to count as small enough to read
// on the host.
constexpr int64_t kSmallInitializerElems = 100;

int first_cpu(std::span<const Candidate> candidates) {
  for (size_t i = 0; i < candidates.size(); ++i)
    if (candidates[i].device.kind == DeviceKind::kCpu) return static_cast<int>(i);
  return -1;
}

bool has_accelerator(std::span<const Candidate> candidates) {
  return !candidates.empty() && candidates[static_cast<size_t>(first_accelerator(candidates))].device.kind != DeviceKind::kCpu;
}

// An initializer of at most kSmallInitializerElems elements, in `g` or, for
// a value captured from an enclosing scope, in the graph that defines it.
bool small_initializer(const Graph& g, ValueId v) {
  const Graph* graph = &g;
  while (graph) {
    const ValueInfo& info = graph->value(v);
    if (info.initializer >= 0)
      return graph->initializers()[static_cast<size_t>(info.initializer)]->numel() <= kSmallInitializerElems;
    if (info.outer == kNoValue) return false;
    v = info.outer;
    graph = graph->parent();
  }
  return false;
}

bool half_precision(const Graph& g, ValueId v) {
  const TypeInfo& t = g.value(v).type;
  return t.kind == TypeInfo::Kind::kTensor && (t.elem == DataType::kFloat16 || t.elem == DataType::kBFloat16);
}

}  // namespace

Status OrtPolicy::prepare(const PlanView& plan) {
  cpu_preferred_.clear();
  partition(plan, plan.root());
  return OkStatus();
}

void OrtPolicy::partition(const PlanView& plan, const Graph& g) {
  const size_t n = g.nodes().size();
  std::vector<char>& on_cpu = cpu_preferred_[&g];
  on_cpu.assign(n, 0);
  std::vector<size_t> position(n, 0);
  for (size_t i = 0; i < g.topo_order().size(); ++i) position[static_cast<size_t>(g.topo_order()[i])] = i;
  std::vector<std::vector<Candidate>> candidates(n);
  for (const Node& node : g.nodes()) {
    candidates[static_cast<size_t>(node.id)] = plan.candidates(g, node.id);
    for (const Attribute& a : node.attributes) {
      if (a.g) partition(plan, *a.g);
      for (const Graph* sub : a.graphs) partition(plan, *sub);
    }
  }

  // Values in host memory under this partition, and the nodes to look at,
  // visited in topological order as ONNX Runtime does.
  std::vector<char> host_value(g.num_values(), 0);
  auto later = [&](NodeId a, NodeId b) { return position[static_cast<size_t>(a)] > position[static_cast<size_t>(b)]; };
  std::priority_queue<NodeId, std::vector<NodeId>, decltype(later)> queue(later);
  auto to_host = [&](const Node& node) {
    for (ValueId v : node.outputs) {
      if (v == kNoValue) continue;
      host_value[static_cast<size_t>(v)] = 1;
      for (NodeId c : g.value(v).consumers) queue.push(c);
    }
  };
  for (const Node& node : g.nodes())
    if ((node.op_type == "Shape" || node.op_type == "Size") && node.domain.empty() &&
        has_accelerator(candidates[static_cast<size_t>(node.id)]))
      to_host(node);

  std::vector<char> visited(n, 0);
  while (!queue.empty()) {
    const NodeId id = queue.top();
    queue.pop();
    if (visited[static_cast<size_t>(id)]) continue;
    visited[static_cast<size_t>(id)] = 1;
    const Node& node = g.node(id);
    std::span<const Candidate> cands = candidates[static_cast<size_t>(id)];
    if (cands.empty()) continue;  // control flow: the executor runs it on the host
    if (!has_accelerator(cands)) {  // falls back to the CPU anyway
      to_host(node);
      continue;
    }
    const int cpu = first_cpu(cands);
    if (cpu < 0) continue;
    const uint64_t wanted_on_host = cands[static_cast<size_t>(first_accelerator(cands))].host_inputs;
    bool host = true;
    for (size_t i = 0; i < node.inputs.size() && host; ++i) {
      const ValueId v = node.inputs[i];
      if (v == kNoValue) continue;
      if (half_precision(g, v)) host = false;
      else if (small_initializer(g, v) || g.value(v).is_graph_input) continue;
      else if (!host_value[static_cast<size_t>(v)]) host = false;
      else if (i < 64 && (wanted_on_host >> i) & 1) host = false;
    }
    if (host) {
      on_cpu[static_cast<size_t>(id)] = 1;
      to_host(node);
    }
  }
}

bool OrtPolicy::cpu_preferred(const Graph& g, NodeId n) const {
  auto it = cpu_preferred_.find(&g);
  return it != cpu_preferred_.end() && n >= 0 && static_cast<size_t>(n) < it->second.size() &&
         it->second[static_cast<size_t>(n)];
}

PlacementDecision OrtPolicy::place(const PlacementRequest& request) {
  // The memo holds the chosen device index once decided; replaying it keeps
  // the partition fixed even if a caller passed candidates in another order.
  const int n = static_cast<int>(request.candidates.size());
  if (request.memo) {
    int32_t dev = request.memo->load(std::memory_order_relaxed);
    if (dev >= 0)
      for (int i = 0; i < n; ++i)
        if (request.candidates[static_cast<size_t>(i)].device_index == dev) return {i, "first-fit (decided once)"};
  }
  PlacementDecision d{first_accelerator(request.candidates), "first-fit by device priority"};
  if (request.graph && request.node && cpu_preferred(*request.graph, request.node->id)) {
    const int cpu = first_cpu(request.candidates);
    if (cpu >= 0) d = {cpu, "shape subgraph on the CPU"};
  }
  if (request.memo && n > 0)
    request.memo->store(request.candidates[static_cast<size_t>(d.candidate)].device_index, std::memory_order_relaxed);
  return d;
}

}  // namespace sy

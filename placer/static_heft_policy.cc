#include "placer/static_heft_policy.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace sy {
namespace {

double non_negative(double v) { return v > 0 && std::isfinite(v) ? v : 0; }

// Subgraphs a node owns, through graph and graphs attributes.
std::vector<const Graph*> subgraphs_of(const Node& n) {
  std::vector<const Graph*> out;
  for (const Attribute& a : n.attributes) {
    if (a.kind == Attribute::Kind::kGraph && a.g) out.push_back(a.g);
    if (a.kind == Attribute::Kind::kGraphs)
      for (const Graph* g : a.graphs)
        if (g) out.push_back(g);
  }
  return out;
}

}  // namespace

struct StaticHeftPolicy::GraphCosts {
  std::vector<std::vector<Candidate>> candidates;  // per NodeId; empty: control flow
  std::vector<double> mean_cost;                   // average compute per NodeId
  double total = 0;                                // sum of mean_cost
};

StaticHeftPolicy::StaticHeftPolicy() = default;
StaticHeftPolicy::~StaticHeftPolicy() = default;

Status StaticHeftPolicy::prepare(const PlanView& plan) {
  plans_.clear();
  costs_.clear();
  analyze(plan, plan.root());
  for (const auto& [g, c] : costs_) schedule(plan, *g);
  costs_.clear();
  return OkStatus();
}

void StaticHeftPolicy::analyze(const PlanView& plan, const Graph& g) {
  if (costs_.count(&g)) return;
  auto c = std::make_unique<GraphCosts>();
  size_t n = g.nodes().size();
  c->candidates.resize(n);
  c->mean_cost.assign(n, 0);
  for (NodeId id = 0; id < static_cast<NodeId>(n); ++id) {
    const Node& node = g.node(id);
    std::vector<const Graph*> bodies = subgraphs_of(node);
    for (const Graph* b : bodies) analyze(plan, *b);
    auto& cands = c->candidates[static_cast<size_t>(id)];
    cands = plan.candidates(g, id);
    double cost = 0;
    if (!cands.empty()) {
      for (const Candidate& k : cands) cost += non_negative(k.predicted_compute_us);
      cost /= static_cast<double>(cands.size());
    } else {
      // Only one If branch runs; loop bodies count one iteration.
      bool is_if = node.op_type == "If";
      for (const Graph* b : bodies) {
        double t = costs_.at(b)->total;
        cost = is_if ? std::max(cost, t) : cost + t;
      }
    }
    c->mean_cost[static_cast<size_t>(id)] = cost;
    c->total += cost;
  }
  costs_.emplace(&g, std::move(c));
}

void StaticHeftPolicy::schedule(const PlanView& plan, const Graph& g) {
  const GraphCosts& c = *costs_.at(&g);
  const size_t n = g.nodes().size();
  const int num_devices = static_cast<int>(plan.devices().size());
  GraphPlan& out = plans_[&g];
  out.device.assign(n, -1);
  if (num_devices == 0 || n == 0) return;

  std::vector<uint64_t> bytes(g.num_values());
  for (size_t v = 0; v < bytes.size(); ++v) bytes[v] = plan.value_bytes(g, static_cast<ValueId>(v));
  auto mean_transfer = [&](uint64_t b) {
    if (num_devices < 2) return 0.0;
    double sum = 0;
    for (int i = 0; i < num_devices; ++i)
      for (int j = 0; j < num_devices; ++j)
        if (i != j) sum += non_negative(plan.transfer_us(i, j, b));
    return sum / (static_cast<double>(num_devices) * (num_devices - 1));
  };

  // Upward ranks, successors first.
  std::vector<double> rank(n, 0);
  std::vector<NodeId> topo = g.topo_order();
  if (topo.size() != n) {  // a graph built by hand without an order: ids are one
    topo.resize(n);
    std::iota(topo.begin(), topo.end(), 0);
  }
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    const Node& node = g.node(*it);
    double tail = 0;
    for (ValueId v : node.outputs) {
      if (v == kNoValue) continue;
      const auto& consumers = g.value(v).consumers;
      if (consumers.empty()) continue;
      double edge = mean_transfer(bytes[static_cast<size_t>(v)]);
      for (NodeId m : consumers) tail = std::max(tail, edge + rank[static_cast<size_t>(m)]);
    }
    rank[static_cast<size_t>(*it)] = c.mean_cost[static_cast<size_t>(*it)] + tail;
  }
  // Decreasing rank is a topological order (a node's rank is at least its
  // successors'); ties keep the loader's order so producers stay first.
  std::vector<int> position(n, 0);
  for (size_t i = 0; i < topo.size(); ++i) position[static_cast<size_t>(topo[i])] = static_cast<int>(i);
  std::vector<NodeId> order(topo.begin(), topo.end());
  std::stable_sort(order.begin(), order.end(), [&](NodeId a, NodeId b) {
    double ra = rank[static_cast<size_t>(a)], rb = rank[static_cast<size_t>(b)];
    return ra != rb ? ra > rb : position[static_cast<size_t>(a)] < position[static_cast<size_t>(b)];
  });

  std::vector<double> device_free(static_cast<size_t>(num_devices), 0);
  std::vector<double> finish(n, 0);
  std::vector<char> done(n, 0);
  for (NodeId id : order) {
    const Node& node = g.node(id);
    auto arrival_on = [&](int d) {
      double ready = 0;
      auto consider = [&](ValueId v) {
        if (v == kNoValue) return;
        const ValueInfo& info = g.value(v);
        uint64_t b = bytes[static_cast<size_t>(v)];
        double at;
        if (info.producer >= 0 && done[static_cast<size_t>(info.producer)]) {
          int from = out.device[static_cast<size_t>(info.producer)];
          at = finish[static_cast<size_t>(info.producer)] + (from == d ? 0 : non_negative(plan.transfer_us(from, d, b)));
        } else if (info.initializer >= 0) {
          at = 0;
        } else {
          at = d == 0 ? 0 : non_negative(plan.transfer_us(0, d, b));
        }
        ready = std::max(ready, at);
      };
      for (ValueId v : node.inputs) consider(v);
      for (ValueId v : node.implicit_inputs) consider(v);
      return ready;
    };
    int best_dev = -1;
    double best_finish = 0;
    auto try_device = [&](int d, double cost) {
      if (d < 0 || d >= num_devices) return;
      double f = std::max(device_free[static_cast<size_t>(d)], arrival_on(d)) + non_negative(cost);
      if (best_dev < 0 || f < best_finish) {
        best_dev = d;
        best_finish = f;
      }
    };
    const auto& cands = c.candidates[static_cast<size_t>(id)];
    if (cands.empty()) {
      try_device(0, c.mean_cost[static_cast<size_t>(id)]);
    } else {
      for (const Candidate& k : cands) try_device(k.device_index, k.predicted_compute_us);
    }
    if (best_dev < 0) continue;  // no usable device index; place() falls back
    out.device[static_cast<size_t>(id)] = best_dev;
    finish[static_cast<size_t>(id)] = best_finish;
    done[static_cast<size_t>(id)] = 1;
    device_free[static_cast<size_t>(best_dev)] = best_finish;
    out.makespan_us = std::max(out.makespan_us, best_finish);
  }
}

PlacementDecision StaticHeftPolicy::place(const PlacementRequest& request) {
  const int n = static_cast<int>(request.candidates.size());
  if (request.memo) {
    int32_t cached = request.memo->load(std::memory_order_relaxed);
    if (cached >= 0 && cached < n) return {cached, "static HEFT plan"};
  }
  int pick = 0;
  const char* reason = "static HEFT: graph not prepared, first candidate";
  int dev = request.graph && request.node ? planned_device(*request.graph, request.node->id) : -1;
  if (dev >= 0) {
    reason = "static HEFT: planned device lacks a kernel, first candidate";
    for (int i = 0; i < n; ++i) {
      if (request.candidates[static_cast<size_t>(i)].device_index == dev) {
        pick = i;
        reason = "static HEFT plan";
        break;
      }
    }
  }
  if (request.memo) request.memo->store(pick, std::memory_order_relaxed);
  return {pick, reason};
}

int StaticHeftPolicy::planned_device(const Graph& g, NodeId n) const {
  auto it = plans_.find(&g);
  if (it == plans_.end() || n < 0 || static_cast<size_t>(n) >= it->second.device.size()) return -1;
  return it->second.device[static_cast<size_t>(n)];
}

double StaticHeftPolicy::planned_makespan_us(const Graph& g) const {
  auto it = plans_.find(&g);
  return it == plans_.end() ? -1 : it->second.makespan_us;
}

}  // namespace sy

#include "placer/static_heft_policy.h"

#include <gtest/gtest.h>

#include <map>

#include "placer/policy_registry.h"
#include "tests/executor/model_builder.h"
#include "tests/placer/policy_test_util.h"

namespace sy {
namespace {

using testing::candidates_on;
using testing::GraphBuilder;
using testing::request_for;

constexpr int kFloat = onnx::TensorProto::FLOAT;
constexpr int kBool = onnx::TensorProto::BOOL;

// A PlanView over a loaded model with costs per op type and device, and a
// flat transfer time between distinct devices.
class FakePlan : public PlanView {
 public:
  FakePlan(const Graph& root, int num_devices) : root_(root) {
    for (int i = 0; i < num_devices; ++i) devices_.push_back(DeviceId{DeviceKind::kCpu, static_cast<int16_t>(i)});
  }
  const Graph& root() const override { return root_; }
  std::span<const DeviceId> devices() const override { return devices_; }
  std::vector<Candidate> candidates(const Graph& g, NodeId n) const override {
    const Node& node = g.node(n);
    if (node.op_type == "If" || node.op_type == "Loop" || node.op_type == "Scan") return {};
    std::vector<int> idx;
    for (size_t i = 0; i < devices_.size(); ++i)
      if (!only_on_.count(node.op_type) || only_on_.at(node.op_type) == static_cast<int>(i)) idx.push_back(static_cast<int>(i));
    auto c = candidates_on(idx);
    for (Candidate& k : c) {
      auto it = cost_.find(node.op_type);
      k.predicted_compute_us = it == cost_.end() ? 1.0 : it->second[static_cast<size_t>(k.device_index)];
    }
    return c;
  }
  double transfer_us(int from, int to, uint64_t bytes) const override { return from == to ? 0 : transfer_; }
  uint64_t value_bytes(const Graph&, ValueId) const override { return 4096; }

  std::map<std::string, std::vector<double>> cost_;  // op -> per device
  std::map<std::string, int> only_on_;               // op -> the one device with a kernel
  double transfer_ = 5;

 private:
  const Graph& root_;
  std::vector<DeviceId> devices_;
};

// x -> Relu -> a; a -> Exp -> b; a -> Sigmoid -> c; (b, c) -> Add -> y.
std::unique_ptr<Model> diamond() {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kFloat, {1024}).output("y", kFloat, {1024});
  g.node("Relu", {"x"}, {"a"});
  g.node("Exp", {"a"}, {"b"});
  g.node("Sigmoid", {"a"}, {"c"});
  g.node("Add", {"b", "c"}, {"y"});
  auto loaded = testing::load_model(m);
  EXPECT_TRUE(loaded.ok()) << loaded.status().to_string();
  return loaded.ok() ? std::move(loaded).value() : nullptr;
}

NodeId find(const Graph& g, const std::string& op) {
  for (const Node& n : g.nodes())
    if (n.op_type == op) return n.id;
  return -1;
}

TEST(StaticHeftPolicy, Prepare_ParallelBranches_GoToDifferentDevices) {
  auto model = diamond();
  ASSERT_TRUE(model);
  const Graph& g = *model->graph;
  FakePlan plan(g, 2);
  plan.cost_ = {{"Relu", {1, 1}}, {"Exp", {100, 100}}, {"Sigmoid", {100, 100}}, {"Add", {1, 1}}};
  StaticHeftPolicy p;
  ASSERT_TRUE(p.prepare(plan).ok());
  int exp_dev = p.planned_device(g, find(g, "Exp")), sig_dev = p.planned_device(g, find(g, "Sigmoid"));
  EXPECT_NE(exp_dev, sig_dev);
  EXPECT_EQ(p.planned_device(g, find(g, "Relu")), 0);  // x starts in device 0's memory
  // Relu 1, both branches in parallel 100 + one transfer 5, the second
  // branch's result moves 5 more, Add 1.
  EXPECT_NEAR(p.planned_makespan_us(g), 1 + 5 + 100 + 1, 1e-9);
}

TEST(StaticHeftPolicy, Prepare_ExpensiveTransfers_KeepEverythingTogether) {
  auto model = diamond();
  ASSERT_TRUE(model);
  const Graph& g = *model->graph;
  FakePlan plan(g, 2);
  plan.cost_ = {{"Relu", {1, 1}}, {"Exp", {100, 100}}, {"Sigmoid", {100, 100}}, {"Add", {1, 1}}};
  plan.transfer_ = 1000;
  StaticHeftPolicy p;
  ASSERT_TRUE(p.prepare(plan).ok());
  for (const Node& n : g.nodes()) EXPECT_EQ(p.planned_device(g, n.id), 0) << n.op_type;
  EXPECT_NEAR(p.planned_makespan_us(g), 202, 1e-9);
}

TEST(StaticHeftPolicy, Prepare_FasterDevice_TakesTheHeavyNodes) {
  auto model = diamond();
  ASSERT_TRUE(model);
  const Graph& g = *model->graph;
  FakePlan plan(g, 2);
  plan.cost_ = {{"Relu", {1, 1}}, {"Exp", {400, 40}}, {"Sigmoid", {400, 40}}, {"Add", {1, 1}}};
  StaticHeftPolicy p;
  ASSERT_TRUE(p.prepare(plan).ok());
  EXPECT_EQ(p.planned_device(g, find(g, "Exp")), 1);
  EXPECT_EQ(p.planned_device(g, find(g, "Sigmoid")), 1);
}

TEST(StaticHeftPolicy, Place_MapsPlannedDeviceToCandidate_AndCachesInMemo) {
  auto model = diamond();
  ASSERT_TRUE(model);
  const Graph& g = *model->graph;
  FakePlan plan(g, 3);
  plan.cost_ = {{"Exp", {100, 100, 10}}};
  StaticHeftPolicy p;
  EXPECT_FALSE(p.uses_costs());
  ASSERT_TRUE(p.prepare(plan).ok());
  NodeId exp = find(g, "Exp");
  ASSERT_EQ(p.planned_device(g, exp), 2);
  auto c = candidates_on({0, 2});  // the executor's candidates for this node
  std::atomic<int32_t> memo{-1};
  PlacementRequest r = request_for(c, &memo);
  r.graph = &g;
  r.node = &g.node(exp);
  EXPECT_EQ(p.place(r).candidate, 1);
  EXPECT_EQ(memo.load(), 1);
  // Cached: even a request without the graph replays it.
  PlacementRequest again = request_for(c, &memo);
  EXPECT_EQ(p.place(again).candidate, 1);
  // A planned device absent from the candidates falls back to candidate 0.
  auto other = candidates_on({0, 1});
  PlacementRequest r2 = request_for(other);
  r2.graph = &g;
  r2.node = &g.node(exp);
  EXPECT_EQ(p.place(r2).candidate, 0);
}

TEST(StaticHeftPolicy, Place_WithoutPrepare_FirstCandidate) {
  auto model = diamond();
  ASSERT_TRUE(model);
  StaticHeftPolicy p;
  auto c = candidates_on({1, 0});
  PlacementRequest r = request_for(c);
  r.graph = model->graph.get();
  r.node = &model->graph->node(0);
  EXPECT_EQ(p.place(r).candidate, 0);
}

// cond, x -> If(then: Exp(x), else: Neg(x)) -> y; y -> Relu -> z.
TEST(StaticHeftPolicy, Prepare_IfBranches_ScheduledSeparately) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("cond", kBool, {}).input("x", kFloat, {4}).output("z", kFloat, {4});
  auto* iff = g.node("If", {"cond"}, {"y"});
  GraphBuilder thn = GraphBuilder::subgraph(iff, "then_branch", "then");
  thn.node("Exp", {"x"}, {"t"});
  thn.output("t", kFloat, {4});
  GraphBuilder els = GraphBuilder::subgraph(iff, "else_branch", "else");
  els.node("Neg", {"x"}, {"e"});
  els.output("e", kFloat, {4});
  g.node("Relu", {"y"}, {"z"});
  auto loaded = testing::load_model(m);
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  const Graph& root = *(*loaded)->graph;
  NodeId if_id = find(root, "If");
  ASSERT_GE(if_id, 0);
  const Graph* then_g = root.node(if_id).attr_graph("then_branch");
  const Graph* else_g = root.node(if_id).attr_graph("else_branch");
  ASSERT_TRUE(then_g && else_g);

  FakePlan plan(root, 2);
  plan.cost_ = {{"Exp", {50, 5}}, {"Neg", {1, 80}}, {"Relu", {1, 1}}};
  StaticHeftPolicy p;
  ASSERT_TRUE(p.prepare(plan).ok());
  EXPECT_EQ(p.planned_device(root, if_id), 0);  // control flow: device 0
  EXPECT_EQ(p.planned_device(*then_g, find(*then_g, "Exp")), 1);
  EXPECT_EQ(p.planned_device(*else_g, find(*else_g, "Neg")), 0);
  // The If stands for its costlier branch's average, Neg's (1 + 80) / 2,
  // not the sum of both branches; Relu follows on device 0.
  EXPECT_NEAR(p.planned_makespan_us(root), 40.5 + 1, 1e-9);

  // place() inside a branch uses that branch's plan.
  auto c = candidates_on({0, 1});
  PlacementRequest r = request_for(c);
  r.graph = then_g;
  r.node = &then_g->node(find(*then_g, "Exp"));
  EXPECT_EQ(p.place(r).candidate, 1);
}

TEST(StaticHeftPolicy, Registry_CreatesByName) {
  auto p = PolicyRegistry::builtin().create("static-heft");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->name(), "static-heft");
}

}  // namespace
}  // namespace sy

#include "placer/ort_policy.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "placer/policy_registry.h"
#include "tests/executor/model_builder.h"
#include "tests/placer/policy_test_util.h"

namespace sy {
namespace {

using testing::candidates_on;
using testing::GraphBuilder;
using testing::request_for;

constexpr int kFloat = onnx::TensorProto::FLOAT;
constexpr int kFloat16 = onnx::TensorProto::FLOAT16;

// A plan over cpu:0 and cuda:0: every op has a kernel on both, except the
// ops in cpu_only_; host_inputs_ gives the CUDA kernel's host-input mask.
class CpuGpuPlan : public PlanView {
 public:
  explicit CpuGpuPlan(const Graph& root) : root_(root) {}
  const Graph& root() const override { return root_; }
  std::span<const DeviceId> devices() const override { return devices_; }
  std::vector<Candidate> candidates(const Graph& g, NodeId n) const override {
    const Node& node = g.node(n);
    if (node.op_type == "If" || node.op_type == "Loop" || node.op_type == "Scan") return {};
    auto c = candidates_on({0, 1});
    c[1].device = devices_[1];
    c[1].space = MemorySpace{DeviceKind::kCuda, 0};
    auto it = host_inputs_.find(node.op_type);
    if (it != host_inputs_.end()) c[1].host_inputs = it->second;
    if (cpu_only_.count(node.op_type)) c.pop_back();
    return c;
  }
  double transfer_us(int, int, uint64_t) const override { return 0; }
  uint64_t value_bytes(const Graph&, ValueId) const override { return 0; }

  std::set<std::string> cpu_only_;
  std::map<std::string, uint64_t> host_inputs_{{"Reshape", 2}, {"Unsqueeze", 2}};

 private:
  const Graph& root_;
  std::vector<DeviceId> devices_{DeviceId{DeviceKind::kCpu, 0}, DeviceId{DeviceKind::kCuda, 0}};
};

NodeId node_named(const Graph& g, const std::string& output) {
  for (const Node& n : g.nodes())
    if (!n.outputs.empty() && g.value(n.outputs[0]).name == output) return n.id;
  ADD_FAILURE() << "no node writes " << output;
  return -1;
}

// x -> Shape -> s -> Gather(s, [0]) -> d -> Concat(d, [-1]) -> shp
// Reshape(x, shp) -> y; Reshape(d, shp) -> dd (a shape vector reshaped by a
// shape vector); Relu(x) -> r; NonZero(d) -> nz -> Add(nz, [1]) -> nz1;
// Expand(x16, shp) -> c (float16 data stays where it is); Mul(s, big) -> m (a large
// initializer is device data).
std::unique_ptr<Model> shape_subgraph() {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kFloat, {2, 3}).input("x16", kFloat16, {2}).output("y", kFloat, {6});
  g.init_int64("zero", {1}, {0}).init_int64("minus1", {1}, {-1}).init_int64("one", {1}, {1});
  g.init_int64("big", {101}, std::vector<int64_t>(101, 2));
  for (const char* out : {"dd", "r", "nz1", "m"}) g.output(out, kFloat, {});
  g.output("c", kFloat16, {});
  g.node("Shape", {"x"}, {"s"});
  g.node("Gather", {"s", "zero"}, {"d"});
  g.node("Concat", {"d", "minus1"}, {"shp"})->add_attribute()->CopyFrom([] {
    onnx::AttributeProto a;
    a.set_name("axis");
    a.set_type(onnx::AttributeProto::INT);
    a.set_i(0);
    return a;
  }());
  g.node("Reshape", {"x", "shp"}, {"y"});
  g.node("Reshape", {"d", "shp"}, {"dd"});
  g.node("Relu", {"x"}, {"r"});
  g.node("NonZero", {"d"}, {"nz"});
  g.node("Add", {"nz", "one"}, {"nz1"});
  g.node("Expand", {"x16", "shp"}, {"c"});
  g.node("Mul", {"s", "big"}, {"m"});
  auto loaded = testing::load_model(m);
  EXPECT_TRUE(loaded.ok()) << loaded.status().to_string();
  return loaded.ok() ? std::move(loaded).value() : nullptr;
}

TEST(OrtPolicy, Prepare_ShapeSubgraph_RunsOnCpu_AsOnnxRuntimeFallsBack) {
  auto model = shape_subgraph();
  ASSERT_TRUE(model);
  const Graph& g = *model->graph;
  CpuGpuPlan plan(g);
  plan.cpu_only_ = {"NonZero"};
  OrtPolicy p;
  ASSERT_TRUE(p.prepare(plan).ok());
  // Shape stays on the accelerator (its output is what is in host memory).
  EXPECT_FALSE(p.cpu_preferred(g, node_named(g, "s")));
  // Host tensors and small initializers only: CPU.
  EXPECT_TRUE(p.cpu_preferred(g, node_named(g, "d")));
  EXPECT_TRUE(p.cpu_preferred(g, node_named(g, "shp")));
  // Behind a node with no accelerator kernel, the walk goes on.
  EXPECT_TRUE(p.cpu_preferred(g, node_named(g, "nz1")));
  // Device data in: stays on the accelerator.
  EXPECT_FALSE(p.cpu_preferred(g, node_named(g, "y")));
  EXPECT_FALSE(p.cpu_preferred(g, node_named(g, "r")));
  EXPECT_FALSE(p.cpu_preferred(g, node_named(g, "m")));  // 101 elements is not small
  // The accelerator kernel reads the shape on the host anyway.
  EXPECT_FALSE(p.cpu_preferred(g, node_named(g, "dd")));
  // Host inputs only, but one is float16: ONNX Runtime never moves those.
  EXPECT_FALSE(p.cpu_preferred(g, node_named(g, "c")));

  // place() follows the partition and memoises the device.
  const NodeId gather = node_named(g, "d");
  std::vector<Candidate> c = plan.candidates(g, gather);
  std::atomic<int32_t> memo{-1};
  PlacementRequest r = request_for(c, &memo);
  r.graph = &g;
  r.node = &g.node(gather);
  EXPECT_EQ(c[static_cast<size_t>(p.place(r).candidate)].device.kind, DeviceKind::kCpu);
  EXPECT_EQ(memo.load(), 0);
  const NodeId relu = node_named(g, "r");
  c = plan.candidates(g, relu);
  r = request_for(c);
  r.graph = &g;
  r.node = &g.node(relu);
  EXPECT_EQ(c[static_cast<size_t>(p.place(r).candidate)].device.kind, DeviceKind::kCuda);
}

TEST(OrtPolicy, Prepare_NoAcceleratorShape_MovesNothing) {
  auto model = shape_subgraph();
  ASSERT_TRUE(model);
  const Graph& g = *model->graph;
  CpuGpuPlan plan(g);
  plan.cpu_only_ = {"Shape", "NonZero"};  // Shape is not reached through the CUDA rule
  OrtPolicy p;
  ASSERT_TRUE(p.prepare(plan).ok());
  for (const Node& n : g.nodes()) EXPECT_FALSE(p.cpu_preferred(g, n.id)) << n.describe();
}

TEST(OrtPolicy, Place_PicksFirstCandidate_WhateverTheCosts) {
  OrtPolicy p;
  auto c = candidates_on({1, 2});
  c[0].predicted_compute_us = 1000;
  c[1].predicted_compute_us = 1;
  EXPECT_EQ(p.place(request_for(c)).candidate, 0);
  EXPECT_FALSE(p.uses_costs());
}

TEST(OrtPolicy, Place_DecidedOnce_ReplaysMemo) {
  OrtPolicy p;
  std::atomic<int32_t> memo{-1};
  auto first = candidates_on({2, 3});
  EXPECT_EQ(p.place(request_for(first, &memo)).candidate, 0);
  EXPECT_EQ(memo.load(), 2);  // the device index, not the candidate index
  auto reordered = candidates_on({3, 2});
  EXPECT_EQ(p.place(request_for(reordered, &memo)).candidate, 1);
}

TEST(OrtPolicy, Place_AcceleratorBeforeCpu_WhateverTheDeviceOrder) {
  // --devices cpu,cuda:0: ONNX Runtime would still try its CUDA provider
  // first and keep the CPU as the fallback.
  OrtPolicy p;
  auto c = candidates_on({0, 1});
  c[1].device = DeviceId{DeviceKind::kCuda, 0};
  c[1].space = MemorySpace{DeviceKind::kCuda, 0};
  std::atomic<int32_t> memo{-1};
  EXPECT_EQ(p.place(request_for(c, &memo)).candidate, 1);
  EXPECT_EQ(memo.load(), 1);
}

TEST(OrtPolicy, Registry_CreatesByName) {
  auto p = PolicyRegistry::builtin().create("ort");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->name(), "ort");
}

}  // namespace
}  // namespace sy

#include "ir/channels_last.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ir/onnx_loader.h"
#include "ir/op_fusion.h"
#include "tests/executor/model_builder.h"

namespace sy {
namespace {

using testing::GraphBuilder;
constexpr int kF = onnx::TensorProto::FLOAT;

// Adds Conv(x, W_<name>) -> `y`, [m, c, k, k] weights, "same" pads, and
// types y as [n, m, 8, 8].
void conv(GraphBuilder& g, const std::string& x, const std::string& y, int64_t c, int64_t m, int64_t k = 3,
          int64_t group = 1, int64_t n = 1) {
  g.init_float("W_" + y, {m, c / group, k, k}, std::vector<float>(static_cast<size_t>(m * c / group * k * k), 0.5f));
  auto* node = g.node("Conv", {x, "W_" + y}, {y});
  node->set_name("conv_" + y);
  GraphBuilder::ints(node, "pads", {k / 2, k / 2, k / 2, k / 2});
  if (group != 1) {
    auto* a = node->add_attribute();
    a->set_name("group");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(group);
  }
  g.value(y, kF, {n, m, 8, 8});
}

// The ops of g's nodes in order, "Transpose" with its perm.
std::vector<std::string> ops(const onnx::GraphProto& g) {
  std::vector<std::string> out;
  for (const auto& n : g.node()) {
    std::string op = n.op_type();
    for (const auto& a : n.attribute())
      if (a.name() == "perm") op += a.ints(1) == 2 ? "(to NHWC)" : "(to NCHW)";
    out.push_back(op);
  }
  return out;
}

// ChannelsLast::run's counts of m: {convolutions, pools}.
std::pair<int, int> rewrite(onnx::ModelProto& m) {
  FusionCounts c;
  ChannelsLast::run(m, c);
  return {c.channels_last_convs, c.channels_last_pools};
}

const onnx::NodeProto* producer(const onnx::GraphProto& g, const std::string& value) {
  for (const auto& n : g.node())
    for (const auto& o : n.output())
      if (o == value) return &n;
  return nullptr;
}

// The dims g's value_info gives `name`, -1 for a symbol.
std::vector<int64_t> dims_of(const onnx::GraphProto& g, const std::string& name) {
  for (const auto& v : g.value_info())
    if (v.name() == name) {
      std::vector<int64_t> d;
      for (const auto& dim : v.type().tensor_type().shape().dim())
        d.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
      return d;
    }
  return {};
}

// Two convolutions in a row: one Transpose in, both NhwcConv, one out; the
// value between them is channels-last only, typed with its dims permuted.
TEST(ChannelsLast, Chain_RunsChannelsLastBetweenTransposes) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {1, 4, 8, 8}).output("y", kF, {1, 16, 8, 8});
  conv(g, "x", "a", 4, 8);
  conv(g, "a", "y", 8, 16, 1);
  EXPECT_EQ(rewrite(m), std::make_pair(2, 0));
  const onnx::GraphProto& out = m.graph();
  EXPECT_EQ(ops(out), (std::vector<std::string>{"Transpose(to NHWC)", kNhwcConv, kNhwcConv, "Transpose(to NCHW)"}));
  EXPECT_EQ(out.node(1).domain(), kSwitchyardDomain);
  EXPECT_EQ(out.node(2).input(0), out.node(1).output(0));
  EXPECT_EQ(out.node(3).output(0), "y");
  EXPECT_EQ(dims_of(out, out.node(0).output(0)), (std::vector<int64_t>{1, 8, 8, 4}));
  EXPECT_EQ(dims_of(out, out.node(1).output(0)), (std::vector<int64_t>{1, 8, 8, 8}));
  EXPECT_TRUE(dims_of(out, "a").empty()) << "no node makes the NCHW value any more";
  bool imported = false;
  for (const auto& op : m.opset_import()) imported = imported || op.domain() == kSwitchyardDomain;
  EXPECT_TRUE(imported);
}

// A convolution alone, one whose weights a caller may feed, one of another
// group, and one whose input has no known rank are left as they are.
TEST(ChannelsLast, LeavesAlone_WhatItCannotChainOrRun) {
  {
    auto m = testing::new_model();
    GraphBuilder g(m.mutable_graph());
    g.input("x", kF, {1, 4, 8, 8}).output("y", kF, {1, 8, 8, 8});
    conv(g, "x", "y", 4, 8);
    EXPECT_EQ(rewrite(m), std::make_pair(0, 0)) << "two transposes would cost more than the layout gains";
  }
  {
    auto m = testing::new_model();
    GraphBuilder g(m.mutable_graph());
    g.input("x", kF, {1, 4, 8, 8}).output("y", kF, {1, 8, 8, 8});
    conv(g, "x", "a", 4, 8);
    conv(g, "a", "y", 8, 8);
    g.input("W_y", kF, {8, 8, 3, 3});  // an initializer that is also an input
    EXPECT_EQ(rewrite(m), std::make_pair(0, 0));
  }
  {
    auto m = testing::new_model();
    GraphBuilder g(m.mutable_graph());
    g.input("x", kF, {1, 4, 8, 8}).output("y", kF, {1, 8, 8, 8});
    conv(g, "x", "a", 4, 8);
    conv(g, "a", "y", 8, 8, 3, /*group=*/2);
    EXPECT_EQ(rewrite(m), std::make_pair(0, 0));
  }
  {
    auto m = testing::new_model();
    GraphBuilder g(m.mutable_graph());
    g.output("y", kF, {1, 8, 8, 8});
    auto* x = m.mutable_graph()->add_input();
    x->set_name("x");
    x->mutable_type()->mutable_tensor_type()->set_elem_type(kF);  // no shape
    g.init_float("W_a", {8, 4, 3, 3}, std::vector<float>(288, 1.f));
    g.node("Conv", {"x", "W_a"}, {"a"});
    g.value("a", kF, {1, 8, 8, 8});
    conv(g, "a", "y", 8, 8);
    EXPECT_EQ(rewrite(m), std::make_pair(0, 0)) << "the second alone could run channels-last, but it has no chain";
    EXPECT_EQ(ops(m.graph()), (std::vector<std::string>{"Conv", "Conv"}));
  }
}

// Depthwise convolutions chain too; a value that other nodes also read
// (a Relu, the graph's outputs) stays NCHW for them, through one Transpose
// back; an input that two convolutions read is transposed once; a residual
// Z is taken channels-last like X.
TEST(ChannelsLast, SharedValues_AreTransposedOnceEachWay) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {1, 8, 8, 8}).output("y", kF, {1, 8, 8, 8}).output("a", kF, {1, 8, 8, 8});
  conv(g, "x", "a", 8, 8, 3, /*group=*/8);  // depthwise
  conv(g, "x", "b", 8, 8, 1);
  g.node("Relu", {"a"}, {"r"});
  g.value("r", kF, {1, 8, 8, 8});
  auto* fused = g.node("FusedConv", {"b", "W_b", "", "a"}, {"y"});  // y = conv(b) + a
  fused->set_domain(kSwitchyardDomain);
  g.value("y", kF, {1, 8, 8, 8});
  EXPECT_EQ(rewrite(m), std::make_pair(3, 0));
  const onnx::GraphProto& out = m.graph();
  EXPECT_EQ(ops(out), (std::vector<std::string>{"Transpose(to NHWC)", kNhwcConv, "Transpose(to NCHW)", kNhwcConv,
                                                "Relu", kNhwcConv, "Transpose(to NCHW)"}));
  EXPECT_EQ(out.node(3).input(0), out.node(0).output(0)) << "x transposed once for both";
  EXPECT_EQ(out.node(2).output(0), "a") << "for the Relu and the graph output";
  EXPECT_EQ(out.node(5).input(0), out.node(3).output(0));
  EXPECT_EQ(out.node(5).input(3), out.node(1).output(0)) << "the residual, channels-last";
  EXPECT_EQ(producer(out, "y")->op_type(), "Transpose");
}

// A symbolic batch keeps its name in the permuted types, and a chain in a
// Loop's body is rewritten there, where an outer value may be read.
TEST(ChannelsLast, SymbolicDimsAndSubgraphs) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {1, 4, 8, 8}).output("y", kF, {1, 8, 8, 8});
  auto* dim =
      m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0);
  dim->clear_dim_value();
  dim->set_dim_param("batch");
  conv(g, "x", "a", 4, 8);
  conv(g, "a", "y", 8, 8);
  EXPECT_EQ(rewrite(m), std::make_pair(2, 0));
  for (const auto& v : m.graph().value_info()) {
    if (v.name() == m.graph().node(0).output(0)) {
      EXPECT_EQ(v.type().tensor_type().shape().dim(0).dim_param(), "batch");
    }
  }

  auto l = testing::new_model();
  GraphBuilder outer(l.mutable_graph());
  outer.input("n", onnx::TensorProto::INT64, {}).input("x", kF, {1, 4, 8, 8}).output("y", kF, {1, 4, 8, 8});
  auto* loop = outer.node("Loop", {"n", "", "x"}, {"y"});
  auto body = GraphBuilder::subgraph(loop, "body", "body");
  body.input("i", onnx::TensorProto::INT64, {}).input("c", onnx::TensorProto::BOOL, {}).input("v", kF, {1, 4, 8, 8});
  body.node("Identity", {"c"}, {"c_out"});
  conv(body, "v", "a", 4, 4);
  conv(body, "a", "v_out", 4, 4);
  body.output("c_out", onnx::TensorProto::BOOL, {}).output("v_out", kF, {1, 4, 8, 8});
  EXPECT_EQ(rewrite(l), std::make_pair(2, 0));
  EXPECT_EQ(ops(l.graph().node(0).attribute(0).g()),
            (std::vector<std::string>{"Identity", "Transpose(to NHWC)", kNhwcConv, kNhwcConv, "Transpose(to NCHW)"}));
}

// A ResNet's stem: its convolution feeds a MaxPool, which feeds the next
// convolution, and a GlobalAveragePool ends the chain; all four run
// channels-last. Pools with no convolution next to them stay as they are.
TEST(ChannelsLast, Pools_JoinChainsOfConvolutions) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {1, 3, 16, 16}).output("y", kF, {1, 8, 1, 1});
  conv(g, "x", "stem", 3, 8, 7);
  g.value("stem", kF, {1, 8, 16, 16});
  auto* pool = g.node("MaxPool", {"stem"}, {"p"});
  GraphBuilder::ints(pool, "kernel_shape", {2, 2});
  GraphBuilder::ints(pool, "strides", {2, 2});
  g.value("p", kF, {1, 8, 8, 8});
  conv(g, "p", "c", 8, 8);
  g.node("GlobalAveragePool", {"c"}, {"y"});
  EXPECT_EQ(rewrite(m), std::make_pair(2, 2));
  EXPECT_EQ(ops(m.graph()), (std::vector<std::string>{"Transpose(to NHWC)", kNhwcConv, kNhwcMaxPool, kNhwcConv,
                                                      kNhwcGlobalAveragePool, "Transpose(to NCHW)"}));

  auto lone = testing::new_model();
  GraphBuilder l(lone.mutable_graph());
  l.input("x", kF, {1, 3, 16, 16}).output("y", kF, {1, 3, 1, 1});
  auto* p2 = l.node("MaxPool", {"x"}, {"p"});
  GraphBuilder::ints(p2, "kernel_shape", {2, 2});
  l.value("p", kF, {1, 3, 15, 15});
  l.node("GlobalAveragePool", {"p"}, {"y"});
  EXPECT_EQ(rewrite(lone), std::make_pair(0, 0));
}

// Elementwise ops between convolutions run on the channels-last values as
// they are: an activation (a HardSwish after a convolution runs inside
// it), and a squeeze-and-excitation block, whose Mul broadcasts a
// [1, C, 1, 1] scale (as [1, 1, 1, C]). A binary op with an
// input of another rank stays NCHW, and so does a single convolution with
// its activation.
TEST(ChannelsLast, ElementwiseOps_RunChannelsLastInsideAChain) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {1, 8, 8, 8}).output("y", kF, {1, 8, 8, 8});
  conv(g, "x", "a", 8, 8);
  g.node("HardSwish", {"a"}, {"h"});
  g.value("h", kF, {1, 8, 8, 8});
  g.node("GlobalAveragePool", {"h"}, {"s"});
  g.value("s", kF, {1, 8, 1, 1});
  g.init_float("W_e", {8, 8, 1, 1}, std::vector<float>(64, 0.5f));
  g.node("Conv", {"s", "W_e"}, {"e"});
  g.value("e", kF, {1, 8, 1, 1});
  g.node("HardSigmoid", {"e"}, {"k"});
  g.value("k", kF, {1, 8, 1, 1});
  g.node("Mul", {"h", "k"}, {"se"});
  g.value("se", kF, {1, 8, 8, 8});
  conv(g, "se", "y", 8, 8, 1);
  FusionCounts c;
  ChannelsLast::run(m, c);
  EXPECT_EQ(c.channels_last_convs, 3);
  EXPECT_EQ(c.channels_last_pools, 1);
  EXPECT_EQ(c.channels_last_elementwise, 3);
  // The HardSwish runs in the first convolution's epilogue.
  EXPECT_EQ(ops(m.graph()),
            (std::vector<std::string>{"Transpose(to NHWC)", kNhwcConv, kNhwcGlobalAveragePool, kNhwcConv, "HardSigmoid",
                                      "Mul", kNhwcConv, "Transpose(to NCHW)"}));
  const onnx::AttributeProto* act = nullptr;
  for (const auto& a : m.graph().node(1).attribute())
    if (a.name() == "activation") act = &a;
  ASSERT_NE(act, nullptr);
  EXPECT_EQ(act->s(), "HardSwish");
  EXPECT_EQ(dims_of(m.graph(), m.graph().node(4).output(0)), (std::vector<int64_t>{1, 1, 1, 8}));

  auto other = testing::new_model();
  GraphBuilder o(other.mutable_graph());
  o.input("x", kF, {1, 8, 8, 8}).input("b", kF, {8, 1, 1}).output("y", kF, {1, 8, 8, 8});
  conv(o, "x", "a", 8, 8);
  o.node("Add", {"a", "b"}, {"ab"});  // rank 3: would broadcast over another axis in NHWC
  o.value("ab", kF, {1, 8, 8, 8});
  conv(o, "ab", "c", 8, 8);
  o.node("Relu", {"c"}, {"y"});
  EXPECT_EQ(rewrite(other), std::make_pair(0, 0));
}

// The loader applies it only when asked, after the fusions, and counts it.
TEST(ChannelsLast, Loader_OnRequestOnly) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {1, 4, 8, 8}).output("y", kF, {1, 8, 8, 8});
  conv(g, "x", "a", 4, 8);
  g.node("Relu", {"a"}, {"r"});
  conv(g, "r", "y", 8, 8);
  for (bool on : {false, true}) {
    LoadOptions opt;
    opt.channels_last = on;
    auto proto = m;
    auto model = OnnxLoader(opt).load_proto(proto, "chain", "");
    ASSERT_TRUE(model.ok()) << model.status().to_string();
    EXPECT_EQ((*model)->fusions.activations_fused, 1);
    EXPECT_EQ((*model)->fusions.channels_last_convs, on ? 2 : 0);
    std::map<std::string, int> count;
    for (const auto& n : (*model)->graph->nodes()) ++count[n.op_type];
    EXPECT_EQ(count[kNhwcConv], on ? 2 : 0);
    EXPECT_EQ(count["Transpose"], on ? 2 : 0);
  }
}

}  // namespace
}  // namespace sy

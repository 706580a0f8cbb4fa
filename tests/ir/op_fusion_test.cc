#include "ir/op_fusion.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "ir/onnx_loader.h"
#include "tests/executor/model_builder.h"

namespace sy {
namespace {

using testing::GraphBuilder;
constexpr int kF = onnx::TensorProto::FLOAT;
constexpr int kI64 = onnx::TensorProto::INT64;

// x[1,2,4,4] -> Conv(W[3,2,3,3], B[3]) -> "c" -> BatchNormalization -> "bn"
// -> Relu -> "y". With `clip`, Clip(bn, lo, hi) instead of Relu.
onnx::ModelProto conv_bn_act(bool clip = false, int opset = 17) {
  auto m = testing::new_model(opset);
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {1, 2, 4, 4}).output("y", kF, {1, 3, 4, 4});
  std::vector<float> w(54);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 7) - 3;
  g.init_float("W", {3, 2, 3, 3}, w).init_float("B", {3}, {0.5f, -1, 2});
  g.init_float("scale", {3}, {2, 0.5f, 1}).init_float("bias", {3}, {1, 0, -1});
  g.init_float("mean", {3}, {0.25f, 1, -2}).init_float("var", {3}, {4, 0.25f, 1});
  GraphBuilder::ints(g.node("Conv", {"x", "W", "B"}, {"c"}), "pads", {1, 1, 1, 1});
  auto* bn = g.node("BatchNormalization", {"c", "scale", "bias", "mean", "var"}, {"bn"});
  auto* eps = bn->add_attribute();
  eps->set_name("epsilon");
  eps->set_type(onnx::AttributeProto::FLOAT);
  eps->set_f(0.0f);  // exact in the expectations below
  if (clip) {
    g.init_float("lo", {}, {-1}).init_float("hi", {}, {6});
    g.node("Clip", {"bn", "lo", "hi"}, {"y"});
  } else {
    g.node("Relu", {"bn"}, {"y"});
  }
  return m;
}

const onnx::TensorProto* initializer(const onnx::GraphProto& g, const std::string& name) {
  for (const auto& t : g.initializer())
    if (t.name() == name) return &t;
  return nullptr;
}

std::vector<float> floats_of(const onnx::TensorProto& t) {
  if (!t.has_raw_data()) return {t.float_data().begin(), t.float_data().end()};
  std::vector<float> v(t.raw_data().size() / sizeof(float));
  std::memcpy(v.data(), t.raw_data().data(), v.size() * sizeof(float));
  return v;
}

TEST(OpFusion, ConvBatchNormRelu_FoldsAndFuses) {
  auto m = conv_bn_act();
  const FusionCounts c = OpFusion::run(m);
  EXPECT_EQ(c.batch_norms_folded, 1);
  EXPECT_EQ(c.activations_fused, 1);
  const onnx::GraphProto& g = m.graph();
  ASSERT_EQ(g.node_size(), 1);
  const onnx::NodeProto& n = g.node(0);
  EXPECT_EQ(n.op_type(), kFusedConv);
  EXPECT_EQ(n.domain(), kSwitchyardDomain);
  EXPECT_EQ(n.output(0), "y");
  bool relu = false;
  for (const auto& a : n.attribute()) relu = relu || (a.name() == "activation" && a.s() == "Relu");
  EXPECT_TRUE(relu);
  // W' = W * s and B' = (B - mean) * s + bias, s = scale / sqrt(var) = {1, 1, 1}
  // for channel 0 (2 / 2), 1 (0.5 / 0.5), 2 (1 / 1).
  const onnx::TensorProto* w = initializer(g, n.input(1));
  const onnx::TensorProto* b = initializer(g, n.input(2));
  ASSERT_TRUE(w && b);
  const std::vector<float> wv = floats_of(*w), bv = floats_of(*b);
  ASSERT_EQ(wv.size(), 54u);
  for (size_t i = 0; i < wv.size(); ++i) EXPECT_EQ(wv[i], static_cast<float>(i % 7) - 3) << i;
  EXPECT_EQ(bv, (std::vector<float>{0.5f - 0.25f + 1, -1 - 1 + 0, 2 + 2 - 1}));
  // Only the Conv read W and B, so they were rewritten where they lay (no
  // second copy); the statistics are gone; the new opset is imported.
  EXPECT_EQ(n.input(1), "W");
  EXPECT_EQ(n.input(2), "B");
  EXPECT_EQ(g.initializer_size(), 2);
  for (const char* name : {"scale", "bias", "mean", "var"}) EXPECT_EQ(initializer(g, name), nullptr) << name;
  bool imported = false;
  for (const auto& op : m.opset_import()) imported = imported || op.domain() == kSwitchyardDomain;
  EXPECT_TRUE(imported);
}

TEST(OpFusion, FoldScalesEachOutputChannel) {
  auto m = conv_bn_act();
  auto* var = m.mutable_graph()->mutable_initializer(5);  // var: s = {1, 2, 0.5}
  ASSERT_EQ(var->name(), "var");
  var->clear_float_data();
  for (float v : {4.f, 0.0625f, 4.f}) var->add_float_data(v);
  OpFusion::run(m);
  const onnx::NodeProto& n = m.graph().node(0);
  const std::vector<float> wv = floats_of(*initializer(m.graph(), n.input(1)));
  const std::vector<float> bv = floats_of(*initializer(m.graph(), n.input(2)));
  const float s[3] = {1, 2, 0.5f};
  for (size_t i = 0; i < wv.size(); ++i) EXPECT_FLOAT_EQ(wv[i], (static_cast<float>(i % 7) - 3) * s[i / 18]) << i;
  EXPECT_FLOAT_EQ(bv[1], (-1 - 1) * 2 + 0);
  EXPECT_FLOAT_EQ(bv[2], (2 + 2) * 0.5f - 1);
}

// W and B are also read by a second Conv, which must keep the originals:
// the folded values go in new initializers.
TEST(OpFusion, SharedWeights_AreFoldedIntoACopy) {
  auto m = conv_bn_act();
  GraphBuilder g(m.mutable_graph());
  g.node("Conv", {"x", "W", "B"}, {"c2"});
  g.output("c2", kF, {1, 3, 2, 2});
  EXPECT_EQ(OpFusion::run(m).batch_norms_folded, 1);
  const onnx::GraphProto& gp = m.graph();
  ASSERT_EQ(gp.node_size(), 2);
  const onnx::NodeProto &fused = gp.node(0), &other = gp.node(1);
  EXPECT_EQ(other.input(1), "W");
  EXPECT_EQ(other.input(2), "B");
  EXPECT_EQ(fused.input(1), "W/bn_folded");
  EXPECT_EQ(fused.input(2), "B/bn_folded");
  const std::vector<float> w = floats_of(*initializer(gp, "W")), wf = floats_of(*initializer(gp, "W/bn_folded"));
  ASSERT_EQ(w.size(), 54u);
  ASSERT_EQ(wf.size(), 54u);
  for (size_t i = 0; i < w.size(); ++i) {
    EXPECT_EQ(w[i], static_cast<float>(i % 7) - 3) << i;  // s = 1 on every channel: the same values...
    EXPECT_EQ(wf[i], w[i]) << i;
  }
  EXPECT_EQ(floats_of(*initializer(gp, "B")), (std::vector<float>{0.5f, -1, 2}));  // ...but B' differs from B
  EXPECT_EQ(floats_of(*initializer(gp, "B/bn_folded")), (std::vector<float>{0.5f - 0.25f + 1, -1 - 1 + 0, 2 + 2 - 1}));
}

TEST(OpFusion, ClipBounds_BecomeParams_FromInputsOrAttributes) {
  auto m = conv_bn_act(/*clip=*/true);
  EXPECT_EQ(OpFusion::run(m).activations_fused, 1);
  const onnx::NodeProto& n = m.graph().node(0);
  std::vector<float> params;
  for (const auto& a : n.attribute())
    if (a.name() == "activation_params") params.assign(a.floats().begin(), a.floats().end());
  EXPECT_EQ(params, (std::vector<float>{-1, 6}));
  // Opset 6: Clip's bounds are attributes.
  auto old = conv_bn_act(/*clip=*/true, 6);
  auto* clip = old.mutable_graph()->mutable_node(2);
  clip->mutable_input()->DeleteSubrange(1, 2);
  auto* mx = clip->add_attribute();
  mx->set_name("max");
  mx->set_type(onnx::AttributeProto::FLOAT);
  mx->set_f(3);
  EXPECT_EQ(OpFusion::run(old).activations_fused, 1);
  params.clear();
  for (const auto& a : old.graph().node(0).attribute())
    if (a.name() == "activation_params") params.assign(a.floats().begin(), a.floats().end());
  ASSERT_EQ(params.size(), 2u);
  EXPECT_EQ(params[0], -INFINITY);
  EXPECT_EQ(params[1], 3);
}

// Each of these leaves the graph as it is: the result would not be the
// same, or something else reads the value a fusion removes.
TEST(OpFusion, LeavesAlone_WhatItCannotProveTheSame) {
  struct Case {
    const char* what;
    void (*edit)(onnx::ModelProto&);
  };
  const Case cases[] = {
      {"conv output is also a graph output",
       [](onnx::ModelProto& m) { GraphBuilder(m.mutable_graph()).output("c", kF, {1, 3, 4, 4}); }},
      {"conv output read by a second node",
       [](onnx::ModelProto& m) {
         GraphBuilder g(m.mutable_graph());
         g.node("Neg", {"c"}, {"n"});
         g.output("n", kF, {1, 3, 4, 4});
       }},
      {"statistics a caller may feed", [](onnx::ModelProto& m) { GraphBuilder(m.mutable_graph()).input("mean", kF, {3}); }},
      {"weights a caller may feed", [](onnx::ModelProto& m) { GraphBuilder(m.mutable_graph()).input("W", kF, {3, 2, 3, 3}); }},
      {"training mode",
       [](onnx::ModelProto& m) {
         auto* a = m.mutable_graph()->mutable_node(1)->add_attribute();
         a->set_name("training_mode");
         a->set_type(onnx::AttributeProto::INT);
         a->set_i(1);
       }},
      {"conv output read inside a subgraph",
       [](onnx::ModelProto& m) {
         GraphBuilder g(m.mutable_graph());
         g.input("p", onnx::TensorProto::BOOL, {});
         auto* iff = g.node("If", {"p"}, {"z"});
         auto t = GraphBuilder::subgraph(iff, "then_branch", "t");
         t.node("Identity", {"c"}, {"tz"});
         t.output("tz", kF, {1, 3, 4, 4});
         auto e = GraphBuilder::subgraph(iff, "else_branch", "e");
         e.node("Identity", {"x"}, {"ez"});
         e.output("ez", kF, {1, 2, 4, 4});
         g.output("z", kF, {});
       }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    auto m = conv_bn_act();
    c.edit(m);
    const FusionCounts got = OpFusion::run(m);
    EXPECT_EQ(got.batch_norms_folded, 0);
    // The activation reads the BatchNormalization's output, which stays.
    EXPECT_EQ(got.activations_fused, 0);
  }
}

TEST(OpFusion, DoubleConv_IsNotFused) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", onnx::TensorProto::DOUBLE, {1, 1, 3, 3}).input("w", onnx::TensorProto::DOUBLE, {1, 1, 1, 1});
  g.output("y", onnx::TensorProto::DOUBLE, {1, 1, 3, 3});
  g.node("Conv", {"x", "w"}, {"c"});
  g.node("Relu", {"c"}, {"y"});
  EXPECT_EQ(OpFusion::run(m).activations_fused, 0);
}

TEST(OpFusion, LoopBody_IsFusedToo) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("M", onnx::TensorProto::INT64, {}).input("x", kF, {1, 1, 3, 3}).init_float("w", {1, 1, 1, 1}, {2});
  g.output("y", kF, {1, 1, 3, 3});
  auto* loop = g.node("Loop", {"M", "", "x"}, {"y"});
  auto body = GraphBuilder::subgraph(loop, "body", "body");
  body.input("i", onnx::TensorProto::INT64, {}).input("cond", onnx::TensorProto::BOOL, {}).input("v", kF, {1, 1, 3, 3});
  body.node("Identity", {"cond"}, {"cond_out"});
  body.node("Conv", {"v", "w"}, {"c"});
  body.node("Relu", {"c"}, {"v_out"});
  body.output("cond_out", onnx::TensorProto::BOOL, {}).output("v_out", kF, {1, 1, 3, 3});
  EXPECT_EQ(OpFusion::run(m).activations_fused, 1);
  EXPECT_EQ(m.graph().node(0).attribute(0).g().node(1).op_type(), kFusedConv);
}

// x[1,2,4,4] -> Conv(W, B) -> "c"; a shortcut "s"; Add(c, s) -> "sum" ->
// Relu -> "y", every value's shape in value_info. The shortcut is a graph
// input, or with `conv`, Conv(x, V) made after "c". With `swap`, Add(s, c).
onnx::ModelProto conv_add_relu(bool conv = false, bool swap = false) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {1, 2, 4, 4}).output("y", kF, {1, 3, 4, 4});
  if (conv) {
    g.value("s", kF, {1, 3, 4, 4});
  } else {
    g.input("s", kF, {1, 3, 4, 4});
  }
  g.value("c", kF, {1, 3, 4, 4}).value("sum", kF, {1, 3, 4, 4});
  g.init_float("W", {3, 2, 1, 1}, {1, 2, 3, 4, 5, 6}).init_float("B", {3}, {0.5f, -1, 2});
  g.init_float("V", {3, 2, 1, 1}, {-1, 1, 0.5f, 0.5f, 2, -2});
  g.node("Conv", {"x", "W", "B"}, {"c"});
  if (conv) g.node("Conv", {"x", "V"}, {"s"});
  g.node("Add", swap ? std::vector<std::string>{"s", "c"} : std::vector<std::string>{"c", "s"}, {"sum"});
  g.node("Relu", {"sum"}, {"y"});
  return m;
}

// The Conv, the Add and the Relu become one FusedConv with the shortcut as
// its fourth input, in the Add's place: after the shortcut's Conv, when
// the shortcut is one. Of two Convs, either may take the other's output
// as its residual. (Session.FusedResidualModel_MatchesTheModelAsWritten
// runs such a model.)
TEST(OpFusion, ConvAddRelu_FusesTheResidual) {
  for (bool conv : {false, true})
    for (bool swap : {false, true}) {
      SCOPED_TRACE(::testing::Message() << (conv ? "shortcut Conv, " : "shortcut input, ")
                                        << (swap ? "Add(shortcut, conv)" : "Add(conv, shortcut)"));
      auto m = conv_add_relu(conv, swap);
      const FusionCounts c = OpFusion::run(m);
      EXPECT_EQ(c.residuals_fused, 1);
      EXPECT_EQ(c.activations_fused, 1);
      const onnx::GraphProto& g = m.graph();
      ASSERT_EQ(g.node_size(), conv ? 2 : 1);
      const onnx::NodeProto& n = g.node(g.node_size() - 1);
      EXPECT_EQ(n.op_type(), kFusedConv);
      ASSERT_EQ(n.input_size(), 4);
      EXPECT_EQ(n.input(0), "x");
      EXPECT_EQ(n.output(0), "y");
      bool relu = false;
      for (const auto& a : n.attribute()) relu = relu || (a.name() == "activation" && a.s() == "Relu");
      EXPECT_TRUE(relu);
      if (!conv || n.input(3) == "s") {
        EXPECT_EQ(n.input(1), "W");
        EXPECT_EQ(n.input(2), "B");
        EXPECT_EQ(n.input(3), "s");
      } else {  // the shortcut's Conv took the main one's output
        EXPECT_EQ(n.input(1), "V");
        EXPECT_EQ(n.input(2), "") << "no bias";
        EXPECT_EQ(n.input(3), "c");
      }
      if (conv) {
        EXPECT_EQ(g.node(0).output(0), n.input(3)) << "the other Conv comes first";
      }
    }
}

// An Add is fused only where the sum is certainly the Conv's output plus a
// tensor of its own shape, and the Conv has no activation to apply first.
TEST(OpFusion, Add_LeftAlone_WhereShapesOrOrderDiffer) {
  struct Case {
    const char* what;
    void (*edit)(onnx::ModelProto&);
  };
  const Case cases[] = {
      {"shortcut's shape unknown",
       [](onnx::ModelProto& m) {
         m.mutable_graph()->mutable_input(1)->mutable_type()->mutable_tensor_type()->clear_shape();
       }},
      {"shortcut broadcast",
       [](onnx::ModelProto& m) {
         auto* shape = m.mutable_graph()->mutable_input(1)->mutable_type()->mutable_tensor_type()->mutable_shape();
         shape->mutable_dim(2)->set_dim_value(1);
         shape->mutable_dim(3)->set_dim_value(1);
       }},
      {"sum's shape unknown", [](onnx::ModelProto& m) { m.mutable_graph()->mutable_value_info()->RemoveLast(); }},
      {"a symbolic dim unlike the other's",
       [](onnx::ModelProto& m) {
         m.mutable_graph()
             ->mutable_value_info(0)
             ->mutable_type()
             ->mutable_tensor_type()
             ->mutable_shape()
             ->mutable_dim(0)
             ->set_dim_param("N");
       }},
      {"conv output read by a second node",
       [](onnx::ModelProto& m) {
         GraphBuilder g(m.mutable_graph());
         g.node("Neg", {"c"}, {"n"});
         g.output("n", kF, {1, 3, 4, 4});
       }},
      {"conv already clamped",
       [](onnx::ModelProto& m) {
         auto* g = m.mutable_graph();
         g->mutable_node(0)->set_output(0, "c0");
         auto* relu = g->add_node();
         relu->set_op_type("Relu");
         relu->add_input("c0");
         relu->add_output("c");
         // Keep the nodes in order: the new Relu right after its Conv.
         for (int i = g->node_size() - 1; i > 1; --i) g->mutable_node()->SwapElements(i, i - 1);
       }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    auto m = conv_add_relu();
    c.edit(m);
    const FusionCounts got = OpFusion::run(m);
    EXPECT_EQ(got.residuals_fused, 0);
    bool add = false;
    for (const auto& n : m.graph().node()) add = add || n.op_type() == "Add";
    EXPECT_TRUE(add);
  }
}

// {v, c}, or with `swap` {c, v}: a constant operand first.
std::vector<std::string> ordered_operands(bool swap, const std::string& v, const std::string& c) {
  return swap ? std::vector<std::string>{c, v} : std::vector<std::string>{v, c};
}

// The tail both Gelu forms share, after f (Erf's or Tanh's output) -> "y":
// Add 1, then x times it and that times 1/2, or (`half_first`) x times 1/2
// first. The constants "one" and "half" are the caller's.
void gelu_tail(GraphBuilder& g, const std::string& f, bool half_first, bool swap) {
  g.node("Add", ordered_operands(swap, f, "one"), {"a"});
  if (half_first) {
    g.node("Mul", ordered_operands(swap, "x", "half"), {"h"});
    g.node("Mul", ordered_operands(swap, "h", "a"), {"y"});
  } else {
    g.node("Mul", ordered_operands(swap, "a", "x"), {"p"});
    g.node("Mul", ordered_operands(swap, "p", "half"), {"y"});
  }
}

// x [2, 3] -> Gelu written out -> "y": Div(x, sqrt 2) or (`div` false)
// Mul(x, 1/sqrt 2), Erf, Add 1, then x times it and that times 1/2, or
// (`half_first`) x times 1/2 first; `swap` puts every constant operand
// first. The constants are scalars.
onnx::ModelProto gelu_arithmetic(bool div, bool half_first, bool swap) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {2, 3}).output("y", kF, {2, 3});
  g.init_float("r2", {}, {1.41421356f}).init_float("k", {}, {0.70710678f});
  g.init_float("one", {}, {1.f}).init_float("half", {}, {0.5f});
  auto ordered = [&](const std::string& v, const std::string& c) { return ordered_operands(swap, v, c); };
  if (div) {
    g.node("Div", {"x", "r2"}, {"s"});
  } else {
    g.node("Mul", ordered("x", "k"), {"s"});
  }
  g.node("Erf", {"s"}, {"e"});
  gelu_tail(g, "e", half_first, swap);
  return m;
}

// m, fused, is one Gelu(x) -> y in Switchyard's domain (imported), with
// `approximate` set as given (null: not set), and no constants left.
void expect_one_gelu(const onnx::ModelProto& m, const char* approximate) {
  const onnx::GraphProto& g = m.graph();
  ASSERT_EQ(g.node_size(), 1);
  const onnx::NodeProto& n = g.node(0);
  EXPECT_EQ(n.op_type(), kFusedGelu);
  EXPECT_EQ(n.domain(), kSwitchyardDomain);
  ASSERT_EQ(n.input_size(), 1);
  EXPECT_EQ(n.input(0), "x");
  EXPECT_EQ(n.output(0), "y");
  if (approximate) {
    ASSERT_EQ(n.attribute_size(), 1);
    EXPECT_EQ(n.attribute(0).name(), "approximate");
    EXPECT_EQ(n.attribute(0).s(), approximate);
  } else {
    EXPECT_EQ(n.attribute_size(), 0);
  }
  EXPECT_EQ(g.initializer_size(), 0);
  bool imported = false;
  for (const auto& op : m.opset_import()) imported = imported || op.domain() == kSwitchyardDomain;
  EXPECT_TRUE(imported);
}

// Every form becomes one Gelu(x) -> y in Switchyard's domain; the
// constants, read by nothing else, go.
TEST(OpFusion, GeluArithmetic_BecomesOneGelu) {
  for (bool div : {false, true})
    for (bool half_first : {false, true})
      for (bool swap : {false, true}) {
        SCOPED_TRACE(::testing::Message() << (div ? "Div" : "Mul") << (half_first ? ", half first" : ", half last")
                                          << (swap ? ", constants first" : ""));
        auto m = gelu_arithmetic(div, half_first, swap);
        EXPECT_EQ(OpFusion::run(m).gelus_fused, 1);
        expect_one_gelu(m, nullptr);
      }
}

// Makes float initializer `name` the one value `v`, of shape `dims`.
void set_float_init(onnx::ModelProto& m, const std::string& name, std::vector<int64_t> dims, float v) {
  for (auto& t : *m.mutable_graph()->mutable_initializer())
    if (t.name() == name) {
      t.clear_dims();
      for (int64_t d : dims) t.add_dims(d);
      t.clear_float_data();
      t.clear_raw_data();
      t.add_float_data(v);
    }
}

// An edit that makes a written-out Gelu no longer certainly one.
struct GeluEdit {
  const char* what;
  std::function<void(onnx::ModelProto&)> edit;
};

// Each edit of what `make` builds leaves its `nodes` nodes as written.
void expect_no_gelu_after(std::span<const GeluEdit> edits, const std::function<onnx::ModelProto()>& make, int nodes) {
  for (const GeluEdit& e : edits) {
    SCOPED_TRACE(e.what);
    auto m = make();
    e.edit(m);
    EXPECT_EQ(OpFusion::run(m).gelus_fused, 0);
    EXPECT_EQ(m.graph().node_size(), nodes);
  }
}

// Left as written where it is not certainly x/2 (1 + erf(x / sqrt 2)) of
// x's own shape, or where a part of it is read elsewhere.
TEST(OpFusion, GeluArithmetic_LeftAlone_WhereItIsNotCertainlyGelu) {
  const GeluEdit cases[] = {
      {"divided by sqrt 3", [](onnx::ModelProto& m) { set_float_init(m, "r2", {}, 1.7320508f); }},
      {"plus 2", [](onnx::ModelProto& m) { set_float_init(m, "one", {}, 2.f); }},
      {"times 0.25", [](onnx::ModelProto& m) { set_float_init(m, "half", {}, 0.25f); }},
      {"a constant that broadcasts x to rank 3",
       [](onnx::ModelProto& m) {
         set_float_init(m, "one", {1, 1, 1}, 1.f);
       }},
      {"erf read by a second node",
       [](onnx::ModelProto& m) {
         GraphBuilder g(m.mutable_graph());
         g.output("e", kF, {2, 3});
       }},
      {"another tensor times (1 + erf)",
       [](onnx::ModelProto& m) {
         GraphBuilder g(m.mutable_graph());
         g.input("z", kF, {2, 3});
         m.mutable_graph()->mutable_node(3)->set_input(1, "z");
       }},
      {"x of unknown type",
       [](onnx::ModelProto& m) { m.mutable_graph()->mutable_input(0)->mutable_type()->clear_tensor_type(); }},
  };
  expect_no_gelu_after(
      cases, [] { return gelu_arithmetic(/*div=*/true, /*half_first=*/false, /*swap=*/false); }, 5);
}

// x [2, 3] -> Gelu's tanh form written out -> "y": x^3 as Pow(x, 3) or
// (`pow` false) x times Mul(x, x), times 0.044715, plus x, times
// sqrt(2/pi), Tanh, Add 1, then x times it and that times 1/2, or
// (`half_first`) x times 1/2 first; `swap` puts every constant operand and
// x first in the sum.
onnx::ModelProto gelu_tanh_arithmetic(bool pow, bool half_first, bool swap) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {2, 3}).output("y", kF, {2, 3});
  g.init_float("three", {}, {3.f}).init_float("c", {}, {0.044715f}).init_float("k", {}, {0.7978845608f});
  g.init_float("one", {}, {1.f}).init_float("half", {}, {0.5f});
  auto ordered = [&](const std::string& v, const std::string& c) { return ordered_operands(swap, v, c); };
  if (pow) {
    g.node("Pow", {"x", "three"}, {"x3"});
  } else {
    g.node("Mul", {"x", "x"}, {"x2"});
    g.node("Mul", ordered("x2", "x"), {"x3"});
  }
  g.node("Mul", ordered("x3", "c"), {"w"});
  g.node("Add", ordered("w", "x"), {"v"});
  g.node("Mul", ordered("v", "k"), {"u"});
  g.node("Tanh", {"u"}, {"t"});
  gelu_tail(g, "t", half_first, swap);
  return m;
}

TEST(OpFusion, GeluTanhArithmetic_BecomesOneTanhGelu) {
  for (bool pow : {false, true})
    for (bool half_first : {false, true})
      for (bool swap : {false, true}) {
        SCOPED_TRACE(::testing::Message()
                     << (pow ? "Pow(x, 3)" : "x * (x * x)") << (half_first ? ", half first" : ", half last")
                     << (swap ? ", constants first" : ""));
        auto m = gelu_tanh_arithmetic(pow, half_first, swap);
        EXPECT_EQ(OpFusion::run(m).gelus_fused, 1);
        expect_one_gelu(m, "tanh");
      }
}

TEST(OpFusion, GeluTanhArithmetic_LeftAlone_WhereItIsNotCertainlyOne) {
  const GeluEdit cases[] = {
      {"a square, not a cube", [](onnx::ModelProto& m) { set_float_init(m, "three", {}, 2.f); }},
      {"0.0447, not 0.044715", [](onnx::ModelProto& m) { set_float_init(m, "c", {}, 0.0447f); }},
      {"times 0.8, not sqrt(2/pi)", [](onnx::ModelProto& m) { set_float_init(m, "k", {}, 0.8f); }},
      {"the cube read elsewhere",
       [](onnx::ModelProto& m) {
         GraphBuilder(m.mutable_graph()).output("x3", kF, {2, 3});
       }},
      {"another tensor in the sum",
       [](onnx::ModelProto& m) {
         GraphBuilder(m.mutable_graph()).input("z", kF, {2, 3});
         m.mutable_graph()->mutable_node(2)->set_input(1, "z");
       }},
  };
  expect_no_gelu_after(
      cases, [] { return gelu_tanh_arithmetic(/*pow=*/true, /*half_first=*/false, /*swap=*/false); }, 8);
}

// How a ReduceMean names its axes: an attribute (opset 13), or from opset
// 18 an input, an initializer or a Constant node's output.
enum class Axes { kAttribute, kInitializer, kConstantNode };

// x [2, 3, 8] -> LayerNormalization over the last axis written out as
// PyTorch exports it before opset 17 -> "y": ReduceMean, Sub, Pow 2 (or
// `mul`: d times d), ReduceMean, Add epsilon, Sqrt, Div, Mul by the scale,
// and (`bias`) Add the bias. `last` names the axis as 2 rather than -1.
onnx::ModelProto layer_norm_arithmetic(bool mul, bool bias, bool last = false, Axes axes = Axes::kAttribute) {
  auto m = testing::new_model(axes == Axes::kAttribute ? 13 : 18);
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {2, 3, 8}).output("y", kF, {2, 3, 8});
  std::vector<float> gamma(8), beta(8);
  for (int i = 0; i < 8; ++i) gamma[i] = 0.5f + 0.25f * i, beta[i] = 0.125f * i - 0.5f;
  g.init_float("gamma", {8}, gamma).init_float("beta", {8}, beta);
  g.init_float("two", {}, {2.f}).init_float("eps", {}, {1e-5f});
  if (axes == Axes::kInitializer) g.init_int64("axes", {1}, {last ? 2 : -1});
  if (axes == Axes::kConstantNode) {
    auto* a = g.node("Constant", {}, {"axes"})->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(onnx::TensorProto::INT64);
    a->mutable_t()->add_dims(1);
    a->mutable_t()->add_int64_data(last ? 2 : -1);
  }
  auto mean = [&](const std::string& in, const std::string& out) {
    if (axes == Axes::kAttribute)
      GraphBuilder::ints(g.node("ReduceMean", {in}, {out}), "axes", {last ? 2 : -1});
    else
      g.node("ReduceMean", {in, "axes"}, {out});
  };
  mean("x", "m");
  g.node("Sub", {"x", "m"}, {"d"});
  if (mul) {
    g.node("Mul", {"d", "d"}, {"p"});
  } else {
    g.node("Pow", {"d", "two"}, {"p"});
  }
  mean("p", "v");
  g.node("Add", {"v", "eps"}, {"e"});
  g.node("Sqrt", {"e"}, {"s"});
  g.node("Div", {"d", "s"}, {"n"});
  g.node("Mul", {"n", "gamma"}, {bias ? "g" : "y"});
  if (bias) g.node("Add", {"beta", "g"}, {"y"});
  return m;
}

TEST(OpFusion, LayerNormArithmetic_BecomesOneLayerNormalization) {
  for (Axes axes : {Axes::kAttribute, Axes::kInitializer, Axes::kConstantNode})
    for (bool mul : {false, true})
      for (bool bias : {false, true})
        for (bool last : {false, true}) {
          SCOPED_TRACE(::testing::Message()
                       << (mul ? "d * d" : "Pow(d, 2)") << (bias ? ", bias" : ", no bias")
                       << (last ? ", axes [2]" : ", axes [-1]") << ", axes form " << static_cast<int>(axes));
          auto m = layer_norm_arithmetic(mul, bias, last, axes);
          EXPECT_EQ(OpFusion::run(m).layer_norms_fused, 1);
          const onnx::GraphProto& g = m.graph();
          // (The Constant node making the axes goes too, unread now.)
          ASSERT_EQ(g.node_size(), 1);
          const onnx::NodeProto& n = g.node(0);
          EXPECT_EQ(n.op_type(), kFusedLayerNorm);
          EXPECT_EQ(n.domain(), kSwitchyardDomain);
          ASSERT_EQ(n.input_size(), bias ? 3 : 2);
          EXPECT_EQ(n.input(0), "x");
          EXPECT_EQ(n.input(1), "gamma");
          if (bias) {
            EXPECT_EQ(n.input(2), "beta");
          }
          EXPECT_EQ(n.output(0), "y");
          ASSERT_EQ(n.attribute_size(), 1);
          EXPECT_EQ(n.attribute(0).name(), "epsilon");
          EXPECT_FLOAT_EQ(n.attribute(0).f(), 1e-5f);
        }
}

TEST(OpFusion, LayerNormArithmetic_LeftAlone_WhereItIsNotCertainlyOne) {
  auto node_of = [](onnx::ModelProto& m, const std::string& op, int nth = 0) -> onnx::NodeProto* {
    for (auto& n : *m.mutable_graph()->mutable_node())
      if (n.op_type() == op && nth-- == 0) return &n;
    return nullptr;
  };
  struct Case {
    const char* what;
    std::function<void(onnx::ModelProto&)> edit;
  };
  const Case cases[] = {
      {"the mean over the middle axis",
       [&](onnx::ModelProto& m) { node_of(m, "ReduceMean")->mutable_attribute(0)->set_ints(0, 1); }},
      {"the variance without keepdims",
       [&](onnx::ModelProto& m) {
         auto* k = node_of(m, "ReduceMean", 1)->add_attribute();
         k->set_name("keepdims");
         k->set_type(onnx::AttributeProto::INT);
         k->set_i(0);
       }},
      {"a cube, not a square",
       [&](onnx::ModelProto& m) {
         GraphBuilder(m.mutable_graph()).init_float("three", {}, {3.f});
         node_of(m, "Pow")->set_input(1, "three");
       }},
      {"epsilon a graph input",
       [&](onnx::ModelProto& m) {
         m.mutable_graph()->mutable_initializer()->RemoveLast();
         GraphBuilder(m.mutable_graph()).input("eps", kF, {});
       }},
      {"a scale of another length",
       [&](onnx::ModelProto& m) {
         GraphBuilder(m.mutable_graph()).init_float("gamma4", {4}, {1, 2, 3, 4});
         node_of(m, "Mul")->set_input(1, "gamma4");
       }},
      {"the difference read elsewhere",
       [](onnx::ModelProto& m) {
         GraphBuilder(m.mutable_graph()).output("d", kF, {2, 3, 8});
       }},
      {"no scale: the normalised value is the output",
       [&](onnx::ModelProto& m) {
         auto* g = m.mutable_graph();
         node_of(m, "Div")->set_output(0, "y");
         for (int i = g->node_size() - 1; i >= 0; --i)
           if (g->node(i).op_type() == "Mul" && g->node(i).input(0) == "n") g->mutable_node()->DeleteSubrange(i, 1);
       }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    auto m = layer_norm_arithmetic(/*mul=*/false, /*bias=*/false);
    c.edit(m);
    EXPECT_EQ(OpFusion::run(m).layer_norms_fused, 0);
    bool div = false;
    for (const auto& n : m.graph().node()) div = div || n.op_type() == "Div";
    EXPECT_TRUE(div);
  }
  // Opset 18's axes input: over the middle axis, or fed by the caller.
  struct Case18 {
    const char* what;
    std::function<void(onnx::ModelProto&)> edit;
  };
  const Case18 cases18[] = {
      {"axes [1] from an initializer",
       [](onnx::ModelProto& m) { m.mutable_graph()->mutable_initializer()->rbegin()->set_int64_data(0, 1); }},
      {"axes a graph input", [](onnx::ModelProto& m) { GraphBuilder(m.mutable_graph()).input("axes", kI64, {1}); }},
  };
  for (const Case18& c : cases18) {
    SCOPED_TRACE(c.what);
    auto m = layer_norm_arithmetic(/*mul=*/false, /*bias=*/false, /*last=*/false, Axes::kInitializer);
    c.edit(m);
    EXPECT_EQ(OpFusion::run(m).layer_norms_fused, 0);
    bool div = false;
    for (const auto& n : m.graph().node()) div = div || n.op_type() == "Div";
    EXPECT_TRUE(div);
  }
}

// The loader fuses after its checks, unless told not to, and says what it did.
TEST(OpFusion, Loader_FusesByDefault) {
  auto fused_proto = conv_bn_act();
  auto fused = OnnxLoader().load_proto(fused_proto, "m", "");
  ASSERT_TRUE(fused.ok()) << fused.status().to_string();
  EXPECT_EQ((*fused)->fusions.batch_norms_folded, 1);
  EXPECT_EQ((*fused)->fusions.activations_fused, 1);
  ASSERT_EQ((*fused)->graph->nodes().size(), 1u);
  EXPECT_EQ((*fused)->graph->nodes()[0].op_type, kFusedConv);
  EXPECT_EQ((*fused)->graph->nodes()[0].op_key(), "Conv") << "costs are kept under Conv's key";
  EXPECT_EQ((*fused)->opsets.at(kSwitchyardDomain), 1);
  LoadOptions plain;
  plain.fuse_ops = false;
  auto plain_proto = conv_bn_act();
  auto unfused = OnnxLoader(plain).load_proto(plain_proto, "m", "");
  ASSERT_TRUE(unfused.ok()) << unfused.status().to_string();
  EXPECT_EQ((*unfused)->graph->nodes().size(), 3u);
  EXPECT_EQ((*unfused)->fusions.activations_fused, 0);
}

}  // namespace
}  // namespace sy

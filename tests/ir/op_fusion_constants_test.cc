// OpFusion's first rewrite: Constant nodes become initializers of their
// graph, in every attribute form that holds numbers, in subgraphs too; a
// Constant that is a graph output, or holds strings, stays a node.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/onnx_loader.h"
#include "ir/op_fusion.h"
#include "ir/tensor_proto.h"
#include "tests/executor/model_builder.h"

namespace sy {
namespace {

using testing::GraphBuilder;
constexpr int kF = onnx::TensorProto::FLOAT;

onnx::AttributeProto* attr(onnx::NodeProto* n, const std::string& name, onnx::AttributeProto::AttributeType type) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(type);
  return a;
}

// The values and shape of initializer `name` of g, loaded as the loader
// loads them; fails the test if there is none.
std::shared_ptr<TensorData> loaded(const onnx::GraphProto& g, const std::string& name) {
  for (const auto& t : g.initializer())
    if (t.name() == name) {
      auto v = tensor_from_proto(t, "");
      EXPECT_TRUE(v.ok()) << v.status().to_string();
      return v.ok() ? *v : nullptr;
    }
  ADD_FAILURE() << "no initializer '" << name << "'";
  return nullptr;
}

bool has_node(const onnx::GraphProto& g, const std::string& output) {
  for (const auto& n : g.node())
    for (const auto& o : n.output())
      if (o == output) return true;
  return false;
}

// y = x * t + f, and fs, i and is read, each constant from another form of
// Constant; "kept" is a Constant that is also a graph output.
onnx::ModelProto every_form() {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {2}).output("y", kF, {2}).output("kept", kF, {});
  auto* t = attr(g.node("Constant", {}, {"t"}), "value", onnx::AttributeProto::TENSOR)->mutable_t();
  t->set_data_type(kF);
  t->add_dims(2);
  t->add_float_data(3);
  t->add_float_data(-1);
  attr(g.node("Constant", {}, {"f"}), "value_float", onnx::AttributeProto::FLOAT)->set_f(0.5f);
  auto* fs = attr(g.node("Constant", {}, {"fs"}), "value_floats", onnx::AttributeProto::FLOATS);
  fs->add_floats(1);
  fs->add_floats(2);
  attr(g.node("Constant", {}, {"i"}), "value_int", onnx::AttributeProto::INT)->set_i(7);
  auto* is = attr(g.node("Constant", {}, {"is"}), "value_ints", onnx::AttributeProto::INTS);
  is->add_ints(4);
  is->add_ints(5);
  is->add_ints(6);
  attr(g.node("Constant", {}, {"kept"}), "value_float", onnx::AttributeProto::FLOAT)->set_f(9);
  g.node("Mul", {"x", "t"}, {"xt"});
  g.node("Add", {"xt", "f"}, {"y"});
  for (const char* c : {"fs", "i", "is"}) g.node("Identity", {c}, {std::string(c) + "_read"});
  return m;
}

TEST(OpFusion, ConstantNodes_BecomeInitializers_InEveryNumericForm) {
  auto m = every_form();
  const int nodes = m.graph().node_size();
  const FusionCounts counts = OpFusion::run(m);
  EXPECT_EQ(counts.constants_folded, 5);
  EXPECT_EQ(m.graph().node_size(), nodes - 5);
  const onnx::GraphProto& g = m.graph();
  for (const char* name : {"t", "f", "fs", "i", "is"}) EXPECT_FALSE(has_node(g, name)) << name;
  EXPECT_TRUE(has_node(g, "kept")) << "a graph output stays a node";

  auto t = loaded(g, "t");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->dtype, DataType::kFloat);
  EXPECT_EQ(t->dims, Dims({2}));
  EXPECT_EQ(t->data<float>()[0], 3);
  EXPECT_EQ(t->data<float>()[1], -1);
  auto f = loaded(g, "f");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->dims, Dims({})) << "value_float is a scalar";
  EXPECT_EQ(f->data<float>()[0], 0.5f);
  auto fs = loaded(g, "fs");
  ASSERT_TRUE(fs);
  EXPECT_EQ(fs->dims, Dims({2}));
  EXPECT_EQ(fs->data<float>()[1], 2);
  auto i = loaded(g, "i");
  ASSERT_TRUE(i);
  EXPECT_EQ(i->dtype, DataType::kInt64);
  EXPECT_EQ(i->dims, Dims({}));
  EXPECT_EQ(i->data<int64_t>()[0], 7);
  auto is = loaded(g, "is");
  ASSERT_TRUE(is);
  EXPECT_EQ(is->dims, Dims({3}));
  EXPECT_EQ(is->data<int64_t>()[2], 6);
}

TEST(OpFusion, StringConstant_StaysANode) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.output("s", onnx::TensorProto::STRING, {});
  g.output("y", onnx::TensorProto::STRING, {});
  attr(g.node("Constant", {}, {"c"}), "value_string", onnx::AttributeProto::STRING)->set_s("hello");
  g.node("Identity", {"c"}, {"y"});
  g.node("Identity", {"c"}, {"s"});
  EXPECT_EQ(OpFusion::run(m).constants_folded, 0);
  EXPECT_TRUE(has_node(m.graph(), "c"));
}

// A Constant in a Loop body becomes the body's initializer, and the loader
// builds the body with it; without fusion it stays a node.
TEST(OpFusion, ConstantInALoopBody_BecomesTheBodysInitializer) {
  auto make = [] {
    auto m = testing::new_model();
    GraphBuilder g(m.mutable_graph());
    g.input("M", onnx::TensorProto::INT64, {}).input("x", kF, {2});
    g.output("y", kF, {2});
    auto* loop = g.node("Loop", {"M", "", "x"}, {"y"});
    auto body = GraphBuilder::subgraph(loop, "body", "body");
    body.input("it", onnx::TensorProto::INT64, {}).input("cond", onnx::TensorProto::BOOL, {}).input("v", kF, {2});
    body.node("Identity", {"cond"}, {"cond_out"});
    attr(body.node("Constant", {}, {"two"}), "value_float", onnx::AttributeProto::FLOAT)->set_f(2);
    body.node("Mul", {"v", "two"}, {"v_out"});
    body.output("cond_out", onnx::TensorProto::BOOL, {}).output("v_out", kF, {2});
    return m;
  };
  auto m = make();
  auto folded = OnnxLoader().load_proto(m, "m", "");
  ASSERT_TRUE(folded.ok()) << folded.status().to_string();
  EXPECT_EQ((*folded)->fusions.constants_folded, 1);
  const Graph& body = *(*folded)->graph->subgraphs().at(0);
  EXPECT_EQ(body.nodes().size(), 2u);
  EXPECT_EQ(body.initializers().size(), 1u);
  LoadOptions plain;
  plain.fuse_ops = false;
  auto m2 = make();
  auto unfolded = OnnxLoader(plain).load_proto(m2, "m", "");
  ASSERT_TRUE(unfolded.ok()) << unfolded.status().to_string();
  EXPECT_EQ((*unfolded)->graph->subgraphs().at(0)->nodes().size(), 3u);
}

}  // namespace
}  // namespace sy

#include "ir/onnx_loader.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "tests/executor/model_builder.h"

namespace sy {
namespace {

using testing::GraphBuilder;
constexpr int kF = onnx::TensorProto::FLOAT;
constexpr int kB = onnx::TensorProto::BOOL;

TEST(OnnxLoader, OuterScopeReference_BecomesCaptureAndImplicitInput) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("cond", kB, {}).input("x", kF, {2}).output("y", kF, {2});
  g.node("Neg", {"x"}, {"nx"});
  auto* iff = g.node("If", {"cond"}, {"y"});
  auto then_b = GraphBuilder::subgraph(iff, "then_branch", "then");
  then_b.node("Identity", {"nx"}, {"t"});  // reads the outer value nx
  then_b.output("t", kF, {2});
  auto else_b = GraphBuilder::subgraph(iff, "else_branch", "else");
  else_b.node("Identity", {"x"}, {"e"});
  else_b.output("e", kF, {2});
  auto model = testing::load_model(m);
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  const Graph& main = *(*model)->graph;
  const Node& if_node = main.node(1);
  ASSERT_EQ(if_node.op_type, "If");
  // Both captured values are implicit inputs of the If, so it waits for Neg.
  EXPECT_EQ(if_node.implicit_inputs.size(), 2u);
  const Graph* then_g = if_node.attr_graph("then_branch");
  ASSERT_EQ(then_g->captures().size(), 1u);
  const ValueInfo& cap = then_g->value(then_g->captures()[0]);
  EXPECT_EQ(cap.name, "nx");
  EXPECT_EQ(main.value(cap.outer).name, "nx");
  EXPECT_EQ(main.topo_order(), (std::vector<NodeId>{0, 1}));
}

TEST(OnnxLoader, NodesOutOfOrder_AreSortedTopologically) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {1}).output("y", kF, {1});
  g.node("Neg", {"t"}, {"y"});  // consumes t before its producer appears
  g.node("Abs", {"x"}, {"t"});
  onnx::ModelProto copy = m;
  LoadOptions opt;
  opt.run_onnx_checker = false;  // the checker insists on file order; we do not
  auto model = OnnxLoader(opt).load_proto(copy, "test", "");
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  EXPECT_EQ((*model)->graph->topo_order(), (std::vector<NodeId>{1, 0}));
}

TEST(OnnxLoader, Cycle_IsReportedWithANode) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {1}).output("y", kF, {1});
  g.node("Add", {"x", "b"}, {"a"});
  g.node("Neg", {"a"}, {"b"});
  g.node("Identity", {"a"}, {"y"});
  LoadOptions opt;
  opt.run_onnx_checker = false;
  auto model = OnnxLoader(opt).load_proto(m, "cyc.onnx", "");
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("cycle"), std::string::npos) << model.status().message();
  EXPECT_NE(model.status().message().find("cyc.onnx"), std::string::npos);
}

TEST(OnnxLoader, TwoProducers_IsAnError) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {1}).output("y", kF, {1});
  g.node("Neg", {"x"}, {"y"});
  g.node("Abs", {"x"}, {"y"});
  auto model = testing::load_model(m);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("already produced"), std::string::npos);
}

TEST(OnnxLoader, InitializerSizeMismatch_NamesTheTensor) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {2}).output("y", kF, {2});
  g.init_float("w", {2}, {1.0f});  // two elements declared, one given
  g.node("Add", {"x", "w"}, {"y"});
  auto model = testing::load_model(m);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("'w'"), std::string::npos) << model.status().message();
}

TEST(OnnxLoader, NotAProtobuf_IsAClearError) {
  auto model = OnnxLoader().load_bytes(std::string("\xff\xff\xff\xff garbage", 12), "junk.onnx", "");
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("not a valid ONNX protobuf"), std::string::npos);
}

// The types of intermediate values come only from libonnx's inference,
// which runs in a child process with a capped address space: it must still
// work in every build (the sanitizer build's child inherits terabytes of
// reserved shadow memory).
TEST(OnnxLoader, IntermediateValues_GetInferredTypes) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {2, 3}).output("y", kF, {2, 3});
  g.node("Abs", {"x"}, {"t"});
  g.node("Neg", {"t"}, {"y"});
  auto model = testing::load_model(m);
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  const Graph& main = *(*model)->graph;
  const TypeInfo& t = main.value(*main.find_value("t")).type;
  EXPECT_EQ(t.elem, DataType::kFloat);
  ASSERT_TRUE(t.has_shape);
  ASSERT_EQ(t.shape.size(), 2u);
  EXPECT_EQ(t.shape[1].value, 3);
}

// libonnx 1.12's MaxUnpool inference reads dim 1 of the indices' shape
// without checking that there is one, and crashed the process. Inference
// now runs in a child process: the model is refused, nothing crashes.
TEST(OnnxLoader, ShapeInferenceCrash_IsContained) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {1, 1, 2, 2}).output("y", kF, {1, 1, 4, 4});
  auto* indices = m.mutable_graph()->add_input();
  indices->set_name("i");
  indices->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);  // no shape
  auto* unpool = g.node("MaxUnpool", {"x", "i"}, {"y"});
  auto* k = unpool->add_attribute();
  k->set_name("kernel_shape");
  k->set_type(onnx::AttributeProto::INTS);
  k->add_ints(2);
  k->add_ints(2);
  auto model = testing::load_model(m);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("shape"), std::string::npos) << model.status().message();
}

// libonnx's ConstantOfShape inference makes the output's rank the input's
// declared dim, here 2^63-1: the inference child grew by ~300 MB/s until
// its 60 s limit (found by sy_model_fuzz). Its address space is now capped,
// so it soon gives up, and the model loads without those types.
TEST(OnnxLoader, ShapeInferenceMemoryBlowup_IsContained) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", onnx::TensorProto::INT64, {std::numeric_limits<int64_t>::max()}).output("y", kF, {10, 6});
  g.node("ConstantOfShape", {"x"}, {"y"});
  auto model = testing::load_model(m);
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  EXPECT_EQ((*model)->graph->node(0).op_type, "ConstantOfShape");
}

// Opset 18 made ReduceMean's axes an input: the checker and shape
// inference know the new signature (SchemaRegistry), so the model loads
// with its intermediate types, and the old one is refused.
TEST(OnnxLoader, Opset18_ChecksAndInfersTheNewSignatures) {
  auto m = testing::new_model(18);
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {2, 3}).output("y", kF, {2});
  g.init_int64("axes", {1}, {1});
  auto* keepdims = g.node("ReduceMean", {"x", "axes"}, {"r"})->add_attribute();
  keepdims->set_name("keepdims");
  keepdims->set_type(onnx::AttributeProto::INT);
  keepdims->set_i(0);
  g.node("Gelu", {"r"}, {"y"});
  // Split-18's num_outputs may leave the last part smaller, which
  // Split-13's inference refuses.
  g.input("v", kF, {5}).output("v1", kF, {3}).output("v2", kF, {2});
  auto* n = g.node("Split", {"v"}, {"s1", "s2"})->add_attribute();
  n->set_name("num_outputs");
  n->set_type(onnx::AttributeProto::INT);
  n->set_i(2);
  g.node("Neg", {"s1"}, {"v1"});
  g.node("Neg", {"s2"}, {"v2"});
  onnx::ModelProto at20 = m;
  at20.mutable_opset_import(0)->set_version(20);
  auto model = testing::load_model(at20);
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  const Graph& main = *(*model)->graph;
  const TypeInfo& r = main.value(*main.find_value("r")).type;
  EXPECT_EQ(r.elem, DataType::kFloat);
  ASSERT_TRUE(r.has_shape);
  ASSERT_EQ(r.shape.size(), 1u);
  EXPECT_EQ(r.shape[0].value, 2);
  for (const auto& [part, size] : {std::pair{"s1", 3}, std::pair{"s2", 2}}) {
    const TypeInfo& t = main.value(*main.find_value(part)).type;
    ASSERT_TRUE(t.has_shape && t.shape.size() == 1) << part << ": " << t.to_string();
    EXPECT_EQ(t.shape[0].value, size) << part;
  }
  // Gelu is an opset-20 operator.
  auto at18 = testing::load_model(m);
  ASSERT_FALSE(at18.ok());
  EXPECT_NE(at18.status().message().find("unknown operator 'Gelu'"), std::string::npos) << at18.status().message();
  // ReduceMean-18 has no axes attribute.
  auto old_form = testing::new_model(18);
  GraphBuilder o(old_form.mutable_graph());
  o.input("x", kF, {2, 3}).output("y", kF, {2, 1});
  auto* axes = o.node("ReduceMean", {"x"}, {"y"})->add_attribute();
  axes->set_name("axes");
  axes->set_type(onnx::AttributeProto::INTS);
  axes->add_ints(1);
  auto refused = testing::load_model(old_form);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("axes"), std::string::npos) << refused.status().message();
}

TEST(OnnxLoader, OpsetsPastTheNewest_AndOpsWithoutSchemas_AreRefusedClearly) {
  auto m = testing::new_model(kMaxSupportedOpset + 1);
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {2}).output("y", kF, {2});
  g.node("Neg", {"x"}, {"y"});
  auto newer = testing::load_model(m);
  ASSERT_FALSE(newer.ok());
  EXPECT_NE(newer.status().message().find("newer than the newest supported"), std::string::npos)
      << newer.status().message();
  auto c = testing::new_model(20);
  GraphBuilder cg(c.mutable_graph());
  cg.input("x", kF, {2}).output("y", kF, {2});
  cg.node("Frobnicate", {"x"}, {"y"});
  auto unknown = testing::load_model(c);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.status().message().find("unknown operator 'Frobnicate' in domain 'ai.onnx' at opset 20"),
            std::string::npos)
      << unknown.status().message();
}

TEST(OnnxLoader, CheckerError_NamesTheNode) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {2}).output("y", kF, {2});
  g.node("Neg", {"x"}, {"a"});
  g.node("Relu", {"a", "x"}, {"y"})->clear_name();  // takes one input; unnamed, libonnx says "Node ()"
  auto model = testing::load_model(m);
  ASSERT_FALSE(model.ok());
  const std::string& msg = model.status().message();
  EXPECT_NE(msg.find("Relu (node '#1')"), std::string::npos) << msg;
  EXPECT_NE(msg.find("ONNX checker"), std::string::npos) << msg;
}

// Omitted inputs that feed a control-flow body (which the ONNX checker lets
// through as empty variadic names) are load errors, not a crash at run
// time; the fuzzer found SequenceMap's.
TEST(OnnxLoader, ControlFlowInputOmitted_IsAClearError) {
  auto expect_error = [](onnx::ModelProto& m, const std::string& want) {
    auto model = testing::load_model(m);
    ASSERT_FALSE(model.ok()) << want;
    EXPECT_EQ(model.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(model.status().message().find(want), std::string::npos) << model.status().message();
  };
  {
    auto m = testing::new_model();
    GraphBuilder g(m.mutable_graph());
    auto* seq = g.node("SequenceEmpty", {}, {"s"});
    auto* dtype = seq->add_attribute();
    dtype->set_name("dtype");
    dtype->set_type(onnx::AttributeProto::INT);
    dtype->set_i(kF);
    auto* map = g.node("SequenceMap", {"s", ""}, {"y0", "y1"});
    auto body = GraphBuilder::subgraph(map, "body", "body");
    body.input("in0", kF, {2}).input("in1", kF, {2}).output("out0", kF, {2}).output("out1", kF, {2});
    body.node("Identity", {"in0"}, {"out0"});
    body.node("Identity", {"in1"}, {"out1"});
    auto* out = m.mutable_graph()->add_output();
    out->set_name("y0");
    out->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(kF);
    expect_error(m, "SequenceMap (node 'SequenceMap_2'): input 1 is omitted; SequenceMap needs it");
  }
  {
    auto m = testing::new_model();
    GraphBuilder g(m.mutable_graph());
    g.input("s0", kF, {2}).output("s", kF, {2}).output("ys", kF, {3, 2});
    auto* scan = g.node("Scan", {"s0", ""}, {"s", "ys"});
    auto* k = scan->add_attribute();
    k->set_name("num_scan_inputs");
    k->set_type(onnx::AttributeProto::INT);
    k->set_i(1);
    auto body = GraphBuilder::subgraph(scan, "body", "body");
    body.input("st", kF, {2}).input("xi", kF, {2}).output("st2", kF, {2}).output("yi", kF, {2});
    body.node("Add", {"st", "xi"}, {"st2"});
    body.node("Identity", {"st2"}, {"yi"});
    expect_error(m, "input 1 is omitted; Scan needs it");
  }
  {
    auto m = testing::new_model();
    GraphBuilder g(m.mutable_graph());
    g.input("x", kF, {2}).output("y", kF, {2});
    auto* iff = g.node("If", {""}, {"y"});
    GraphBuilder::subgraph(iff, "then_branch", "then").output("x", kF, {2});
    GraphBuilder::subgraph(iff, "else_branch", "else").output("x", kF, {2});
    expect_error(m, "input 0 is omitted; If needs it");
  }
}

// x + c, with c an initializer of float_data {1, 2} and a Constant node's
// tensor k = {10, 20}: y = x + c + k.
onnx::ModelProto add_constants_model() {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {2}).init_float("c", {2}, {1, 2}).output("y", kF, {2});
  auto* k = g.node("Constant", {}, {"k"})->add_attribute();
  k->set_name("value");
  k->set_type(onnx::AttributeProto::TENSOR);
  k->mutable_t()->set_data_type(kF);
  k->mutable_t()->add_dims(2);
  for (float v : {10.f, 20.f}) k->mutable_t()->add_float_data(v);
  g.node("Add", {"x", "c"}, {"xc"});
  g.node("Add", {"xc", "k"}, {"y"});
  return m;
}

std::vector<float> floats_of(const TensorData& t) {
  if (t.bytes.size() != static_cast<size_t>(t.numel()) * sizeof(float)) return {};  // values not read
  return {t.data<float>(), t.data<float>() + t.numel()};
}

// c's and k's values as the graph holds them: both initializers, since
// the loader makes Constant nodes initializers (OpFusion).
void expect_constants_read(const Model& model) {
  const Graph& g = *model.graph;
  ASSERT_EQ(g.initializers().size(), 2u);
  EXPECT_EQ(g.nodes().size(), 2u);
  for (auto [name, want] : {std::pair{"c", std::vector<float>{1, 2}}, std::pair{"k", std::vector<float>{10, 20}}}) {
    const std::optional<ValueId> id = g.find_value(name);
    ASSERT_TRUE(id && g.value(*id).initializer >= 0) << name;
    EXPECT_EQ(floats_of(*g.initializers()[static_cast<size_t>(g.value(*id).initializer)]), want) << name;
  }
}

// load_proto leaves the caller's tensors in its proto; load_bytes parses its
// own, and its graph has the same values.
TEST(OnnxLoader, TensorValues_ReachTheGraph_AndLoadProtoLeavesThemInTheProto) {
  auto m = add_constants_model();
  const std::string bytes = m.SerializeAsString();
  auto from_proto = testing::load_model(m);
  ASSERT_TRUE(from_proto.ok()) << from_proto.status().to_string();
  expect_constants_read(**from_proto);
  // The proto is fused (k's Constant node became initializer 1), its
  // values left in it.
  ASSERT_EQ(m.graph().initializer_size(), 2);
  EXPECT_EQ(m.graph().initializer(0).float_data_size(), 2);
  EXPECT_EQ(m.graph().initializer(1).float_data_size(), 2);
  auto from_bytes = OnnxLoader().load_bytes(bytes, "m.onnx", "");
  ASSERT_TRUE(from_bytes.ok()) << from_bytes.status().to_string();
  expect_constants_read(**from_bytes);
}

// External data is checked before any value is read, and read once, into
// the graph that runs.
TEST(OnnxLoader, ExternalWeights_AreReadFromTheirFile) {
  std::string templ = (std::filesystem::temp_directory_path() / "sy_loader_test_XXXXXX").string();
  ASSERT_NE(::mkdtemp(templ.data()), nullptr);
  const std::filesystem::path dir(templ);
  auto m = add_constants_model();
  auto* c = m.mutable_graph()->mutable_initializer(0);
  c->clear_float_data();
  c->set_data_location(onnx::TensorProto::EXTERNAL);
  for (auto [key, value] : {std::pair{"location", "weights.bin"}, std::pair{"offset", "4"}}) {
    auto* kv = c->add_external_data();
    kv->set_key(key);
    kv->set_value(value);
  }
  const float file[3] = {99, 1, 2};  // c starts after the first float
  std::ofstream(dir / "weights.bin", std::ios::binary).write(reinterpret_cast<const char*>(file), sizeof file);
  std::ofstream(dir / "m.onnx", std::ios::binary) << m.SerializeAsString();
  auto model = OnnxLoader().load_file((dir / "m.onnx").string());
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  expect_constants_read(**model);
}

TEST(OnnxLoader, EmptyFile_IsNotAModel) {
  std::string templ = (std::filesystem::temp_directory_path() / "sy_loader_test_XXXXXX").string();
  ASSERT_NE(::mkdtemp(templ.data()), nullptr);
  const std::filesystem::path file = std::filesystem::path(templ) / "empty.onnx";
  std::ofstream{file};
  auto model = OnnxLoader().load_file(file.string());
  std::filesystem::remove_all(templ);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("empty file"), std::string::npos) << model.status().message();
}

}  // namespace
}  // namespace sy

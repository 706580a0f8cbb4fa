#include "bench/overhead_models.h"

#include "ir/onnx_loader.h"
#include "onnx/onnx_pb.h"

namespace sy::bench {
namespace {

void set_tensor_type(onnx::ValueInfoProto* v, const std::string& name, int elem, std::initializer_list<int64_t> dims) {
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  auto* shape = tt->mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

onnx::ModelProto base_model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("switchyard-bench");
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(17);
  return m;
}

void add_const(onnx::GraphProto* g, const std::string& name) {
  auto* c = g->add_initializer();
  c->set_name(name);
  c->set_data_type(onnx::TensorProto::FLOAT);
  c->add_dims(1);
  c->add_float_data(1.0f);
}

StatusOr<std::unique_ptr<Model>> load(onnx::ModelProto& m, const std::string& name) {
  LoadOptions opt;
  return OnnxLoader(opt).load_proto(m, name, "");
}

onnx::ModelProto chain_proto(int n) {
  onnx::ModelProto m = base_model();
  auto* g = m.mutable_graph();
  g->set_name("add_chain");
  set_tensor_type(g->add_input(), "x", onnx::TensorProto::FLOAT, {1});
  add_const(g, "c");
  std::string prev = "x";
  for (int i = 0; i < n; ++i) {
    auto* node = g->add_node();
    node->set_op_type("Add");
    node->set_name("add" + std::to_string(i));
    node->add_input(prev);
    node->add_input("c");
    prev = i + 1 == n ? "y" : "t" + std::to_string(i);
    node->add_output(prev);
  }
  set_tensor_type(g->add_output(), "y", onnx::TensorProto::FLOAT, {1});
  return m;
}

onnx::ModelProto loop_proto() {
  onnx::ModelProto m = base_model();
  auto* g = m.mutable_graph();
  g->set_name("add_loop");
  set_tensor_type(g->add_input(), "M", onnx::TensorProto::INT64, {});
  set_tensor_type(g->add_input(), "x", onnx::TensorProto::FLOAT, {1});
  add_const(g, "c");
  auto* loop = g->add_node();
  loop->set_op_type("Loop");
  loop->set_name("loop");
  loop->add_input("M");
  loop->add_input("");
  loop->add_input("x");
  loop->add_output("y");
  auto* attr = loop->add_attribute();
  attr->set_name("body");
  attr->set_type(onnx::AttributeProto::GRAPH);
  auto* body = attr->mutable_g();
  body->set_name("body");
  set_tensor_type(body->add_input(), "i", onnx::TensorProto::INT64, {});
  set_tensor_type(body->add_input(), "cond_in", onnx::TensorProto::BOOL, {});
  set_tensor_type(body->add_input(), "v", onnx::TensorProto::FLOAT, {1});
  auto* id = body->add_node();
  id->set_op_type("Identity");
  id->add_input("cond_in");
  id->add_output("cond_out");
  auto* add = body->add_node();
  add->set_op_type("Add");
  add->add_input("v");
  add->add_input("c");  // outer-scope initializer
  add->add_output("v_out");
  set_tensor_type(body->add_output(), "cond_out", onnx::TensorProto::BOOL, {});
  set_tensor_type(body->add_output(), "v_out", onnx::TensorProto::FLOAT, {1});
  set_tensor_type(g->add_output(), "y", onnx::TensorProto::FLOAT, {1});
  return m;
}

}  // namespace

StatusOr<std::unique_ptr<Model>> make_add_chain(int n) {
  onnx::ModelProto m = chain_proto(n);
  return load(m, "add_chain_" + std::to_string(n));
}

StatusOr<std::unique_ptr<Model>> make_add_loop() {
  onnx::ModelProto m = loop_proto();
  return load(m, "add_loop");
}

std::string add_chain_bytes(int n) { return chain_proto(n).SerializeAsString(); }
std::string add_loop_bytes() { return loop_proto().SerializeAsString(); }

}  // namespace sy::bench

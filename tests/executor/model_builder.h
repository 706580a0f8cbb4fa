// A small builder for ONNX models in tests, over the ONNX protobuf API.
#pragma once

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "ir/onnx_loader.h"
#include "onnx/onnx_pb.h"

namespace sy::testing {

class GraphBuilder {
 public:
  explicit GraphBuilder(onnx::GraphProto* g) : g_(g) {}
  GraphBuilder& input(const std::string& name, int elem, std::vector<int64_t> dims) {
    typed(g_->add_input(), name, elem, dims);
    return *this;
  }
  GraphBuilder& output(const std::string& name, int elem, std::vector<int64_t> dims) {
    typed(g_->add_output(), name, elem, dims);
    return *this;
  }
  // A value_info entry: the type and shape shape inference would give.
  GraphBuilder& value(const std::string& name, int elem, std::vector<int64_t> dims) {
    typed(g_->add_value_info(), name, elem, dims);
    return *this;
  }
  GraphBuilder& init_float(const std::string& name, std::vector<int64_t> dims, std::vector<float> v) {
    auto* t = g_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (auto d : dims) t->add_dims(d);
    for (float x : v) t->add_float_data(x);
    return *this;
  }
  GraphBuilder& init_int64(const std::string& name, std::vector<int64_t> dims, std::vector<int64_t> v) {
    auto* t = g_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    for (auto d : dims) t->add_dims(d);
    for (int64_t x : v) t->add_int64_data(x);
    return *this;
  }
  onnx::NodeProto* node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out) {
    auto* n = g_->add_node();
    n->set_op_type(op);
    n->set_name(op + "_" + std::to_string(g_->node_size()));
    for (auto& s : in) n->add_input(s);
    for (auto& s : out) n->add_output(s);
    return n;
  }
  // Adds an INTS attribute to `n`.
  static void ints(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  // Adds a graph attribute to `n` and returns a builder for it.
  static GraphBuilder subgraph(onnx::NodeProto* n, const std::string& attr, const std::string& name) {
    auto* a = n->add_attribute();
    a->set_name(attr);
    a->set_type(onnx::AttributeProto::GRAPH);
    a->mutable_g()->set_name(name);
    return GraphBuilder(a->mutable_g());
  }
  static void typed(onnx::ValueInfoProto* v, const std::string& name, int elem, const std::vector<int64_t>& dims) {
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    auto* shape = tt->mutable_shape();
    for (auto d : dims) shape->add_dim()->set_dim_value(d);
  }

 private:
  onnx::GraphProto* g_;
};

inline onnx::ModelProto new_model(int opset = 17) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  m.mutable_graph()->set_name("main");
  return m;
}

inline StatusOr<std::unique_ptr<Model>> load_model(onnx::ModelProto& m) { return OnnxLoader().load_proto(m, "test", ""); }

// x -> Add(c = 1) n times -> y, every value `size` floats.
inline onnx::ModelProto add_chain(int n, int64_t size) {
  auto m = new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", onnx::TensorProto::FLOAT, {size}).init_float("c", {1}, {1.0f}).output("y", onnx::TensorProto::FLOAT, {size});
  std::string prev = "x";
  for (int i = 0; i < n; ++i) {
    std::string next = i + 1 == n ? "y" : "t" + std::to_string(i);
    g.node("Add", {prev, "c"}, {next});
    prev = next;
  }
  return m;
}

// Loop M times: v = Relu(v * c + c) (c an outer-scope initializer); scan
// output v each step. Inputs M (int64 scalar) and x[4]; outputs y[4] and
// trace[trips, 4]. Body nodes: Identity_1 (condition), Mul_2, Add_3,
// Relu_4 (the carried v), Identity_5 (the scan output).
inline onnx::ModelProto relu_loop() {
  constexpr int kF = onnx::TensorProto::FLOAT;
  auto m = new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("M", onnx::TensorProto::INT64, {}).input("x", kF, {4}).init_float("c", {4}, {1.5f, -0.5f, 0.25f, 2.0f});
  g.output("y", kF, {4}).output("trace", kF, {-1, 4});
  auto* loop = g.node("Loop", {"M", "", "x"}, {"y", "trace"});
  auto body = GraphBuilder::subgraph(loop, "body", "body");
  body.input("i", onnx::TensorProto::INT64, {}).input("cond", onnx::TensorProto::BOOL, {}).input("v", kF, {4});
  body.node("Identity", {"cond"}, {"cond_out"});
  body.node("Mul", {"v", "c"}, {"vc"});
  body.node("Add", {"vc", "c"}, {"vcc"});
  body.node("Relu", {"vcc"}, {"v_out"});
  body.node("Identity", {"v_out"}, {"scan"});
  body.output("cond_out", onnx::TensorProto::BOOL, {}).output("v_out", kF, {4}).output("scan", kF, {4});
  auto* dim = m.mutable_graph()->mutable_output(1)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0);
  dim->clear_dim_value();
  dim->set_dim_param("trips");
  return m;
}

// `text` in a file of its own under the temp folder, removed with this.
class TempFile {
 public:
  explicit TempFile(const std::string& text) {
    static int counter = 0;
    path_ = (std::filesystem::temp_directory_path() /
             ("sy_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + ".json"))
                .string();
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace sy::testing

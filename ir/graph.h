// The immutable IR: Graph, Node and ValueInfo with dense integer ids.
// A graph is built once by the loader and then only read, so it is safe to
// share between threads and sessions.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/op_fusion.h"
#include "ir/status.h"
#include "ir/tensor_data.h"
#include "ir/type_info.h"

namespace sy {

class Graph;

struct Attribute {
  enum class Kind : uint8_t { kUndefined, kFloat, kInt, kString, kTensor, kGraph, kFloats, kInts, kStrings, kTensors, kGraphs, kTypeProto };
  std::string name;
  Kind kind = Kind::kUndefined;
  float f = 0;
  int64_t i = 0;
  std::string s;
  std::shared_ptr<const TensorData> t;
  const Graph* g = nullptr;  // owned by the node's Graph (Graph::subgraphs_)
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<std::shared_ptr<const TensorData>> tensors;
  std::vector<const Graph*> graphs;
  TypeInfo type_proto;  // for kTypeProto (e.g. SequenceEmpty dtype is an int; Optional uses a TypeProto)
};

using ValueId = int32_t;
using NodeId = int32_t;
constexpr ValueId kNoValue = -1;

struct ValueInfo {
  std::string name;
  TypeInfo type;
  NodeId producer = -1;            // node producing it, or -1
  std::vector<NodeId> consumers;   // nodes reading it (one entry per node)
  int initializer = -1;            // index into Graph::initializers()
  bool is_graph_input = false;
  bool is_graph_output = false;
  // For values a subgraph reads from an enclosing scope: the id of the same
  // value in the parent graph. Resolved at load time.
  ValueId outer = kNoValue;
};

class Node {
 public:
  NodeId id = -1;
  std::string name;
  std::string op_type;
  std::string domain;  // "" for the default ONNX domain
  int opset = 0;       // opset version of `domain` imported by the model
  std::vector<ValueId> inputs;   // kNoValue for an omitted optional input
  std::vector<ValueId> outputs;  // kNoValue for an omitted optional output
  // Values of this graph read by the node's subgraphs (outer-scope captures).
  // The executor treats them as extra inputs for readiness and lifetime.
  std::vector<ValueId> implicit_inputs;
  std::vector<Attribute> attributes;

  const Attribute* attr(std::string_view name) const;
  bool has_attr(std::string_view name) const { return attr(name) != nullptr; }
  int64_t attr_int(std::string_view name, int64_t dflt) const;
  float attr_float(std::string_view name, float dflt) const;
  std::string attr_string(std::string_view name, const std::string& dflt) const;
  std::vector<int64_t> attr_ints(std::string_view name, std::vector<int64_t> dflt = {}) const;
  std::vector<float> attr_floats(std::string_view name, std::vector<float> dflt = {}) const;
  std::vector<std::string> attr_strings(std::string_view name) const;
  const TensorData* attr_tensor(std::string_view name) const;
  const Graph* attr_graph(std::string_view name) const;
  StatusOr<const Graph*> required_graph(std::string_view name) const;

  size_t num_inputs() const { return inputs.size(); }
  size_t num_outputs() const { return outputs.size(); }
  bool has_input(size_t i) const { return i < inputs.size() && inputs[i] != kNoValue; }
  // "Add (node 'add_1')" for error messages.
  std::string describe() const;
  // "Op", or "domain::Op" outside the default domain: the key costs are
  // kept under (cost model, simulation profiles). FusedConv's is "Conv".
  std::string op_key() const;
};

class Graph {
 public:
  explicit Graph(std::string name = "", const Graph* parent = nullptr) : name_(std::move(name)), parent_(parent) {}
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  const std::string& name() const { return name_; }
  const Graph* parent() const { return parent_; }
  int depth() const { return parent_ ? parent_->depth() + 1 : 0; }

  const std::vector<Node>& nodes() const { return nodes_; }
  const Node& node(NodeId id) const { return nodes_[static_cast<size_t>(id)]; }
  const std::vector<ValueInfo>& values() const { return values_; }
  const ValueInfo& value(ValueId id) const { return values_[static_cast<size_t>(id)]; }
  size_t num_values() const { return values_.size(); }
  const std::vector<ValueId>& inputs() const { return inputs_; }
  const std::vector<ValueId>& outputs() const { return outputs_; }
  const std::vector<std::shared_ptr<const TensorData>>& initializers() const { return initializers_; }
  // Values of this graph that refer to an enclosing graph's value.
  const std::vector<ValueId>& captures() const { return captures_; }
  // Node order after topological sorting (the loader guarantees it exists).
  const std::vector<NodeId>& topo_order() const { return topo_order_; }
  std::optional<ValueId> find_value(std::string_view name) const;

  // Mutators used only by the loader while building.
  ValueId add_value(ValueInfo v);
  Node& add_node(Node n);
  Node& mutable_node(NodeId id) { return nodes_[static_cast<size_t>(id)]; }
  ValueInfo& mutable_value(ValueId id) { return values_[static_cast<size_t>(id)]; }
  std::vector<ValueId>& mutable_inputs() { return inputs_; }
  std::vector<ValueId>& mutable_outputs() { return outputs_; }
  std::vector<ValueId>& mutable_captures() { return captures_; }
  std::vector<NodeId>& mutable_topo_order() { return topo_order_; }
  int add_initializer(std::shared_ptr<const TensorData> t);
  Graph* add_subgraph(std::unique_ptr<Graph> g);
  const std::vector<std::unique_ptr<Graph>>& subgraphs() const { return subgraphs_; }

 private:
  std::string name_;
  const Graph* parent_;
  std::vector<Node> nodes_;
  std::vector<ValueInfo> values_;
  std::map<std::string, ValueId, std::less<>> by_name_;
  std::vector<ValueId> inputs_, outputs_, captures_;
  std::vector<NodeId> topo_order_;
  std::vector<std::shared_ptr<const TensorData>> initializers_;
  std::vector<std::unique_ptr<Graph>> subgraphs_;
};

// A loaded model: opset imports and the main graph.
struct Model {
  std::string path;  // file it came from, for error messages
  int64_t ir_version = 0;
  std::map<std::string, int> opsets;  // domain -> version ("" = ai.onnx)
  std::string producer;
  FusionCounts fusions;  // what the loader's OpFusion did
  std::unique_ptr<Graph> graph;
};

}  // namespace sy

#include "ir/graph.h"

namespace sy {

std::string TypeInfo::to_string() const {
  switch (kind) {
    case Kind::kUnknown: return "unknown";
    case Kind::kTensor: {
      std::string s = std::string("tensor(") + dtype_name(elem) + ")";
      if (has_shape) {
        s += "[";
        for (size_t i = 0; i < shape.size(); ++i) {
          if (i) s += ",";
          s += shape[i].known() ? std::to_string(shape[i].value) : (shape[i].symbol.empty() ? "?" : shape[i].symbol);
        }
        s += "]";
      }
      return s;
    }
    case Kind::kSequence: return "seq(" + (inner ? inner->to_string() : std::string("?")) + ")";
    case Kind::kOptional: return "optional(" + (inner ? inner->to_string() : std::string("?")) + ")";
  }
  return "?";
}

const Attribute* Node::attr(std::string_view n) const {
  for (const auto& a : attributes)
    if (a.name == n) return &a;
  return nullptr;
}

int64_t Node::attr_int(std::string_view n, int64_t dflt) const {
  const Attribute* a = attr(n);
  return a && a->kind == Attribute::Kind::kInt ? a->i : dflt;
}

float Node::attr_float(std::string_view n, float dflt) const {
  const Attribute* a = attr(n);
  return a && a->kind == Attribute::Kind::kFloat ? a->f : dflt;
}

std::string Node::attr_string(std::string_view n, const std::string& dflt) const {
  const Attribute* a = attr(n);
  return a && a->kind == Attribute::Kind::kString ? a->s : dflt;
}

std::vector<int64_t> Node::attr_ints(std::string_view n, std::vector<int64_t> dflt) const {
  const Attribute* a = attr(n);
  return a && a->kind == Attribute::Kind::kInts ? a->ints : dflt;
}

std::vector<float> Node::attr_floats(std::string_view n, std::vector<float> dflt) const {
  const Attribute* a = attr(n);
  return a && a->kind == Attribute::Kind::kFloats ? a->floats : dflt;
}

std::vector<std::string> Node::attr_strings(std::string_view n) const {
  const Attribute* a = attr(n);
  return a && a->kind == Attribute::Kind::kStrings ? a->strings : std::vector<std::string>{};
}

const TensorData* Node::attr_tensor(std::string_view n) const {
  const Attribute* a = attr(n);
  return a && a->kind == Attribute::Kind::kTensor ? a->t.get() : nullptr;
}

const Graph* Node::attr_graph(std::string_view n) const {
  const Attribute* a = attr(n);
  return a && a->kind == Attribute::Kind::kGraph ? a->g : nullptr;
}

StatusOr<const Graph*> Node::required_graph(std::string_view n) const {
  const Graph* g = attr_graph(n);
  if (!g) return InvalidArgument(describe(), ": missing required graph attribute '", n, "'");
  return g;
}

std::string Node::op_key() const {
  if (domain.empty() || domain == "ai.onnx") return op_type;
  // A fused convolution costs what the Conv does (its clamp rides in the
  // kernel's epilogue), so profiles measured on Conv apply to it; the
  // fused Gelu and LayerNormalization are ONNX's. The channels-last ops
  // keep their domain: their shapes read differently.
  if (domain == kSwitchyardDomain && (op_type == kFusedConv || op_type == kFusedGelu || op_type == kFusedLayerNorm))
    return op_type == kFusedConv ? "Conv" : op_type;
  std::string key = domain;
  key += "::";
  key += op_type;
  return key;
}

std::string Node::describe() const {
  return op_type + " (node '" + (name.empty() ? std::string("#") + std::to_string(id) : name) + "')";
}

std::optional<ValueId> Graph::find_value(std::string_view n) const {
  auto it = by_name_.find(n);
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

ValueId Graph::add_value(ValueInfo v) {
  ValueId id = static_cast<ValueId>(values_.size());
  if (!v.name.empty()) by_name_.emplace(v.name, id);
  values_.push_back(std::move(v));
  return id;
}

Node& Graph::add_node(Node n) {
  n.id = static_cast<NodeId>(nodes_.size());
  nodes_.push_back(std::move(n));
  return nodes_.back();
}

int Graph::add_initializer(std::shared_ptr<const TensorData> t) {
  initializers_.push_back(std::move(t));
  return static_cast<int>(initializers_.size() - 1);
}

Graph* Graph::add_subgraph(std::unique_ptr<Graph> g) {
  subgraphs_.push_back(std::move(g));
  return subgraphs_.back().get();
}

}  // namespace sy

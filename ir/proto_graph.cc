#include "ir/proto_graph.h"

namespace sy {

bool default_domain(const onnx::NodeProto& n) { return n.domain().empty() || n.domain() == "ai.onnx"; }

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

void count_uses(const onnx::GraphProto& g, std::unordered_map<std::string, int>& uses) {
  for (const auto& n : g.node()) {
    for (const auto& in : n.input())
      if (!in.empty()) ++uses[in];
    for (const auto& a : n.attribute()) {
      if (a.has_g()) count_uses(a.g(), uses);
      for (const auto& sg : a.graphs()) count_uses(sg, uses);
    }
  }
  for (const auto& o : g.output()) ++uses[o.name()];
}

void collect_names(const onnx::GraphProto& g, std::unordered_set<std::string>& names) {
  for (const auto* list : {&g.input(), &g.value_info(), &g.output()})
    for (const auto& v : *list) names.insert(v.name());
  for (const auto& t : g.initializer()) names.insert(t.name());
  for (const auto& n : g.node()) {
    names.insert(n.input().begin(), n.input().end());
    names.insert(n.output().begin(), n.output().end());
    for (const auto& a : n.attribute()) {
      if (a.has_g()) collect_names(a.g(), names);
      for (const auto& sg : a.graphs()) collect_names(sg, names);
    }
  }
}

std::unordered_map<std::string, int> elem_types(const onnx::GraphProto& g) {
  std::unordered_map<std::string, int> types;
  for (const auto* list : {&g.input(), &g.value_info(), &g.output()})
    for (const auto& v : *list)
      if (v.type().has_tensor_type()) types.emplace(v.name(), v.type().tensor_type().elem_type());
  for (const auto& t : g.initializer()) types.emplace(t.name(), t.data_type());
  return types;
}

std::string unique_name(const std::string& base, const std::string& suffix, std::unordered_set<std::string>& names) {
  std::string name = base + suffix;
  for (int k = 2; names.count(name); ++k) name = base + suffix + std::to_string(k);
  names.insert(name);
  return name;
}

void import_domain(onnx::ModelProto& model, const std::string& domain) {
  for (const auto& op : model.opset_import())
    if (op.domain() == domain) return;
  auto* op = model.add_opset_import();
  op->set_domain(domain);
  op->set_version(1);
}

}  // namespace sy

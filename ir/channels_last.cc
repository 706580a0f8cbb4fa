#include "ir/channels_last.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ir/op_fusion.h"
#include "ir/proto_graph.h"
#include "onnx/onnx_pb.h"

namespace sy {
namespace {

constexpr int kX = 0, kW = 1, kZ = 3;  // NhwcConv's inputs, as FusedConv's

// The types g gives its values (inputs, value_info, outputs), and its
// constant initializers (not graph inputs, which a caller may feed).
class GraphTypes {
 public:
  explicit GraphTypes(const onnx::GraphProto& g) {
    for (const auto* list : {&g.input(), &g.value_info(), &g.output()})
      for (const auto& v : *list)
        if (v.type().has_tensor_type()) types_.emplace(v.name(), &v.type());
    std::unordered_set<std::string> inputs;
    for (const auto& i : g.input()) inputs.insert(i.name());
    for (const auto& t : g.initializer())
      if (!inputs.count(t.name())) constants_.emplace(t.name(), &t);
  }
  // A float tensor of rank 4 that g types with a shape (its dims may be
  // symbols or unknown), or null.
  const onnx::TypeProto* float4d(const std::string& name) const {
    auto it = types_.find(name);
    if (it == types_.end()) return nullptr;
    const auto& t = it->second->tensor_type();
    return t.elem_type() == onnx::TensorProto::FLOAT && t.has_shape() && t.shape().dim_size() == 4 ? it->second
                                                                                                   : nullptr;
  }
  // Whether g types `name` as a tensor of rank 0, or holds it as an
  // initializer of no dims.
  bool scalar(const std::string& name) const {
    auto it = types_.find(name);
    if (it != types_.end())
      return it->second->tensor_type().has_shape() && it->second->tensor_type().shape().dim_size() == 0;
    auto c = constants_.find(name);
    return c != constants_.end() && c->second->dims_size() == 0;
  }
  const onnx::TensorProto* constant(const std::string& name) const {
    auto it = constants_.find(name);
    return it == constants_.end() ? nullptr : it->second;
  }

 private:
  std::unordered_map<std::string, const onnx::TypeProto*> types_;
  std::unordered_map<std::string, const onnx::TensorProto*> constants_;
};

int64_t int_attr(const onnx::NodeProto& n, const std::string& name, int64_t dflt) {
  const onnx::AttributeProto* a = find_attr(n, name);
  return a && a->type() == onnx::AttributeProto::INT ? a->i() : dflt;
}

enum class Kind { kNone, kConv, kPool, kElementwise };

// Elementwise ops without axes: on channels-last tensors they compute the
// same values, so a chain runs through them as it is. The one-input ones,
// and Clip, whose bounds must then be scalars.
bool unary_elementwise(const onnx::NodeProto& n) {
  static const std::unordered_set<std::string> ops = {
      "Relu",     "LeakyRelu",       "Sigmoid",  "HardSigmoid", "HardSwish", "Tanh", "Elu", "Selu", "Celu",
      "Softplus", "Softsign",        "Mish",     "Abs",         "Neg",       "Exp",  "Log", "Sqrt", "Reciprocal",
      "Erf",      "ThresholdedRelu", "Identity", "Gelu",        "Clip"};
  return (default_domain(n) && ops.count(n.op_type())) ||
         (n.domain() == kSwitchyardDomain && n.op_type() == kFusedGelu);
}
// The two-input ones: with both inputs 4-D, broadcasting matches axis by
// axis in either layout ([N, C, 1, 1] scales become [N, 1, 1, C]).
bool binary_elementwise(const onnx::NodeProto& n) {
  return default_domain(n) &&
         (n.op_type() == "Add" || n.op_type() == "Sub" || n.op_type() == "Mul" || n.op_type() == "Div");
}

// What node n can become on channels-last tensors (channels_last.h): a
// convolution NhwcConv can run, a pool NhwcMaxPool or
// NhwcGlobalAveragePool can, or an elementwise op that runs as it is.
Kind rewritable(const onnx::NodeProto& n, const GraphTypes& types) {
  if (n.output_size() != 1 || n.output(0).empty() || n.input_size() < 1 || !types.float4d(n.output(0)))
    return Kind::kNone;
  const onnx::TypeProto* x = types.float4d(n.input(kX));
  if (!x) return Kind::kNone;
  if (default_domain(n) && n.input_size() == 1 && (n.op_type() == "MaxPool" || n.op_type() == "GlobalAveragePool"))
    return Kind::kPool;  // MaxPool without Indices (one output)
  if (unary_elementwise(n)) {
    for (int k = 1; k < n.input_size(); ++k)
      if (!n.input(k).empty() && !types.scalar(n.input(k))) return Kind::kNone;
    return Kind::kElementwise;
  }
  if (binary_elementwise(n)) return n.input_size() == 2 && types.float4d(n.input(1)) ? Kind::kElementwise : Kind::kNone;
  const bool conv = n.op_type() == "Conv" && default_domain(n);
  const bool fused = n.op_type() == kFusedConv && n.domain() == kSwitchyardDomain;
  if ((!conv && !fused) || n.input_size() < 2 || n.input_size() > 4) return Kind::kNone;
  const onnx::TensorProto* w = types.constant(n.input(kW));
  if (!w || w->data_type() != onnx::TensorProto::FLOAT || w->dims_size() != 4) return Kind::kNone;
  if (n.input_size() > kZ && !n.input(kZ).empty() && !types.float4d(n.input(kZ))) return Kind::kNone;
  // Group 1 or depthwise: oneDNN's fast kernels; other groups stay on the
  // kernels that have them. A C that contradicts W is left to Conv's error.
  const int64_t group = int_attr(n, "group", 1);
  const auto& c = x->tensor_type().shape().dim(1);
  if (c.has_dim_value() && c.dim_value() != w->dims(1) * group) return Kind::kNone;
  return group == 1 || (w->dims(1) == 1 && w->dims(0) == group) ? Kind::kConv : Kind::kNone;
}

// The inputs of a node of kind k that are channels-last once it is
// rewritten: X, a convolution's residual Z, a binary op's second input.
std::vector<int> layout_inputs(const onnx::NodeProto& n, Kind k) {
  std::vector<int> out = {kX};
  if (k == Kind::kConv && n.input_size() > kZ && !n.input(kZ).empty()) out.push_back(kZ);
  if (k == Kind::kElementwise && binary_elementwise(n)) out.push_back(1);
  return out;
}

// Union-find over node indices, for the chains' connected parts.
class Parts {
 public:
  explicit Parts(size_t n) : parent_(n) {
    for (size_t i = 0; i < n; ++i) parent_[i] = i;
  }
  size_t find(size_t i) {
    while (parent_[i] != i) i = parent_[i] = parent_[parent_[i]];
    return i;
  }
  void join(size_t a, size_t b) { parent_[find(a)] = find(b); }

 private:
  std::vector<size_t> parent_;
};

// `type` (4-D) with its dims in the order `perm` gives.
onnx::TypeProto permuted(const onnx::TypeProto& type, const int64_t (&perm)[4]) {
  onnx::TypeProto out = type;
  auto* dims = out.mutable_tensor_type()->mutable_shape()->mutable_dim();
  for (int i = 0; i < 4; ++i) *dims->Mutable(i) = type.tensor_type().shape().dim(static_cast<int>(perm[i]));
  return out;
}

class GraphRewrite {
 public:
  GraphRewrite(onnx::GraphProto& g, std::unordered_set<std::string>& names) : g_(g), names_(names), types_(g) {}

  // Rewrites g; adds what it rewrote to `counts`.
  void run(FusionCounts& counts) {
    const size_t count = static_cast<size_t>(g_.node_size());
    std::vector<Kind> kind(count);
    std::unordered_map<std::string, size_t> producer;
    for (size_t i = 0; i < count; ++i) {
      kind[i] = rewritable(g_.node(static_cast<int>(i)), types_);
      if (kind[i] != Kind::kNone) producer[g_.node(static_cast<int>(i)).output(0)] = i;
    }
    // Rewritable nodes that read one another's outputs form parts; a part
    // is rewritten if it has two convolutions, or one and a pool: one
    // convolution alone, with its activations, gains less than the
    // transposes around it cost.
    Parts parts(count);
    for (size_t i = 0; i < count; ++i) {
      if (kind[i] == Kind::kNone) continue;
      for (int k : layout_inputs(g_.node(static_cast<int>(i)), kind[i])) {
        auto it = producer.find(g_.node(static_cast<int>(i)).input(k));
        if (it != producer.end()) parts.join(i, it->second);
      }
    }
    std::unordered_map<size_t, std::pair<int, int>> members;  // part -> {convolutions, pools}
    for (size_t i = 0; i < count; ++i) {
      if (kind[i] == Kind::kConv) ++members[parts.find(i)].first;
      if (kind[i] == Kind::kPool) ++members[parts.find(i)].second;
    }
    std::vector<bool> chained(count, false);
    for (size_t i = 0; i < count; ++i) {
      if (kind[i] == Kind::kNone) continue;
      const auto& [convs, pools] = members[parts.find(i)];
      chained[i] = convs >= 2 || (convs == 1 && pools >= 1);
    }
    if (std::find(chained.begin(), chained.end(), true) == chained.end()) return;
    // Reads of each value other than as a layout input of a rewritten
    // node: the NCHW value stays for those.
    std::unordered_map<std::string, int> nchw_reads;
    count_uses(g_, nchw_reads);
    // A HardSwish that alone reads a rewritten convolution's output (which
    // has no activation yet) runs in the convolution's epilogue: 300 us of
    // a MobileNetV3's 3.6 ms as nodes of their own.
    std::vector<int> folded(count, -1);  // convolution -> its HardSwish
    std::vector<bool> dropped(count, false);
    {
      std::unordered_map<std::string, std::vector<size_t>> readers;
      for (size_t i = 0; i < count; ++i)
        for (const auto& in : g_.node(static_cast<int>(i)).input()) readers[in].push_back(i);
      for (size_t i = 0; i < count; ++i) {
        const onnx::NodeProto& n = g_.node(static_cast<int>(i));
        if (!chained[i] || kind[i] != Kind::kConv || find_attr(n, "activation") || nchw_reads[n.output(0)] != 1)
          continue;
        const auto& r = readers[n.output(0)];
        if (r.size() != 1 || !chained[r[0]]) continue;
        const onnx::NodeProto& act = g_.node(static_cast<int>(r[0]));
        if (act.op_type() != "HardSwish" || !default_domain(act)) continue;
        folded[i] = static_cast<int>(r[0]);
        dropped[r[0]] = true;
      }
    }
    for (size_t i = 0; i < count; ++i)
      if (chained[i])
        for (int k : layout_inputs(g_.node(static_cast<int>(i)), kind[i]))
          --nchw_reads[g_.node(static_cast<int>(i)).input(k)];

    google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
    std::unordered_set<std::string> gone;  // NCHW values no node makes now
    for (size_t i = 0; i < count; ++i) {
      onnx::NodeProto& n = *g_.mutable_node(static_cast<int>(i));
      if (!chained[i]) {
        *nodes.Add() = std::move(n);
        continue;
      }
      if (dropped[i]) continue;  // folded into the convolution before it
      if (folded[i] >= 0) {
        gone.insert(n.output(0));
        n.set_output(0, g_.node(folded[i]).output(0));
        auto* a = n.add_attribute();
        a->set_name("activation");
        a->set_type(onnx::AttributeProto::STRING);
        a->set_s("HardSwish");
        ++counts.channels_last_elementwise;
      }
      const std::string y = n.output(0);
      const std::vector<int> inputs = layout_inputs(n, kind[i]);
      if (kind[i] != Kind::kElementwise) {
        n.set_op_type(kind[i] == Kind::kConv     ? kNhwcConv
                      : n.op_type() == "MaxPool" ? kNhwcMaxPool
                                                 : kNhwcGlobalAveragePool);
        n.set_domain(kSwitchyardDomain);
      }
      for (int k : inputs) n.set_input(k, nhwc(n.input(k), nodes));
      const std::string y_nhwc = unique_name(y, "/nhwc", names_);
      add_type(y_nhwc, permuted(*types_.float4d(y), kToNhwc));
      n.set_output(0, y_nhwc);
      twin_[y] = y_nhwc;
      *nodes.Add() = std::move(n);
      if (nchw_reads[y] > 0)
        add_transpose(y_nhwc, y, kToNchw, y + "/to_nchw", nodes);
      else
        gone.insert(y);
      ++(kind[i] == Kind::kConv   ? counts.channels_last_convs
         : kind[i] == Kind::kPool ? counts.channels_last_pools
                                  : counts.channels_last_elementwise);
    }
    g_.mutable_node()->Swap(&nodes);
    google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> kept;
    for (auto& v : *g_.mutable_value_info())
      if (!gone.count(v.name())) *kept.Add() = std::move(v);
    for (auto& v : added_) *kept.Add() = std::move(v);
    g_.mutable_value_info()->Swap(&kept);
  }

 private:
  static constexpr int64_t kToNhwc[4] = {0, 2, 3, 1};
  static constexpr int64_t kToNchw[4] = {0, 3, 1, 2};

  // The channels-last twin of NCHW value v: a rewritten node's output, or
  // a Transpose of v, added to `nodes` the first time one asks.
  std::string nhwc(const std::string& v, google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes) {
    auto it = twin_.find(v);
    if (it != twin_.end()) return it->second;
    const std::string t = unique_name(v, "/nhwc", names_);
    add_type(t, permuted(*types_.float4d(v), kToNhwc));
    add_transpose(v, t, kToNhwc, v + "/to_nhwc", nodes);
    twin_[v] = t;
    return t;
  }

  void add_transpose(const std::string& in, const std::string& out, const int64_t (&perm)[4], const std::string& name,
                     google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes) {
    onnx::NodeProto* t = nodes.Add();
    t->set_name(name);
    t->set_op_type("Transpose");
    t->add_input(in);
    t->add_output(out);
    auto* a = t->add_attribute();
    a->set_name("perm");
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t p : perm) a->add_ints(p);
  }

  void add_type(const std::string& name, onnx::TypeProto type) {
    onnx::ValueInfoProto& v = added_.emplace_back();
    v.set_name(name);
    *v.mutable_type() = std::move(type);
  }

  onnx::GraphProto& g_;
  std::unordered_set<std::string>& names_;
  const GraphTypes types_;
  std::unordered_map<std::string, std::string> twin_;  // NCHW value -> its channels-last twin
  std::vector<onnx::ValueInfoProto> added_;
};

void rewrite_graph(onnx::GraphProto& g, std::unordered_set<std::string>& names, FusionCounts& counts) {
  for (auto& n : *g.mutable_node())
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) rewrite_graph(*a.mutable_g(), names, counts);
      for (auto& sg : *a.mutable_graphs()) rewrite_graph(sg, names, counts);
    }
  GraphRewrite(g, names).run(counts);
}

}  // namespace

void ChannelsLast::run(onnx::ModelProto& model, FusionCounts& counts) {
  if (!model.has_graph()) return;
  std::unordered_set<std::string> names;
  collect_names(model.graph(), names);
  const int before = counts.channels_last_convs;
  rewrite_graph(*model.mutable_graph(), names, counts);
  if (counts.channels_last_convs > before) import_domain(model, kSwitchyardDomain);
}

}  // namespace sy

#include "ir/op_fusion.h"

#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/proto_graph.h"
#include "ir/tensor_data.h"
#include "ir/tensor_proto.h"
#include "onnx/onnx_pb.h"

namespace sy {
namespace {

// One graph's values that are constant: initializers that are not graph
// inputs (a caller may feed those), and Constant nodes' tensors (exporters
// write opset 18's axes and many scalars so).
class Constants {
 public:
  explicit Constants(onnx::GraphProto& g) : g_(g) {
    std::unordered_set<std::string> inputs;
    for (const auto& i : g.input()) inputs.insert(i.name());
    for (int i = 0; i < g.initializer_size(); ++i)
      if (!inputs.count(g.initializer(i).name())) index_[g.initializer(i).name()] = i;
    for (const onnx::NodeProto& n : g.node()) {
      if (n.op_type() != "Constant" || !default_domain(n) || n.output_size() != 1) continue;
      for (const onnx::AttributeProto& a : n.attribute())
        if (a.name() == "value" && a.has_t()) made_[n.output(0)] = &a.t();
    }
  }
  // The values of the int64 or int32 constant `name` of at most `max`
  // elements, if it is one.
  std::optional<std::vector<int64_t>> ints(const std::string& name, int64_t max) const {
    const onnx::TensorProto* t = find_any(name);
    if (!t || (t->data_type() != onnx::TensorProto::INT64 && t->data_type() != onnx::TensorProto::INT32))
      return std::nullopt;
    const std::shared_ptr<TensorData> v = load(t, max);
    if (!v) return std::nullopt;
    std::vector<int64_t> out;
    for (int64_t i = 0; i < v->numel(); ++i)
      out.push_back(v->dtype == DataType::kInt64 ? v->data<int64_t>()[i] : v->data<int32_t>()[i]);
    return out;
  }
  // The float tensor `name` holds, if it is a constant of at most `max`
  // elements stored in the file (not external).
  std::shared_ptr<TensorData> floats(const std::string& name, int64_t max) const {
    const onnx::TensorProto* t = find_any(name);
    return t && t->data_type() == onnx::TensorProto::FLOAT ? load(t, max) : nullptr;
  }
  // The values of float constant `name` as raw little-endian bytes, which a
  // fold may rewrite where they lie, and its shape; null if `name` is not a
  // float constant stored in the file. Moves values kept in float_data to
  // raw_data.
  std::string* raw_floats(const std::string& name, Dims& dims) {
    auto it = index_.find(name);
    if (it == index_.end()) return nullptr;
    onnx::TensorProto& t = *g_.mutable_initializer(it->second);
    if (t.data_type() != onnx::TensorProto::FLOAT) return nullptr;
    auto shape = tensor_from_proto(t, "", /*values=*/false);
    if (!shape.ok()) return nullptr;
    dims = (*shape)->dims;
    if (!t.has_raw_data()) {
      std::string raw(static_cast<size_t>(t.float_data_size()) * sizeof(float), '\0');
      if (!raw.empty()) std::memcpy(raw.data(), t.float_data().data(), raw.size());
      google::protobuf::RepeatedField<float>().Swap(t.mutable_float_data());
      t.set_raw_data(std::move(raw));
    }
    return t.mutable_raw_data();
  }
  // Adds a float initializer of raw little-endian `bytes`, named after
  // `base` and unique in the model (`names` holds every name, and takes the
  // new one).
  std::string add(const std::string& base, const Dims& dims, std::string bytes,
                  std::unordered_set<std::string>& names) {
    const std::string name = unique_name(base, "/bn_folded", names);
    onnx::TensorProto* t = g_.add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    t->set_raw_data(std::move(bytes));
    index_[name] = g_.initializer_size() - 1;
    return name;
  }

 private:
  // t's values if it holds at most `max` elements stored in the file.
  static std::shared_ptr<TensorData> load(const onnx::TensorProto* t, int64_t max) {
    auto shape = tensor_from_proto(*t, "", /*values=*/false);  // checks, and copies nothing yet
    if (!shape.ok() || (*shape)->numel() > max) return nullptr;
    auto data = tensor_from_proto(*t, "");
    return data.ok() ? *data : nullptr;
  }
  const onnx::TensorProto* find_any(const std::string& name) const {
    if (auto it = index_.find(name); it != index_.end()) return &g_.initializer(it->second);
    auto it = made_.find(name);
    return it == made_.end() ? nullptr : it->second;
  }

  onnx::GraphProto& g_;
  std::unordered_map<std::string, int> index_;
  std::unordered_map<std::string, const onnx::TensorProto*> made_;  // by Constant nodes
};

// The static shape of each value g types with one (its first among g's
// inputs, value_info and outputs, else its initializer's), dim by dim: its
// value, or its symbol behind a '?'. A value with an unknown dim gets a
// shape that matches no other.
std::unordered_map<std::string, std::vector<std::string>> static_shapes(const onnx::GraphProto& g) {
  std::unordered_map<std::string, std::vector<std::string>> shapes;
  for (const auto* list : {&g.input(), &g.value_info(), &g.output()})
    for (const auto& v : *list) {
      if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape() || shapes.count(v.name())) continue;
      std::vector<std::string> dims;
      for (const auto& d : v.type().tensor_type().shape().dim()) {
        if (d.has_dim_value()) {
          dims.push_back(std::to_string(d.dim_value()));
        } else if (d.has_dim_param() && !d.dim_param().empty()) {
          dims.push_back("?" + d.dim_param());
        } else {
          dims.clear();
          dims.push_back("");  // unknown: matches nothing
          break;
        }
      }
      shapes.emplace(v.name(), std::move(dims));
    }
  for (const auto& t : g.initializer()) {
    std::vector<std::string> dims;
    for (int64_t d : t.dims()) dims.push_back(std::to_string(d));
    shapes.emplace(t.name(), std::move(dims));
  }
  return shapes;
}

// Conv(x, W, B) then BatchNormalization(scale, bias, mean, var): W' = W * s,
// B' = (B - mean) * s + bias with s = scale / sqrt(var + epsilon), in double.
bool fold_batch_norm(onnx::NodeProto& conv, const onnx::NodeProto& bn, Constants& constants,
                     const std::unordered_map<std::string, int>& uses, std::unordered_set<std::string>& names) {
  if (bn.input_size() != 5 || (bn.output_size() > 1 && !bn.output(1).empty())) return false;
  for (int i = 2; i < bn.output_size(); ++i)
    if (!bn.output(i).empty()) return false;
  if (const auto* t = find_attr(bn, "training_mode"); t && t->i() != 0) return false;
  if (conv.input_size() < 2) return false;
  // Only this Conv reads the weights or the bias: fold where they lie, for
  // a new initializer would hold a second copy until the old one is gone.
  auto only_reader = [&](const std::string& name) {
    auto it = uses.find(name);
    return it != uses.end() && it->second == 1;
  };
  Dims wdims;
  std::string* const wraw = constants.raw_floats(conv.input(1), wdims);
  if (!wraw || wdims.rank() < 3 || wdims[0] <= 0) return false;
  const int64_t M = wdims[0], per = wdims.numel() / M;
  std::shared_ptr<TensorData> stats[4];
  for (int i = 0; i < 4; ++i) {
    stats[i] = constants.floats(bn.input(i + 1), M);
    if (!stats[i] || stats[i]->numel() != M) return false;
  }
  std::shared_ptr<TensorData> b;
  if (conv.input_size() > 2 && !conv.input(2).empty()) {
    b = constants.floats(conv.input(2), M);
    if (!b || b->numel() != M) return false;
  }
  const auto* eps_attr = find_attr(bn, "epsilon");
  const double eps = eps_attr ? eps_attr->f() : 1e-5;
  const bool in_place = only_reader(conv.input(1));
  std::string copy;
  std::string& w = in_place ? *wraw : (copy = *wraw);
  std::vector<float> b2(static_cast<size_t>(M));
  const float *scale = stats[0]->data<float>(), *bias = stats[1]->data<float>(), *mean = stats[2]->data<float>(),
              *var = stats[3]->data<float>();
  for (int64_t m = 0; m < M; ++m) {
    const double s = scale[m] / std::sqrt(static_cast<double>(var[m]) + eps);
    // memcpy: the bytes of a std::string are not floats to C++.
    for (char *p = w.data() + m * per * sizeof(float), *end = p + per * sizeof(float); p < end; p += sizeof(float)) {
      float v;
      std::memcpy(&v, p, sizeof v);
      v = static_cast<float>(v * s);
      std::memcpy(p, &v, sizeof v);
    }
    b2[m] = static_cast<float>(((b ? b->data<float>()[m] : 0.0) - mean[m]) * s + bias[m]);
  }
  std::string b2_bytes(reinterpret_cast<const char*>(b2.data()), b2.size() * sizeof(float));
  const std::string wname = in_place ? conv.input(1) : constants.add(conv.input(1), wdims, std::move(copy), names);
  std::string bname;
  Dims bdims;
  // (A bias made by a Constant node has no initializer to rewrite.)
  if (std::string* braw = b && only_reader(conv.input(2)) ? constants.raw_floats(conv.input(2), bdims) : nullptr) {
    *braw = std::move(b2_bytes);
    bname = conv.input(2);
  } else {
    bname = constants.add(b ? conv.input(2) : conv.input(1) + "_bias", Dims{M}, std::move(b2_bytes), names);
  }
  conv.set_input(1, wname);
  if (conv.input_size() > 2) {
    conv.set_input(2, bname);
  } else {
    conv.add_input(bname);
  }
  return true;
}

// Relu, or Clip with constant bounds, as (activation, params); nullopt for
// anything else.
std::optional<std::pair<std::string, std::vector<float>>> activation_of(const onnx::NodeProto& n, int opset,
                                                                        const Constants& constants) {
  if (!default_domain(n) || n.output_size() != 1) return std::nullopt;
  if (n.op_type() == "Relu") return std::make_pair(std::string("Relu"), std::vector<float>{});
  if (n.op_type() != "Clip") return std::nullopt;
  float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
  if (opset < 11) {
    if (const auto* a = find_attr(n, "min")) lo = a->f();
    if (const auto* a = find_attr(n, "max")) hi = a->f();
  } else {
    for (int i = 1; i < n.input_size() && i < 3; ++i) {
      if (n.input(i).empty()) continue;
      const auto t = constants.floats(n.input(i), 1);
      if (!t || t->numel() != 1) return std::nullopt;
      (i == 1 ? lo : hi) = t->data<float>()[0];
    }
  }
  return std::make_pair(std::string("Clip"), std::vector<float>{lo, hi});
}

void fuse_activation(onnx::NodeProto& conv, const onnx::NodeProto& act,
                     const std::pair<std::string, std::vector<float>>& activation) {
  conv.set_op_type(kFusedConv);
  conv.set_domain(kSwitchyardDomain);
  auto* a = conv.add_attribute();
  a->set_name("activation");
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(activation.first);
  if (!activation.second.empty()) {
    auto* p = conv.add_attribute();
    p->set_name("activation_params");
    p->set_type(onnx::AttributeProto::FLOATS);
    for (float v : activation.second) p->add_floats(v);
  }
  conv.set_output(0, act.output(0));
}

// The nodes of an op that a model writes out in arithmetic, which one node
// replaces: the op's input x and constant parameters, the nodes that go,
// and the last node, whose output the new node makes in its place.
struct Chain {
  std::string x;
  std::vector<std::string> params;  // constant inputs after x (LayerNormalization's scale and bias)
  float epsilon = 0;
  std::vector<int> inner;  // the nodes replaced, but the last
  int last = -1;
};

// Finds such chains in one graph. Every intermediate value must be read by
// the chain alone, and every constant be a float initializer no caller can
// override.
class ChainMatcher {
 public:
  // `readers`: the nodes of g that read each value, once per input slot.
  ChainMatcher(const onnx::GraphProto& g, const Constants& constants, const std::unordered_map<std::string, int>& uses,
               const std::unordered_map<std::string, int>& producer,
               const std::unordered_map<std::string, std::vector<int>>& readers,
               const std::unordered_map<std::string, std::vector<std::string>>& shapes)
      : g_(g), constants_(constants), uses_(uses), producer_(producer), readers_(readers), shapes_(shapes) {}

  // Gelu, found from its Erf: x/2 (1 + erf(x / sqrt 2)) as Div(x, sqrt 2)
  // or Mul(x, 1/sqrt 2), Erf, Add 1, then x times that and the product
  // times 1/2, or x times 1/2 first (PyTorch's and TensorFlow's exports
  // before opset 20), each operand of Add and Mul either way round.
  std::optional<Chain> gelu(int erf) const {
    const onnx::NodeProto& e = g_.node(erf);
    if (e.input_size() != 1 || e.output_size() != 1) return std::nullopt;
    Chain c;
    // Div(x, sqrt 2) or Mul(x, 1/sqrt 2).
    const int scale = made_for_one(e.input(0));
    if (scale < 0) return std::nullopt;
    const onnx::NodeProto& s = g_.node(scale);
    if (is(s, "Div") && constant_is(s.input(1), static_cast<float>(M_SQRT2), s.input(0))) {
      c.x = s.input(0);
    } else if (auto x = is(s, "Mul") ? operand_beside(s, static_cast<float>(M_SQRT1_2)) : std::nullopt) {
      c.x = *x;
    } else {
      return std::nullopt;
    }
    c.inner = {scale, erf};
    return with_half_x_times_one_plus(std::move(c), erf);
  }

  // Gelu's tanh form, found from its Tanh: x/2 (1 + tanh(sqrt(2/pi) (x +
  // 0.044715 x^3))), the cube as Pow(x, 3) or x times x times x, each
  // constant product and sum either way round, then the erf form's tail
  // (PyTorch's approximate="tanh" and GPT-2's GELU before opset 20).
  std::optional<Chain> gelu_tanh(int tanh) const {
    const onnx::NodeProto& t = g_.node(tanh);
    if (t.input_size() != 1 || t.output_size() != 1) return std::nullopt;
    const int scale = made_for_one(t.input(0));
    if (scale < 0 || !is(g_.node(scale), "Mul")) return std::nullopt;
    const auto inner = operand_beside(g_.node(scale), 0.7978845608f);  // sqrt(2 / pi)
    const int sum = inner ? made_for_one(*inner) : -1;
    if (sum < 0 || !is(g_.node(sum), "Add")) return std::nullopt;
    for (int k = 0; k < 2; ++k) {
      Chain c;
      c.x = g_.node(sum).input(k);
      const int cubed = made_for_one(g_.node(sum).input(1 - k));
      if (cubed < 0 || !is(g_.node(cubed), "Mul")) continue;
      const auto cube = operand_beside(g_.node(cubed), 0.044715f);
      if (!cube || !is_cube(*cube, c.x, c.inner)) continue;
      c.inner.insert(c.inner.end(), {cubed, sum, scale, tanh});
      return with_half_x_times_one_plus(std::move(c), tanh);
    }
    return std::nullopt;
  }

  // The tail both Gelu forms share, after f (their Erf or Tanh): 1 + f,
  // then x times that and the product times 1/2, or x times 1/2 first.
  std::optional<Chain> with_half_x_times_one_plus(Chain c, int f) const {
    const std::string& fx = g_.node(f).output(0);
    const int add = read_once(fx);
    if (add < 0 || !is(g_.node(add), "Add") || operand_beside(g_.node(add), 1.f, c.x) != fx) return std::nullopt;
    const int mul = read_once(g_.node(add).output(0));
    if (mul < 0 || !is(g_.node(mul), "Mul")) return std::nullopt;
    const onnx::NodeProto& m = g_.node(mul);
    const std::string other = m.input(m.input(0) == g_.node(add).output(0) ? 1 : 0);
    c.inner.push_back(add);
    if (other == c.x) {  // x (1 + erf), then times 1/2
      const int half = read_once(m.output(0));
      if (half < 0 || !is(g_.node(half), "Mul") || operand_beside(g_.node(half), 0.5f, c.x) != m.output(0))
        return std::nullopt;
      c.inner.push_back(mul);
      c.last = half;
    } else {  // (x/2) (1 + erf)
      const int half = made_for_one(other);
      if (half < 0 || !is(g_.node(half), "Mul") || operand_beside(g_.node(half), 0.5f) != c.x) return std::nullopt;
      c.inner.push_back(half);
      c.last = mul;
    }
    return c;
  }

  // LayerNormalization over the last axis, as PyTorch exports nn.LayerNorm
  // before opset 17, found from its Div: ReduceMean(x) and Sub (d = x -
  // mean), Pow(d, 2) or Mul(d, d), ReduceMean, Add epsilon, Sqrt, Div(d,
  // ...), then Mul by a constant scale and, where one follows, Add a
  // constant bias, each of x's last dim (which shape inference must give).
  std::optional<Chain> layer_norm(int div) const {
    const onnx::NodeProto& dv = g_.node(div);
    if (!is(dv, "Div")) return std::nullopt;
    const std::string& d = dv.input(0);
    const int sqrt = made_for_one(dv.input(1));
    if (sqrt < 0 || !is(g_.node(sqrt), "Sqrt", 1)) return std::nullopt;
    const int add_eps = made_for_one(g_.node(sqrt).input(0));
    if (add_eps < 0 || !is(g_.node(add_eps), "Add")) return std::nullopt;
    Chain c;
    std::string var;
    for (int k = 0; k < 2 && var.empty(); ++k)
      if (auto eps = scalar(g_.node(add_eps).input(1 - k), ""); eps && *eps >= 0) {
        c.epsilon = *eps;
        var = g_.node(add_eps).input(k);
      }
    const int mean_sq = var.empty() ? -1 : made_for_one(var);
    if (mean_sq < 0) return std::nullopt;
    const int square = made_for_one(g_.node(mean_sq).input(0));
    if (square < 0) return std::nullopt;
    const onnx::NodeProto& sq = g_.node(square);
    const bool pow = is(sq, "Pow") && sq.input(0) == d && constant_is(sq.input(1), 2.f, d);
    const bool mul = is(sq, "Mul") && sq.input(0) == d && sq.input(1) == d;
    // d: read by the square (once or twice) and the Div, nothing else.
    auto p = producer_.find(d);
    auto u = uses_.find(d);
    if ((!pow && !mul) || p == producer_.end() || u == uses_.end() || u->second != (pow ? 2 : 3)) return std::nullopt;
    const int sub = p->second;
    if (!is(g_.node(sub), "Sub")) return std::nullopt;
    c.x = g_.node(sub).input(0);
    const int mean = made_for_one(g_.node(sub).input(1));
    if (mean < 0 || g_.node(mean).input(0) != c.x || !is_last_axis_mean(g_.node(mean), c.x) ||
        !is_last_axis_mean(g_.node(mean_sq), c.x))
      return std::nullopt;
    // Times the scale, plus the bias if there is one.
    const int scale = read_once(dv.output(0));
    if (scale < 0 || !is(g_.node(scale), "Mul")) return std::nullopt;
    const auto gamma = parameter_beside(g_.node(scale), dv.output(0), c.x);
    if (!gamma) return std::nullopt;
    c.params.push_back(*gamma);
    c.inner = {mean, sub, square, mean_sq, add_eps, sqrt, div};
    c.last = scale;
    const int bias = read_once(g_.node(scale).output(0));
    if (bias >= 0 && is(g_.node(bias), "Add"))
      if (auto beta = parameter_beside(g_.node(bias), g_.node(scale).output(0), c.x)) {
        c.params.push_back(*beta);
        c.inner.push_back(scale);
        c.last = bias;
      }
    return c;
  }

 private:
  static bool is(const onnx::NodeProto& n, const char* op, int inputs = 2) {
    return n.op_type() == op && default_domain(n) && n.input_size() == inputs && n.output_size() == 1;
  }
  // ReduceMean over the last axis of x's shape alone, keeping it: the axes
  // an attribute before opset 18, a constant input from 18 on.
  bool is_last_axis_mean(const onnx::NodeProto& n, const std::string& x) const {
    std::vector<int64_t> axes;
    if (is(n, "ReduceMean", 1)) {
      if (const auto* a = find_attr(n, "axes")) axes.assign(a->ints().begin(), a->ints().end());
    } else if (is(n, "ReduceMean", 2)) {
      if (auto a = constants_.ints(n.input(1), 1)) axes = *a;
    } else {
      return false;
    }
    const auto* keep = find_attr(n, "keepdims");
    if ((keep && keep->i() != 1) || axes.size() != 1) return false;
    if (axes[0] == -1) return true;
    const int rank = static_rank(x);
    return rank > 0 && axes[0] == rank - 1;
  }
  // The static rank of `value`, or -1.
  int static_rank(const std::string& value) const {
    auto it = shapes_.find(value);
    if (it == shapes_.end() || (!it->second.empty() && it->second[0].empty())) return -1;
    return static_cast<int>(it->second.size());
  }
  // The operand of n beside `value` if it is a rank-1 float constant as long
  // as x's last dim, which must be static.
  std::optional<std::string> parameter_beside(const onnx::NodeProto& n, const std::string& value,
                                              const std::string& x) const {
    const std::string& other = n.input(n.input(0) == value ? 1 : 0);
    if (n.input(0) != value && n.input(1) != value) return std::nullopt;
    auto it = shapes_.find(x);
    if (it == shapes_.end() || it->second.empty() || it->second.back().empty() || it->second.back()[0] == '?')
      return std::nullopt;
    const auto t = constants_.floats(other, int64_t{1} << 24);
    if (!t || t->dims.rank() != 1 || std::to_string(t->dims[0]) != it->second.back()) return std::nullopt;
    return other;
  }
  // Whether `value` is x cubed, made for one reader as Pow(x, 3), Mul(x,
  // Mul(x, x)) or Mul(Mul(x, x), x); its nodes go into `nodes`.
  bool is_cube(const std::string& value, const std::string& x, std::vector<int>& nodes) const {
    const int p = made_for_one(value);
    if (p < 0) return false;
    const onnx::NodeProto& n = g_.node(p);
    if (is(n, "Pow") && n.input(0) == x && constant_is(n.input(1), 3.f, x)) {
      nodes.push_back(p);
      return true;
    }
    if (!is(n, "Mul")) return false;
    for (int k = 0; k < 2; ++k) {
      if (n.input(k) != x) continue;
      const int sq = made_for_one(n.input(1 - k));
      if (sq >= 0 && is(g_.node(sq), "Mul") && g_.node(sq).input(0) == x && g_.node(sq).input(1) == x) {
        nodes.insert(nodes.end(), {sq, p});
        return true;
      }
    }
    return false;
  }
  // The node that makes `value` for one reader, or -1.
  int made_for_one(const std::string& value) const {
    auto u = uses_.find(value);
    auto p = producer_.find(value);
    return u != uses_.end() && u->second == 1 && p != producer_.end() ? p->second : -1;
  }
  // The one node that reads `value` (in one input slot), or -1.
  int read_once(const std::string& value) const {
    auto u = uses_.find(value);
    auto r = readers_.find(value);
    return u != uses_.end() && u->second == 1 && r != readers_.end() && r->second.size() == 1 ? r->second[0] : -1;
  }
  // Whether `name` is scalar(name, x) within 1e-6 of `v` (relative).
  bool constant_is(const std::string& name, float v, const std::string& x) const {
    const auto c = scalar(name, x);
    return c && std::abs(*c - v) <= 1e-6f * std::abs(v);
  }
  // The value of `name` if it is a float constant of one element whose
  // broadcast leaves x's shape as it is: a scalar, or (x given) dims of 1
  // no more than x's static rank.
  std::optional<float> scalar(const std::string& name, const std::string& x) const {
    const auto t = constants_.floats(name, 1);
    if (!t || t->numel() != 1) return std::nullopt;
    if (t->dims.rank() != 0 && (x.empty() || static_rank(x) < static_cast<int>(t->dims.rank()))) return std::nullopt;
    return t->data<float>()[0];
  }
  // The operand of n beside the constant `v` (checked against `x`'s rank;
  // with no x, against the operand itself), if one of the two is such.
  std::optional<std::string> operand_beside(const onnx::NodeProto& n, float v, const std::string& x = "") const {
    for (int k = 0; k < 2; ++k)
      if (constant_is(n.input(1 - k), v, x.empty() ? n.input(k) : x)) return n.input(k);
    return std::nullopt;
  }

  const onnx::GraphProto& g_;
  const Constants& constants_;
  const std::unordered_map<std::string, int>& uses_;
  const std::unordered_map<std::string, int>& producer_;
  const std::unordered_map<std::string, std::vector<int>>& readers_;
  const std::unordered_map<std::string, std::vector<std::string>>& shapes_;
};

// Removes the elements for which drop(element, index) holds, in order and
// in one pass (DeleteSubrange one at a time would be quadratic).
template <typename T, typename Drop>
void erase_if(google::protobuf::RepeatedPtrField<T>& list, Drop drop) {
  google::protobuf::RepeatedPtrField<T> kept;
  for (int i = 0; i < list.size(); ++i)
    if (!drop(list.Get(i), i)) *kept.Add() = std::move(*list.Mutable(i));
  list.Swap(&kept);
}

// The tensor a Constant node makes, from its attribute (value, or the
// numeric scalar and list forms), named `name`; nullopt for the forms left
// as nodes (strings, sparse tensors).
std::optional<onnx::TensorProto> constant_tensor(const onnx::NodeProto& n, const std::string& name) {
  if (n.attribute_size() != 1) return std::nullopt;
  const onnx::AttributeProto& a = n.attribute(0);
  onnx::TensorProto t;
  if (a.name() == "value" && a.has_t()) {
    t = a.t();
  } else if (a.name() == "value_float" && a.type() == onnx::AttributeProto::FLOAT) {
    t.set_data_type(onnx::TensorProto::FLOAT);
    t.add_float_data(a.f());
  } else if (a.name() == "value_int" && a.type() == onnx::AttributeProto::INT) {
    t.set_data_type(onnx::TensorProto::INT64);
    t.add_int64_data(a.i());
  } else if (a.name() == "value_floats" && a.type() == onnx::AttributeProto::FLOATS) {
    t.set_data_type(onnx::TensorProto::FLOAT);
    t.add_dims(a.floats_size());
    *t.mutable_float_data() = a.floats();
  } else if (a.name() == "value_ints" && a.type() == onnx::AttributeProto::INTS) {
    t.set_data_type(onnx::TensorProto::INT64);
    t.add_dims(a.ints_size());
    *t.mutable_int64_data() = a.ints();
  } else {
    return std::nullopt;
  }
  t.set_name(name);
  return t;
}

// Constant nodes become initializers of their graph. A Constant makes the
// same tensor on every run and every loop iteration, yet as a node it was
// placed and run each time: 18 of wide_branches' 96 nodes a run, each a
// placement, a kernel and on a GPU a launch. (ONNX Runtime folds them at
// load too.) A Constant that is a graph output stays a node, since a
// graph's outputs are what its nodes make.
void fold_constant_nodes(onnx::GraphProto& g, FusionCounts& counts) {
  std::unordered_set<std::string> outputs;
  for (const auto& o : g.output()) outputs.insert(o.name());
  std::vector<bool> folded(static_cast<size_t>(g.node_size()), false);
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    if (n.op_type() != "Constant" || !default_domain(n) || n.output_size() != 1 || n.output(0).empty() ||
        outputs.count(n.output(0)))
      continue;
    std::optional<onnx::TensorProto> t = constant_tensor(n, n.output(0));
    if (!t) continue;
    *g.add_initializer() = std::move(*t);
    folded[static_cast<size_t>(i)] = true;
    ++counts.constants_folded;
  }
  erase_if(*g.mutable_node(), [&](const onnx::NodeProto&, int i) { return folded[static_cast<size_t>(i)]; });
}

void fuse_graph(onnx::GraphProto& g, int opset, FusionCounts& counts) {
  for (auto& n : *g.mutable_node())
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) fuse_graph(*a.mutable_g(), opset, counts);
      for (auto& sg : *a.mutable_graphs()) fuse_graph(sg, opset, counts);
    }
  fold_constant_nodes(g, counts);
  std::unordered_map<std::string, int> uses;
  count_uses(g, uses);
  std::unordered_set<std::string> names;
  collect_names(g, names);
  Constants constants(g);
  std::unordered_map<std::string, int> types = elem_types(g);
  const auto shapes = static_shapes(g);
  // Whether the values have one static shape between them.
  auto same_shape = [&](std::initializer_list<std::string> names) {
    const std::vector<std::string>* first = nullptr;
    for (const std::string& name : names) {
      auto it = shapes.find(name);
      if (it == shapes.end() || (!it->second.empty() && it->second[0].empty())) return false;
      if (first && *first != it->second) return false;
      first = &it->second;
    }
    return true;
  };
  auto is_float = [&](const std::string& name) {
    auto it = types.find(name);
    return it != types.end() && it->second == onnx::TensorProto::FLOAT;
  };
  std::unordered_map<std::string, int> producer;  // value -> node index
  for (int i = 0; i < g.node_size(); ++i)
    for (const auto& o : g.node(i).output())
      if (!o.empty()) producer[o] = i;
  std::unordered_map<std::string, std::vector<int>> readers;
  for (int i = 0; i < g.node_size(); ++i)
    for (const auto& in : g.node(i).input())
      if (!in.empty()) readers[in].push_back(i);
  const ChainMatcher chains(g, constants, uses, producer, readers, shapes);
  std::vector<bool> removed(static_cast<size_t>(g.node_size()), false);
  std::unordered_set<std::string> gone;  // values no node makes any more
  // The float Conv that makes `value` for one reader only, or null. With
  // `residual`, also a FusedConv that has added a residual but has no
  // activation yet. (A fused node's output names the Conv as its
  // producer.)
  auto conv_making = [&](const std::string& value, bool residual) -> onnx::NodeProto* {
    if (value.empty() || uses[value] != 1) return nullptr;
    auto it = producer.find(value);
    if (it == producer.end()) return nullptr;
    onnx::NodeProto* conv = g.mutable_node(it->second);
    const bool plain = conv->op_type() == "Conv" && default_domain(*conv);
    const bool summed = residual && conv->op_type() == kFusedConv && conv->domain() == kSwitchyardDomain &&
                        !find_attr(*conv, "activation");
    if ((!plain && !summed) || conv->output_size() != 1 || conv->input_size() < 2) return nullptr;
    return is_float(conv->input(0)) || is_float(conv->input(1)) ? conv : nullptr;
  };
  auto conv_before = [&](int i, bool residual = false) -> onnx::NodeProto* {
    const onnx::NodeProto& n = g.node(i);
    return n.input_size() == 0 ? nullptr : conv_making(n.input(0), residual);
  };
  for (int i = 0; i < g.node_size(); ++i) {
    if (removed[static_cast<size_t>(i)]) continue;  // a chain's, past the node it was found from
    const onnx::NodeProto& n = g.node(i);
    const bool erf = n.op_type() == "Erf" && default_domain(n), div = n.op_type() == "Div" && default_domain(n);
    const bool tanh = n.op_type() == "Tanh" && default_domain(n);
    if (const auto chain = erf    ? chains.gelu(i)
                           : tanh ? chains.gelu_tanh(i)
                           : div  ? chains.layer_norm(i)
                                  : std::nullopt) {
      if (!is_float(chain->x)) continue;
      onnx::NodeProto fused;
      fused.set_name(g.node(chain->last).name());
      fused.set_op_type(div ? kFusedLayerNorm : kFusedGelu);
      fused.set_domain(kSwitchyardDomain);
      fused.add_input(chain->x);
      for (const std::string& p : chain->params) fused.add_input(p);
      fused.add_output(g.node(chain->last).output(0));
      if (div) {
        auto* eps = fused.add_attribute();
        eps->set_name("epsilon");
        eps->set_type(onnx::AttributeProto::FLOAT);
        eps->set_f(chain->epsilon);
      }
      if (tanh) {
        auto* approximate = fused.add_attribute();
        approximate->set_name("approximate");
        approximate->set_type(onnx::AttributeProto::STRING);
        approximate->set_s("tanh");
      }
      for (int k : chain->inner) {
        removed[static_cast<size_t>(k)] = true;
        gone.insert(g.node(k).output(0));
      }
      *g.mutable_node(chain->last) = std::move(fused);
      ++(div ? counts.layer_norms_fused : counts.gelus_fused);
    } else if (n.op_type() == "BatchNormalization" && default_domain(n)) {
      onnx::NodeProto* conv = conv_before(i);
      if (!conv || !fold_batch_norm(*conv, n, constants, uses, names)) continue;
      types.emplace(conv->input(1), onnx::TensorProto::FLOAT);  // folded weights may be a new initializer
      gone.insert(conv->output(0));
      conv->set_output(0, n.output(0));
      producer[n.output(0)] = producer[n.input(0)];
      removed[static_cast<size_t>(i)] = true;
      ++counts.batch_norms_folded;
    } else if (n.op_type() == "Add" && default_domain(n) && n.input_size() == 2 && n.output_size() == 1) {
      // Conv then Add(conv, z): the fused node takes the Add's place, not
      // the Conv's, since z may be made between them.
      for (int k = 0; k < 2; ++k) {
        const std::string c = n.input(k), z = n.input(1 - k), sum = n.output(0);
        onnx::NodeProto* conv = conv_making(c, false);
        if (!conv || !is_float(z) || !same_shape({c, z, sum})) continue;
        const int at = producer[c];
        onnx::NodeProto fused = *conv;
        fused.set_op_type(kFusedConv);
        fused.set_domain(kSwitchyardDomain);
        while (fused.input_size() < 3) fused.add_input("");
        fused.add_input(z);
        fused.set_output(0, sum);
        *g.mutable_node(i) = std::move(fused);
        removed[static_cast<size_t>(at)] = true;
        gone.insert(c);
        ++counts.residuals_fused;
        break;
      }
    } else if (auto act = activation_of(n, opset, constants)) {
      onnx::NodeProto* conv = conv_before(i, /*residual=*/true);
      if (!conv) continue;
      gone.insert(conv->output(0));
      producer[n.output(0)] = producer[n.input(0)];
      fuse_activation(*conv, n, *act);
      removed[static_cast<size_t>(i)] = true;
      ++counts.activations_fused;
    }
  }
  if (gone.empty()) return;
  // Drop the removed nodes, the vanished values' types, and initializers
  // and Constant nodes nothing reads any more (the weights a fold
  // replaced, a fused ReduceMean's axes).
  erase_if(*g.mutable_node(), [&](const onnx::NodeProto&, int i) { return removed[static_cast<size_t>(i)]; });
  erase_if(*g.mutable_value_info(), [&](const onnx::ValueInfoProto& v, int) { return gone.count(v.name()) != 0; });
  uses.clear();
  count_uses(g, uses);
  for (const auto& in : g.input()) ++uses[in.name()];
  erase_if(*g.mutable_initializer(), [&](const onnx::TensorProto& t, int) { return uses.count(t.name()) == 0; });
  erase_if(*g.mutable_node(), [&](const onnx::NodeProto& n, int) {
    return n.op_type() == "Constant" && default_domain(n) && n.output_size() == 1 && uses.count(n.output(0)) == 0;
  });
}

}  // namespace

FusionCounts OpFusion::run(onnx::ModelProto& model) {
  FusionCounts counts;
  int opset = 0;
  for (const auto& op : model.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx") opset = static_cast<int>(op.version());
  if (!model.has_graph() || opset == 0) return counts;
  fuse_graph(*model.mutable_graph(), opset, counts);
  if (counts.any_switchyard_op()) import_domain(model, kSwitchyardDomain);
  return counts;
}

}  // namespace sy

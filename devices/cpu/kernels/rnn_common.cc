#include "devices/cpu/kernels/rnn_common.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "devices/host_allocator.h"

namespace sy::nn {
namespace {

// Parses activation names; alpha/beta are consumed in order by the
// activations that take them (as ONNX Runtime does).
Status parse_activations(const Node& node, const std::vector<std::string>& names, std::vector<rnn::Activation>* out) {
  const std::vector<float> alphas = node.attr_floats("activation_alpha");
  const std::vector<float> betas = node.attr_floats("activation_beta");
  size_t ai = 0, bi = 0;
  auto next = [](const std::vector<float>& v, size_t& i, double dflt) { return i < v.size() ? v[i++] : dflt; };
  using K = rnn::ActKind;
  for (const std::string& raw : names) {
    std::string n = raw;
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
    rnn::Activation a;
    if (n == "relu") a.kind = K::kRelu;
    else if (n == "tanh") a.kind = K::kTanh;
    else if (n == "sigmoid") a.kind = K::kSigmoid;
    else if (n == "affine") { a.kind = K::kAffine; a.alpha = next(alphas, ai, 1.0); a.beta = next(betas, bi, 0.0); }
    else if (n == "leakyrelu") { a.kind = K::kLeakyRelu; a.alpha = next(alphas, ai, 0.01); }
    else if (n == "thresholdedrelu") { a.kind = K::kThresholdedRelu; a.alpha = next(alphas, ai, 1.0); }
    else if (n == "scaledtanh") { a.kind = K::kScaledTanh; a.alpha = next(alphas, ai, 1.0); a.beta = next(betas, bi, 1.0); }
    else if (n == "hardsigmoid") { a.kind = K::kHardSigmoid; a.alpha = next(alphas, ai, 0.2); a.beta = next(betas, bi, 0.5); }
    else if (n == "elu") { a.kind = K::kElu; a.alpha = next(alphas, ai, 1.0); }
    else if (n == "softsign") a.kind = K::kSoftsign;
    else if (n == "softplus") a.kind = K::kSoftplus;
    else return InvalidArgument(node.describe(), ": unknown activation '", raw, "'");
    out->push_back(a);
  }
  return OkStatus();
}

int gates_of(RnnCell cell) { return cell == RnnCell::kRnn ? 1 : cell == RnnCell::kGru ? 3 : 4; }

}  // namespace

const char* rnn_op_name(RnnCell cell) {
  return cell == RnnCell::kRnn ? "RNN" : cell == RnnCell::kGru ? "GRU" : "LSTM";
}

StatusOr<RnnAttrs> rnn_attrs(const Node& node, RnnCell cell) {
  RnnAttrs a;
  a.cell = cell;
  a.hidden = node.attr_int("hidden_size", 0);
  if (a.hidden < 0) return InvalidArgument(node.describe(), ": hidden_size must be positive");
  const std::string dir = node.attr_string("direction", "forward");
  if (dir == "forward") a.dirs = 1;
  else if (dir == "reverse") { a.dirs = 1; a.reverse_only = true; }
  else if (dir == "bidirectional") a.dirs = 2;
  else return InvalidArgument(node.describe(), ": unknown direction '", dir, "'");
  const int64_t layout = node.attr_int("layout", 0);
  if (layout != 0 && layout != 1) return InvalidArgument(node.describe(), ": layout must be 0 or 1");
  a.batch_first = layout == 1;
  a.clip = node.attr_float("clip", 0.f);
  if (node.has_attr("clip") && !(a.clip > 0)) return InvalidArgument(node.describe(), ": clip must be positive");
  a.linear_before_reset = node.attr_int("linear_before_reset", 0) != 0;
  a.input_forget = node.attr_int("input_forget", 0) != 0;
  a.nact = cell == RnnCell::kRnn ? 1 : cell == RnnCell::kGru ? 2 : 3;
  std::vector<std::string> names = node.attr_strings("activations");
  if (names.empty()) {
    for (int d = 0; d < a.dirs; ++d) {
      if (cell == RnnCell::kRnn) names.push_back("Tanh");
      else if (cell == RnnCell::kGru) names.insert(names.end(), {"Sigmoid", "Tanh"});
      else names.insert(names.end(), {"Sigmoid", "Tanh", "Tanh"});
    }
  } else if (static_cast<int>(names.size()) == a.nact && a.dirs == 2) {
    std::vector<std::string> twice = names;
    names.insert(names.end(), twice.begin(), twice.end());
  }
  if (static_cast<int>(names.size()) != a.nact * a.dirs)
    return InvalidArgument(node.describe(), ": expected ", a.nact * a.dirs, " activations, got ", names.size());
  RETURN_IF_ERROR(parse_activations(node, names, &a.acts));
  return a;
}

StatusOr<RnnPlan> plan_rnn(const KernelContext& ctx, const RnnAttrs& a) {
  const char* op = rnn_op_name(a.cell);
  if (!ctx.has_input(0) || !ctx.has_input(1) || !ctx.has_input(2))
    return InvalidArgument(op, ": X, W and R are required");
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  const Tensor& r = ctx.input(2);
  if (x.rank() != 3 || w.rank() != 3 || r.rank() != 3)
    return InvalidArgument(op, ": X, W, R must be 3-D, got ", x.describe(), ", ", w.describe(), ", ", r.describe());
  if (w.dtype() != x.dtype() || r.dtype() != x.dtype()) return InvalidArgument(op, ": input types differ");
  if (x.dtype() != DataType::kFloat && x.dtype() != DataType::kDouble)
    return Unimplemented(op, ": unsupported type ", dtype_name(x.dtype()));
  RnnPlan p;
  const int64_t G = gates_of(a.cell), D = a.dirs;
  p.G = G;
  p.S = a.batch_first ? x.dim(1) : x.dim(0);
  p.B = a.batch_first ? x.dim(0) : x.dim(1);
  p.I = x.dim(2);
  p.H = a.hidden > 0 ? a.hidden : w.dim(1) / G;
  // W is [D, G * H, I]: a hidden_size W cannot hold is an error here,
  // before G * H and the state sizes are computed (they could overflow).
  if (p.H > w.dim(1) / G)
    return InvalidArgument(op, ": hidden_size ", p.H, " does not match W ", w.describe(), " (", G, " gates)");
  const int64_t H = p.H;
  if (w.dims() != Dims{D, G * H, p.I})
    return InvalidArgument(op, ": W ", w.describe(), " does not match [", D, ",", G * H, ",", p.I, "]");
  if (r.dims() != Dims{D, G * H, H})
    return InvalidArgument(op, ": R ", r.describe(), " does not match [", D, ",", G * H, ",", H, "]");
  auto check = [&](size_t i, const Dims& want, DataType t, const char* name) -> Status {
    if (!ctx.has_input(i)) return OkStatus();
    const Tensor& v = ctx.input(i);
    if (v.dims() != want || v.dtype() != t)
      return InvalidArgument(op, ": ", name, " ", v.describe(), " does not match ", dtype_name(t), want.to_string());
    return OkStatus();
  };
  p.state = a.batch_first ? Dims{p.B, D, H} : Dims{D, p.B, H};
  p.y = a.batch_first ? Dims{p.B, p.S, D, H} : Dims{p.S, D, p.B, H};
  RETURN_IF_ERROR(check(3, Dims{D, 2 * G * H}, x.dtype(), "B"));
  RETURN_IF_ERROR(check(4, Dims{p.B}, DataType::kInt32, "sequence_lens"));
  RETURN_IF_ERROR(check(5, p.state, x.dtype(), "initial_h"));
  if (a.cell == RnnCell::kLstm) {
    RETURN_IF_ERROR(check(6, p.state, x.dtype(), "initial_c"));
    RETURN_IF_ERROR(check(7, Dims{D, 3 * H}, x.dtype(), "P"));
  }
  // A length per batch row. An empty X may claim any number of rows
  // without holding them, so then they are sized up first.
  if (x.numel() == 0) {
    RETURN_IF_ERROR(check_host_table_bytes(
        static_cast<double>(p.B) * sizeof(int64_t),
        std::string(op) + ": the lengths of an empty X's " + std::to_string(p.B) + " batch rows"));
  }
  p.lens.assign(static_cast<size_t>(p.B), p.S);
  if (ctx.has_input(4)) {
    const int32_t* lens = ctx.input(4).data<int32_t>();
    for (int64_t b = 0; b < p.B; ++b) {
      p.lens[b] = lens[b];
      if (p.lens[b] < 0 || p.lens[b] > p.S)
        return InvalidArgument(op, ": sequence_lens[", b, "] = ", p.lens[b], " is outside [0, ", p.S, "]");
    }
  }
  p.max_len = p.lens.empty() ? 0 : *std::max_element(p.lens.begin(), p.lens.end());
  p.layout = rnn::Layout{p.S, p.B, D, H, a.batch_first};
  return p;
}

StatusOr<RnnOutputs> allocate_rnn_outputs(KernelContext& ctx, const RnnAttrs& a, const RnnPlan& p) {
  // Omitted outputs share one scratch tensor in the context, so only
  // wanted outputs are allocated; the others are skipped.
  const DataType t = ctx.input(0).dtype();
  RnnOutputs o;
  if (ctx.output_wanted(0)) {
    ASSIGN_OR_RETURN(o.y, ctx.allocate_output(0, t, p.y));
  }
  if (ctx.output_wanted(1)) {
    ASSIGN_OR_RETURN(o.yh, ctx.allocate_output(1, t, p.state));
  }
  if (a.cell == RnnCell::kLstm && ctx.output_wanted(2)) {
    ASSIGN_OR_RETURN(o.yc, ctx.allocate_output(2, t, p.state));
  }
  return o;
}

}  // namespace sy::nn

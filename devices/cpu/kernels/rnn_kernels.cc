// CPU recurrent kernels: RNN, GRU and LSTM (all ONNX attributes: custom
// activations, clip, direction, sequence_lens, layout, GRU's
// linear_before_reset, LSTM's peepholes and input_forget). The input
// projection for all time steps is one GEMM; each step does one (GRU: two)
// GEMMs of the hidden state against R, with oneDNN sgemm for float, then
// the gates of each batch row as whole rows (activate).
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "devices/cpu/kernels/nn_common.h"
#include "devices/cpu/kernels/vector_math.h"

namespace sy::nn {
namespace {

enum class Cell { kRnn, kGru, kLstm };

struct Activation {
  enum class Kind { kRelu, kTanh, kSigmoid, kAffine, kLeakyRelu, kThresholdedRelu, kScaledTanh, kHardSigmoid, kElu,
                    kSoftsign, kSoftplus };
  Kind kind = Kind::kTanh;
  double alpha = 0, beta = 0;

  double operator()(double x) const {
    switch (kind) {
      case Kind::kRelu: return x > 0 ? x : 0;
      case Kind::kTanh: return std::tanh(x);
      case Kind::kSigmoid: return 1.0 / (1.0 + std::exp(-x));
      case Kind::kAffine: return alpha * x + beta;
      case Kind::kLeakyRelu: return x >= 0 ? x : alpha * x;
      case Kind::kThresholdedRelu: return x > alpha ? x : 0;
      case Kind::kScaledTanh: return alpha * std::tanh(beta * x);
      case Kind::kHardSigmoid: return std::clamp(alpha * x + beta, 0.0, 1.0);
      case Kind::kElu: return x >= 0 ? x : alpha * (std::exp(x) - 1);
      case Kind::kSoftsign: return x / (1 + std::abs(x));
      case Kind::kSoftplus: return std::log1p(std::exp(x));
    }
    return x;
  }
};

// Parses activation names; alpha/beta are consumed in order by the
// activations that take them (as ONNX Runtime does).
Status parse_activations(const Node& node, const std::vector<std::string>& names, std::vector<Activation>* out) {
  const std::vector<float> alphas = node.attr_floats("activation_alpha");
  const std::vector<float> betas = node.attr_floats("activation_beta");
  size_t ai = 0, bi = 0;
  auto next = [](const std::vector<float>& v, size_t& i, double dflt) { return i < v.size() ? v[i++] : dflt; };
  for (const std::string& raw : names) {
    std::string n = raw;
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
    Activation a;
    using K = Activation::Kind;
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

// v[0, n) = act(clamp(v, -clip, clip)) in place (clip 0: none). The gates
// of a step go through here a whole row at a time: float Sigmoid and Tanh
// (the defaults) in vector_math's kernels, where one double std::exp or
// std::tanh per gate and element made an LSTM step 8x ONNX Runtime's time.
template <typename T>
void activate(const Activation& a, T clip, T* v, int64_t n) {
  if (clip > 0)
    for (int64_t j = 0; j < n; ++j) v[j] = std::clamp(v[j], -clip, clip);
  if constexpr (std::is_same_v<T, float>) {
    if (a.kind == Activation::Kind::kSigmoid && elementwise::vector_math(elementwise::VecFn::kSigmoid, v, v, n)) return;
    if (a.kind == Activation::Kind::kTanh && elementwise::vector_math(elementwise::VecFn::kTanh, v, v, n)) return;
  }
  for (int64_t j = 0; j < n; ++j) v[j] = static_cast<T>(a(static_cast<double>(v[j])));
}

// C[m,n] = A[m,k] * B[n,k]^T, row-major and contiguous.
template <typename T>
void gemm_nt(const T* A, int64_t m, int64_t k, const T* B, int64_t n, T* C) {
  if (m == 0 || n == 0) return;
  if constexpr (std::is_same_v<T, float>) {
    // oneDNN fails only on bad arguments or memory; the loop is the fallback.
    if (k > 0 && sgemm('N', 'T', m, n, k, 1.f, A, k, B, k, 0.f, C, n).ok()) return;
  }
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      T s{};
      for (int64_t p = 0; p < k; ++p) s += A[i * k + p] * B[j * k + p];
      C[i * n + j] = s;
    }
}

class RecurrentKernel : public Kernel {
 public:
  explicit RecurrentKernel(Cell cell) : cell_(cell) {}

  Status init(const Node& node) override {
    hidden_ = node.attr_int("hidden_size", 0);
    if (hidden_ < 0) return InvalidArgument(node.describe(), ": hidden_size must be positive");
    const std::string dir = node.attr_string("direction", "forward");
    if (dir == "forward") dirs_ = 1;
    else if (dir == "reverse") { dirs_ = 1; reverse_only_ = true; }
    else if (dir == "bidirectional") dirs_ = 2;
    else return InvalidArgument(node.describe(), ": unknown direction '", dir, "'");
    layout_ = node.attr_int("layout", 0);
    if (layout_ != 0 && layout_ != 1) return InvalidArgument(node.describe(), ": layout must be 0 or 1");
    clip_ = node.attr_float("clip", 0.f);
    if (node.has_attr("clip") && clip_ <= 0) return InvalidArgument(node.describe(), ": clip must be positive");
    lbr_ = node.attr_int("linear_before_reset", 0) != 0;
    input_forget_ = node.attr_int("input_forget", 0) != 0;
    nact_ = cell_ == Cell::kRnn ? 1 : cell_ == Cell::kGru ? 2 : 3;
    std::vector<std::string> names = node.attr_strings("activations");
    if (names.empty()) {
      for (int d = 0; d < dirs_; ++d) {
        if (cell_ == Cell::kRnn) names.push_back("Tanh");
        else if (cell_ == Cell::kGru) names.insert(names.end(), {"Sigmoid", "Tanh"});
        else names.insert(names.end(), {"Sigmoid", "Tanh", "Tanh"});
      }
    } else if (static_cast<int>(names.size()) == nact_ && dirs_ == 2) {
      std::vector<std::string> twice = names;
      names.insert(names.end(), twice.begin(), twice.end());
    }
    if (static_cast<int>(names.size()) != nact_ * dirs_)
      return InvalidArgument(node.describe(), ": expected ", nact_ * dirs_, " activations, got ", names.size());
    return parse_activations(node, names, &acts_);
  }

  Status compute(KernelContext& ctx) const override {
    const char* op = cell_ == Cell::kRnn ? "RNN" : cell_ == Cell::kGru ? "GRU" : "LSTM";
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const Tensor& r = ctx.input(2);
    if (!x.defined() || !w.defined() || !r.defined()) return InvalidArgument(op, ": X, W and R are required");
    if (x.rank() != 3 || w.rank() != 3 || r.rank() != 3)
      return InvalidArgument(op, ": X, W, R must be 3-D, got ", x.describe(), ", ", w.describe(), ", ", r.describe());
    if (w.dtype() != x.dtype() || r.dtype() != x.dtype()) return InvalidArgument(op, ": input types differ");
    const int64_t G = cell_ == Cell::kRnn ? 1 : cell_ == Cell::kGru ? 3 : 4;
    Shape s;
    s.S = layout_ ? x.dim(1) : x.dim(0);
    s.B = layout_ ? x.dim(0) : x.dim(1);
    s.I = x.dim(2);
    s.H = hidden_ > 0 ? hidden_ : w.dim(1) / G;
    s.G = G;
    // W is [D, G * H, I]: a hidden_size W cannot hold is an error here,
    // before G * H and the state sizes are computed (they could overflow).
    if (s.H > w.dim(1) / G)
      return InvalidArgument(op, ": hidden_size ", s.H, " does not match W ", w.describe(), " (", G, " gates)");
    const int64_t D = dirs_, H = s.H;
    if (w.dims() != Dims{D, G * H, s.I})
      return InvalidArgument(op, ": W ", w.describe(), " does not match [", D, ",", G * H, ",", s.I, "]");
    if (r.dims() != Dims{D, G * H, H})
      return InvalidArgument(op, ": R ", r.describe(), " does not match [", D, ",", G * H, ",", H, "]");
    auto check = [&](size_t i, const Dims& want, DataType t, const char* name) -> Status {
      if (!ctx.has_input(i)) return OkStatus();
      const Tensor& v = ctx.input(i);
      if (v.dims() != want || v.dtype() != t)
        return InvalidArgument(op, ": ", name, " ", v.describe(), " does not match ", dtype_name(t), want.to_string());
      return OkStatus();
    };
    const Dims state = layout_ ? Dims{s.B, D, H} : Dims{D, s.B, H};
    RETURN_IF_ERROR(check(3, Dims{D, 2 * G * H}, x.dtype(), "B"));
    RETURN_IF_ERROR(check(4, Dims{s.B}, DataType::kInt32, "sequence_lens"));
    RETURN_IF_ERROR(check(5, state, x.dtype(), "initial_h"));
    if (cell_ == Cell::kLstm) {
      RETURN_IF_ERROR(check(6, state, x.dtype(), "initial_c"));
      RETURN_IF_ERROR(check(7, Dims{D, 3 * H}, x.dtype(), "P"));
    }
    std::vector<int64_t> lens(static_cast<size_t>(s.B), s.S);
    if (ctx.has_input(4)) {
      for (int64_t b = 0; b < s.B; ++b) {
        lens[b] = ctx.input(4).data<int32_t>()[b];
        if (lens[b] < 0 || lens[b] > s.S)
          return InvalidArgument(op, ": sequence_lens[", b, "] = ", lens[b], " is outside [0, ", s.S, "]");
      }
    }
    const Dims ydims = layout_ ? Dims{s.B, s.S, D, H} : Dims{s.S, D, s.B, H};
    // Omitted outputs share one scratch tensor in the context, so only
    // wanted outputs are allocated; the others are skipped.
    Outputs o;
    if (ctx.output_wanted(0)) {
      ASSIGN_OR_RETURN(o.y, ctx.allocate_output(0, x.dtype(), ydims));
    }
    if (ctx.output_wanted(1)) {
      ASSIGN_OR_RETURN(o.yh, ctx.allocate_output(1, x.dtype(), state));
    }
    if (cell_ == Cell::kLstm && ctx.output_wanted(2)) {
      ASSIGN_OR_RETURN(o.yc, ctx.allocate_output(2, x.dtype(), state));
    }
    if (x.dtype() == DataType::kFloat) return run<float>(ctx, s, lens, o);
    if (x.dtype() == DataType::kDouble) return run<double>(ctx, s, lens, o);
    return Unimplemented(op, ": unsupported type ", dtype_name(x.dtype()));
  }

 private:
  struct Shape {
    int64_t S = 0, B = 0, I = 0, H = 0, G = 0;
  };
  struct Outputs {
    Tensor *y = nullptr, *yh = nullptr, *yc = nullptr;
  };

  template <typename T>
  Status run(KernelContext& ctx, const Shape& s, const std::vector<int64_t>& lens, const Outputs& o) const {
    const int64_t S = s.S, B = s.B, I = s.I, H = s.H, G = s.G, D = dirs_, GH = G * H;
    const T* X = ctx.input(0).data<T>();
    const T* W = ctx.input(1).data<T>();
    const T* R = ctx.input(2).data<T>();
    const T* Bias = ctx.has_input(3) ? ctx.input(3).data<T>() : nullptr;
    const T* H0 = ctx.has_input(5) ? ctx.input(5).data<T>() : nullptr;
    const T* C0 = cell_ == Cell::kLstm && ctx.has_input(6) ? ctx.input(6).data<T>() : nullptr;
    const T* P = cell_ == Cell::kLstm && ctx.has_input(7) ? ctx.input(7).data<T>() : nullptr;
    T* Y = o.y ? o.y->data<T>() : nullptr;
    if (Y) std::memset(Y, 0, o.y->nbytes());
    auto state_at = [&](int64_t d, int64_t b) { return (layout_ ? b * D + d : d * B + b) * H; };
    auto x_row = [&](int64_t t, int64_t b) { return layout_ ? b * S + t : t * B + b; };
    auto y_at = [&](int64_t t, int64_t d, int64_t b) { return (layout_ ? (b * S + t) * D + d : (t * D + d) * B + b) * H; };
    std::vector<T> xw(static_cast<size_t>(S * B * GH)), hr(static_cast<size_t>(B * GH)), hbuf(static_cast<size_t>(B * H)),
        cbuf(static_cast<size_t>(B * H)), zr(static_cast<size_t>(B * 2 * H)), rh(static_cast<size_t>(B * H)), hh(static_cast<size_t>(B * H));
    std::vector<T> zeros(static_cast<size_t>(2 * GH), T{});
    std::vector<T> gates(static_cast<size_t>(5 * H));  // one batch row's gates, and LSTM's act(c)
    const T clip = static_cast<T>(clip_);
    for (int64_t d = 0; d < D; ++d) {
      const bool rev = reverse_only_ || d == 1;
      const Activation* act = &acts_[static_cast<size_t>(d * nact_)];
      const T* Wd = W + d * GH * I;
      const T* Rd = R + d * GH * H;
      const T* Wb = Bias ? Bias + d * 2 * GH : zeros.data();
      const T* Rb = Wb + GH;
      const T* Pd = P ? P + d * 3 * H : nullptr;
      gemm_nt<T>(X, S * B, I, Wd, GH, xw.data());
      for (int64_t b = 0; b < B; ++b)
        for (int64_t j = 0; j < H; ++j) {
          hbuf[b * H + j] = H0 ? H0[state_at(d, b) + j] : T{};
          cbuf[b * H + j] = C0 ? C0[state_at(d, b) + j] : T{};
        }
      // Gate pre-activations: x W^T + h R^T + Wb + Rb for gates [g0, g1).
      auto preact = [&](const T* xr, const T* hp, int64_t g0, int64_t g1, T* out) {
        for (int64_t k = g0 * H; k < g1 * H; ++k) out[k - g0 * H] = xr[k] + hp[k] + Wb[k] + Rb[k];
      };
      for (int64_t step = 0; step < S; ++step) {
        // Hidden-state products; GRU without linear_before_reset needs r first.
        const bool gru_split = cell_ == Cell::kGru && !lbr_;
        if (gru_split) {
          gemm_nt<T>(hbuf.data(), B, H, Rd, 2 * H, zr.data());
          for (int64_t b = 0; b < B; ++b)
            for (int64_t j = 0; j < 2 * H; ++j) hr[b * GH + j] = zr[b * 2 * H + j];
          // r gate per batch, then (r * Hprev) * Rh^T.
          for (int64_t b = 0; b < B; ++b) {
            const int64_t t = rev ? lens[b] - 1 - step : step;
            if (step >= lens[b]) continue;
            T* r = gates.data();
            preact(xw.data() + x_row(t, b) * GH, hr.data() + b * GH, 1, 2, r);
            activate(act[0], clip, r, H);
            for (int64_t j = 0; j < H; ++j) rh[b * H + j] = r[j] * hbuf[b * H + j];
          }
          gemm_nt<T>(rh.data(), B, H, Rd + 2 * H * H, H, hh.data());
          for (int64_t b = 0; b < B; ++b)
            for (int64_t j = 0; j < H; ++j) hr[b * GH + 2 * H + j] = hh[b * H + j];
        } else {
          gemm_nt<T>(hbuf.data(), B, H, Rd, GH, hr.data());
        }
        for (int64_t b = 0; b < B; ++b) {
          if (step >= lens[b]) continue;
          const int64_t t = rev ? lens[b] - 1 - step : step;
          const T* xr = xw.data() + x_row(t, b) * GH;
          const T* hp = hr.data() + b * GH;
          T* h = hbuf.data() + b * H;
          T* c = cbuf.data() + b * H;
          T* g = gates.data();
          if (cell_ == Cell::kRnn) {
            preact(xr, hp, 0, 1, h);
            activate(act[0], clip, h, H);
          } else if (cell_ == Cell::kGru) {
            T *z = g, *r = g + H, *hc = g + 2 * H;  // ONNX's gate order: z, r, h
            if (lbr_) {
              preact(xr, hp, 0, 2, g);
              activate(act[0], clip, g, 2 * H);
              for (int64_t j = 0; j < H; ++j)
                hc[j] = xr[2 * H + j] + Wb[2 * H + j] + r[j] * (hp[2 * H + j] + Rb[2 * H + j]);
            } else {
              preact(xr, hp, 0, 1, z);
              activate(act[0], clip, z, H);
              preact(xr, hp, 2, 3, hc);
            }
            activate(act[1], clip, hc, H);
            for (int64_t j = 0; j < H; ++j) h[j] = (1 - z[j]) * hc[j] + z[j] * h[j];
          } else {
            T *ig = g, *og = g + H, *fg = g + 2 * H, *cc = g + 3 * H, *tc = g + 4 * H;  // ONNX's order: i, o, f, c
            preact(xr, hp, 0, 4, g);
            if (Pd)
              for (int64_t j = 0; j < H; ++j) {
                ig[j] += Pd[j] * c[j];
                fg[j] += Pd[2 * H + j] * c[j];
              }
            activate(act[0], clip, ig, H);
            if (input_forget_) {
              for (int64_t j = 0; j < H; ++j) fg[j] = 1 - ig[j];
            } else {
              activate(act[0], clip, fg, H);
            }
            activate(act[1], clip, cc, H);
            for (int64_t j = 0; j < H; ++j) c[j] = fg[j] * c[j] + ig[j] * cc[j];
            if (Pd)
              for (int64_t j = 0; j < H; ++j) og[j] += Pd[H + j] * c[j];
            activate(act[0], clip, og, H);
            std::copy(c, c + H, tc);
            activate(act[2], T{0}, tc, H);  // not clipped: the cell state
            for (int64_t j = 0; j < H; ++j) h[j] = og[j] * tc[j];
          }
          if (Y) std::copy(h, h + H, Y + y_at(t, d, b));
        }
      }
      for (int64_t b = 0; b < B; ++b)
        for (int64_t j = 0; j < H; ++j) {
          if (o.yh) o.yh->data<T>()[state_at(d, b) + j] = hbuf[b * H + j];
          if (o.yc) o.yc->data<T>()[state_at(d, b) + j] = cbuf[b * H + j];
        }
    }
    return OkStatus();
  }

  Cell cell_;
  int64_t hidden_ = 0;
  int dirs_ = 1;
  bool reverse_only_ = false;
  int64_t layout_ = 0;
  float clip_ = 0;
  bool lbr_ = false, input_forget_ = false;
  int nact_ = 1;
  std::vector<Activation> acts_;
};

struct RnnKernel final : RecurrentKernel {
  RnnKernel() : RecurrentKernel(Cell::kRnn) {}
};
struct GruKernel final : RecurrentKernel {
  GruKernel() : RecurrentKernel(Cell::kGru) {}
};
struct LstmKernel final : RecurrentKernel {
  LstmKernel() : RecurrentKernel(Cell::kLstm) {}
};

}  // namespace

void register_rnn_kernels(KernelRegistry& r) {
  const std::vector<DataType> ft = {DataType::kFloat, DataType::kDouble};
  add_kernel(r, "RNN", 1, make_kernel<RnnKernel>, ft);
  add_kernel(r, "GRU", 1, make_kernel<GruKernel>, ft);
  add_kernel(r, "LSTM", 1, make_kernel<LstmKernel>, ft);
}

}  // namespace sy::nn

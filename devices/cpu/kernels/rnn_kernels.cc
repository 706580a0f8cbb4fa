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
#include "devices/cpu/kernels/rnn_common.h"
#include "devices/cpu/kernels/vector_math.h"

namespace sy::nn {
namespace {

// v[0, n) = act(clamp(v, -clip, clip)) in place (clip 0: none). The gates
// of a step go through here a whole row at a time: float Sigmoid and Tanh
// (the defaults) in vector_math's kernels, where one double std::exp or
// std::tanh per gate and element made an LSTM step 8x ONNX Runtime's time.
template <typename T>
void activate(const rnn::Activation& a, T clip, T* v, int64_t n) {
  if (clip > 0)
    for (int64_t j = 0; j < n; ++j) v[j] = rnn::clip_to(v[j], clip);
  if constexpr (std::is_same_v<T, float>) {
    if (a.kind == rnn::ActKind::kSigmoid && elementwise::vector_math(elementwise::VecFn::kSigmoid, v, v, n)) return;
    if (a.kind == rnn::ActKind::kTanh && elementwise::vector_math(elementwise::VecFn::kTanh, v, v, n)) return;
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
  explicit RecurrentKernel(RnnCell cell) : cell_(cell) {}

  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(a_, rnn_attrs(node, cell_));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const RnnPlan p, plan_rnn(ctx, a_));
    ASSIGN_OR_RETURN(const RnnOutputs o, allocate_rnn_outputs(ctx, a_, p));
    if (ctx.input(0).dtype() == DataType::kFloat) return run<float>(ctx, p, o);
    return run<double>(ctx, p, o);
  }

 private:
  template <typename T>
  Status run(KernelContext& ctx, const RnnPlan& p, const RnnOutputs& o) const {
    const int64_t S = p.S, B = p.B, I = p.I, H = p.H, G = p.G, D = a_.dirs, GH = G * H;
    const std::vector<int64_t>& lens = p.lens;
    const rnn::Layout& lay = p.layout;
    const T* X = ctx.input(0).data<T>();
    const T* W = ctx.input(1).data<T>();
    const T* R = ctx.input(2).data<T>();
    const T* Bias = ctx.has_input(3) ? ctx.input(3).data<T>() : nullptr;
    const T* H0 = ctx.has_input(5) ? ctx.input(5).data<T>() : nullptr;
    const T* C0 = cell_ == RnnCell::kLstm && ctx.has_input(6) ? ctx.input(6).data<T>() : nullptr;
    const T* P = cell_ == RnnCell::kLstm && ctx.has_input(7) ? ctx.input(7).data<T>() : nullptr;
    T* Y = o.y ? o.y->data<T>() : nullptr;
    if (Y) std::memset(Y, 0, o.y->nbytes());
    std::vector<T> xw(static_cast<size_t>(S * B * GH)), hr(static_cast<size_t>(B * GH)), hbuf(static_cast<size_t>(B * H)),
        cbuf(static_cast<size_t>(B * H)), zr(static_cast<size_t>(B * 2 * H)), rh(static_cast<size_t>(B * H)), hh(static_cast<size_t>(B * H));
    std::vector<T> zeros(static_cast<size_t>(2 * GH), T{});
    std::vector<T> gates(static_cast<size_t>(5 * H));  // one batch row's gates, and LSTM's act(c)
    const T clip = static_cast<T>(a_.clip);
    for (int64_t d = 0; d < D; ++d) {
      const bool rev = a_.reverse_only || d == 1;
      const rnn::Activation* act = &a_.acts[static_cast<size_t>(d * a_.nact)];
      const T* Wd = W + d * GH * I;
      const T* Rd = R + d * GH * H;
      const T* Wb = Bias ? Bias + d * 2 * GH : zeros.data();
      const T* Rb = Wb + GH;
      const T* Pd = P ? P + d * 3 * H : nullptr;
      gemm_nt<T>(X, S * B, I, Wd, GH, xw.data());
      for (int64_t b = 0; b < B; ++b)
        for (int64_t j = 0; j < H; ++j) {
          hbuf[b * H + j] = H0 ? H0[lay.state_at(d, b) + j] : T{};
          cbuf[b * H + j] = C0 ? C0[lay.state_at(d, b) + j] : T{};
        }
      // Gate pre-activations: x W^T + h R^T + Wb + Rb for gates [g0, g1).
      auto preact = [&](const T* xr, const T* hp, int64_t g0, int64_t g1, T* out) {
        for (int64_t k = g0 * H; k < g1 * H; ++k) out[k - g0 * H] = xr[k] + hp[k] + Wb[k] + Rb[k];
      };
      for (int64_t step = 0; step < p.max_len; ++step) {  // later steps would skip every row
        // Hidden-state products; GRU without linear_before_reset needs r first.
        const bool gru_split = cell_ == RnnCell::kGru && !a_.linear_before_reset;
        if (gru_split) {
          gemm_nt<T>(hbuf.data(), B, H, Rd, 2 * H, zr.data());
          for (int64_t b = 0; b < B; ++b)
            for (int64_t j = 0; j < 2 * H; ++j) hr[b * GH + j] = zr[b * 2 * H + j];
          // r gate per batch, then (r * Hprev) * Rh^T.
          for (int64_t b = 0; b < B; ++b) {
            const int64_t t = rev ? lens[b] - 1 - step : step;
            if (step >= lens[b]) continue;
            T* r = gates.data();
            preact(xw.data() + lay.x_row(t, b) * GH, hr.data() + b * GH, 1, 2, r);
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
          const T* xr = xw.data() + lay.x_row(t, b) * GH;
          const T* hp = hr.data() + b * GH;
          T* h = hbuf.data() + b * H;
          T* c = cbuf.data() + b * H;
          T* g = gates.data();
          if (cell_ == RnnCell::kRnn) {
            preact(xr, hp, 0, 1, h);
            activate(act[0], clip, h, H);
          } else if (cell_ == RnnCell::kGru) {
            T *z = g, *r = g + H, *hc = g + 2 * H;  // ONNX's gate order: z, r, h
            if (a_.linear_before_reset) {
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
            if (a_.input_forget) {
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
          if (Y) std::copy(h, h + H, Y + lay.y_at(t, d, b));
        }
      }
      for (int64_t b = 0; b < B; ++b)
        for (int64_t j = 0; j < H; ++j) {
          if (o.yh) o.yh->data<T>()[lay.state_at(d, b) + j] = hbuf[b * H + j];
          if (o.yc) o.yc->data<T>()[lay.state_at(d, b) + j] = cbuf[b * H + j];
        }
    }
    return OkStatus();
  }

  RnnCell cell_;
  RnnAttrs a_;
};

struct RnnKernel final : RecurrentKernel {
  RnnKernel() : RecurrentKernel(RnnCell::kRnn) {}
};
struct GruKernel final : RecurrentKernel {
  GruKernel() : RecurrentKernel(RnnCell::kGru) {}
};
struct LstmKernel final : RecurrentKernel {
  LstmKernel() : RecurrentKernel(RnnCell::kLstm) {}
};

}  // namespace

void register_rnn_kernels(KernelRegistry& r) {
  const std::vector<DataType> ft = {DataType::kFloat, DataType::kDouble};
  add_kernel(r, "RNN", 1, make_kernel<RnnKernel>, ft);
  add_kernel(r, "GRU", 1, make_kernel<GruKernel>, ft);
  add_kernel(r, "LSTM", 1, make_kernel<LstmKernel>, ft);
}

}  // namespace sy::nn

// CPU recurrent kernels: RNN, GRU and LSTM (all ONNX attributes: custom
// activations, clip, direction, sequence_lens, layout, GRU's
// linear_before_reset, LSTM's peepholes and input_forget). The input
// projection for all time steps is one GEMM; each step does one (GRU: two)
// GEMMs of the hidden state against R (float: R packed once per call,
// PackedGemmNT; else oneDNN sgemm or a loop), then the gates of each batch
// row as whole rows (activate). Batch rows go in shares over the cores,
// each share running the whole sequence.
#include <oneapi/dnnl/dnnl.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "devices/cpu/kernels/nn_common.h"
#include "devices/cpu/kernels/packed_gemm.h"
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
    std::vector<T> xw(static_cast<size_t>(S * B * GH));
    std::vector<T> zeros(static_cast<size_t>(2 * GH), T{});
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
      // Gate pre-activations: x W^T + h R^T + Wb + Rb for gates [g0, g1).
      auto preact = [&](const T* xr, const T* hp, int64_t g0, int64_t g1, T* out) {
        for (int64_t k = g0 * H; k < g1 * H; ++k) out[k - g0 * H] = xr[k] + hp[k] + Wb[k] + Rb[k];
      };
      // The products with R, every step: for float, R packed once per
      // direction (PackedGemmNT), where each sgemm call packed it again.
      // GRU without linear_before_reset multiplies by two parts of R.
      // Batch rows never meet, so where R fits in a core's cache each core
      // runs the whole sequence for a share of the rows, with no wait
      // between steps: splitting each step's product over the cores spent
      // a fifth of the time in those waits. A larger R is read from
      // memory every step, once a share: its panels are split instead, a
      // step at a time ([16, 4, 256] to 512: 0.94 ms by sgemm, 1.29 by
      // row shares, 0.92 by panels).
      const int64_t cores = tbb::this_task_arena::max_concurrency();
      const bool split_steps = GH * H * int64_t{sizeof(T)} > (int64_t{512} << 10);
      const int64_t chunks = !split_steps && B * p.max_len * GH * H >= (int64_t{1} << 20) ? std::min(B, cores) : 1;
      PackedGemmNT packed[2];
      if constexpr (std::is_same_v<T, float>) {
        if (cell_ == RnnCell::kGru && !a_.linear_before_reset) {
          packed[0].pack(Rd, 2 * H, H);
          packed[1].pack(Rd + 2 * H * H, H, H);
        } else {
          packed[0].pack(Rd, GH, H);
        }
      }
      auto recurrent = [&](const T* A, int64_t m, int64_t k, const T* Bm, int64_t n, T* C, int part) {
        if constexpr (std::is_same_v<T, float>) {
          if (packed[part].ready()) return packed[part].multiply(A, m, C, split_steps);
        }
        gemm_nt<T>(A, m, k, Bm, n, C);
      };
      // Rows [b0, b0 + nb), every step.
      auto run_rows = [&](int64_t b0, int64_t nb) {
        std::vector<T> hr(static_cast<size_t>(nb * GH)), hbuf(static_cast<size_t>(nb * H)),
            cbuf(static_cast<size_t>(nb * H)), zr(static_cast<size_t>(nb * 2 * H)), rh(static_cast<size_t>(nb * H)),
            hh(static_cast<size_t>(nb * H));
        std::vector<T> gates(static_cast<size_t>(5 * H));  // one batch row's gates, and LSTM's act(c)
        int64_t max_len = 0;
        for (int64_t i = 0, b = b0; i < nb; ++i, ++b) {
          max_len = std::max(max_len, lens[static_cast<size_t>(b)]);
          for (int64_t j = 0; j < H; ++j) {
            hbuf[i * H + j] = H0 ? H0[lay.state_at(d, b) + j] : T{};
            cbuf[i * H + j] = C0 ? C0[lay.state_at(d, b) + j] : T{};
          }
        }
        for (int64_t step = 0; step < max_len; ++step) {  // later steps would skip every row
          // Hidden-state products; GRU without linear_before_reset needs r first.
          const bool gru_split = cell_ == RnnCell::kGru && !a_.linear_before_reset;
          if (gru_split) {
            recurrent(hbuf.data(), nb, H, Rd, 2 * H, zr.data(), 0);
            for (int64_t i = 0; i < nb; ++i)
              for (int64_t j = 0; j < 2 * H; ++j) hr[i * GH + j] = zr[i * 2 * H + j];
            // r gate per batch, then (r * Hprev) * Rh^T.
            for (int64_t i = 0, b = b0; i < nb; ++i, ++b) {
              const int64_t t = rev ? lens[b] - 1 - step : step;
              if (step >= lens[b]) continue;
              T* r = gates.data();
              preact(xw.data() + lay.x_row(t, b) * GH, hr.data() + i * GH, 1, 2, r);
              activate(act[0], clip, r, H);
              for (int64_t j = 0; j < H; ++j) rh[i * H + j] = r[j] * hbuf[i * H + j];
            }
            recurrent(rh.data(), nb, H, Rd + 2 * H * H, H, hh.data(), 1);
            for (int64_t i = 0; i < nb; ++i)
              for (int64_t j = 0; j < H; ++j) hr[i * GH + 2 * H + j] = hh[i * H + j];
          } else {
            recurrent(hbuf.data(), nb, H, Rd, GH, hr.data(), 0);
          }
          for (int64_t i = 0, b = b0; i < nb; ++i, ++b) {
            if (step >= lens[b]) continue;
            const int64_t t = rev ? lens[b] - 1 - step : step;
            const T* xr = xw.data() + lay.x_row(t, b) * GH;
            const T* hp = hr.data() + i * GH;
            T* h = hbuf.data() + i * H;
            T* c = cbuf.data() + i * H;
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
        for (int64_t i = 0, b = b0; i < nb; ++i, ++b)
          for (int64_t j = 0; j < H; ++j) {
            if (o.yh) o.yh->data<T>()[lay.state_at(d, b) + j] = hbuf[i * H + j];
            if (o.yc) o.yc->data<T>()[lay.state_at(d, b) + j] = cbuf[i * H + j];
          }
      };
      tbb::parallel_for(int64_t{0}, chunks, [&](int64_t chunk) {
        const int64_t b0 = B * chunk / chunks, nb = B * (chunk + 1) / chunks - b0;
        run_rows(b0, nb);
      });
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

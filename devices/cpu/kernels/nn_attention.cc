// CPU Attention (opset 23): scaled dot-product attention over 3-D or 4-D
// Q, K, V, with grouped key/value heads, past caches, a boolean or
// additive mask, causal masking, softcap and the optional QK output.
//
// Per batch, query head and block of query rows:
//   scores = scale * Q K^T            (one sgemm; keys = past + new)
//   scores = softcap * tanh(scores / softcap)        when softcap > 0
//   scores += mask + causal bias      (masked keys: -inf)
//   P = softmax(scores), 0 for a row whose every key is masked
//   Y = P V                           (one sgemm)
// Q, K, V and the caches are first read into [B, H, S, D] buffers of the
// compute type (float; double when Q or V is double); 4-D inputs of that
// type are read in place, and past and new keys are gathered straight
// into present_key/present_value when those are of that type. Query rows
// are taken in blocks whose scores stay within kScoreBudget values, so
// memory does not grow with the square of the sequence length.
//
// The ONNX reference scales Q and K by sqrt(scale) each, to keep half
// products in range; the products here are float, so QK^T is scaled once.
//
// Thread-safety: compute() is const and uses only attributes parsed in init().
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "devices/cpu/kernels/attention_common.h"
#include "devices/cpu/kernels/vector_math.h"
#include "devices/cpu/kernels/nn_common.h"
#include "devices/cpu/kernels/reduction_common.h"

namespace sy::nn {
namespace {

using attention::AttentionAttrs;
using attention::AttentionShape;
using attention::HeadLayout;
using reduce_detail::load;
using reduce_detail::store;
using reduce_detail::visit_float;

constexpr int64_t kScoreBudget = int64_t{1} << 16;  // scores per block of query rows
constexpr int64_t kCausalRows = 32;                  // the most query rows of a causal block

// Reads the [B, H, S, D] view `l` of t into rows [row0, row0 + S) of the
// [B, H, rows, D] buffer dst.
template <typename C>
void gather_heads(const Tensor& t, const HeadLayout& l, int64_t B, int64_t H, int64_t S, int64_t D, C* dst,
                  int64_t rows, int64_t row0) {
  visit_float(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = t.data<T>();
    reduce_detail::parallel_rows(B * H, S * D, [&](int64_t b0, int64_t b1) {
      for (int64_t bh = b0; bh < b1; ++bh)
        for (int64_t s = 0; s < S; ++s) {
          const T* src = p + l.at(bh / H, bh % H, s);
          C* out = dst + (bh * rows + row0 + s) * D;
          for (int64_t d = 0; d < D; ++d) out[d] = static_cast<C>(load(src[d]));
        }
    });
  });
}

// Whether t, seen through `l`, already is a [B, H, S, D] buffer of C.
template <typename C>
bool is_dense(const Tensor& t, const HeadLayout& l, int64_t S, int64_t D) {
  return t.dtype() == DataTypeOf<C>::value && l.s == D && l.h == S * D;
}

// The [B, H, S, D] view `l` of t as such a buffer of C: t's own data when
// it is one (a 4-D input of the compute type), else a copy in `copy`.
template <typename C>
const C* dense_heads(const Tensor& t, const HeadLayout& l, int64_t B, int64_t H, int64_t S, int64_t D,
                     std::vector<C>& copy) {
  if (is_dense<C>(t, l, S, D)) return t.data<C>();
  copy.resize(static_cast<size_t>(B * H * S * D));
  gather_heads(t, l, B, H, S, D, copy.data(), S, 0);
  return copy.data();
}

// Writes the [B, H, S, D] buffer src into t through its view `l`.
template <typename C>
void scatter_heads(const C* src, Tensor& t, const HeadLayout& l, int64_t B, int64_t H, int64_t S, int64_t D) {
  visit_float(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = t.data<T>();
    reduce_detail::parallel_rows(B * H, S * D, [&](int64_t b0, int64_t b1) {
      for (int64_t bh = b0; bh < b1; ++bh)
        for (int64_t s = 0; s < S; ++s) {
          const C* in = src + (bh * S + s) * D;
          T* out = p + l.at(bh / H, bh % H, s);
          for (int64_t d = 0; d < D; ++d) out[d] = store<T>(in[d]);
        }
    });
  });
}

// The mask as an additive bias of the compute type: a boolean mask's
// false is -inf, other masks add their values.
template <typename C>
std::vector<C> mask_bias(const Tensor& m) {
  std::vector<C> out(static_cast<size_t>(m.numel()));
  if (m.dtype() == DataType::kBool) {
    const bool* p = m.data<bool>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = p[i] ? C(0) : -std::numeric_limits<C>::infinity();
    return out;
  }
  visit_numeric(m.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = m.data<T>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<C>(load(p[i]));
  });
  return out;
}

// C[M, N] = alpha * A[M, K] x op(B), op(B) = B^T ([N, K]) or B ([K, N]).
Status matmul(bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A, const float* B, float* C) {
  return sgemm('N', trans_b ? 'T' : 'N', M, N, K, alpha, A, K, B, trans_b ? K : N, 0.f, C, N);
}
Status matmul(bool trans_b, int64_t M, int64_t N, int64_t K, double alpha, const double* A, const double* B,
              double* C) {
  return dgemm('N', trans_b ? 'T' : 'N', M, N, K, alpha, A, K, B, trans_b ? K : N, 0.0, C, N);
}

// Softmax of row[0, n) in place, accumulated in A; all zeros when its
// largest score is -inf. That covers a row with no attendable key, whose
// biased scores are all -inf or NaN (an infinite score plus -inf), since
// NaNs are skipped in taking the largest.
template <typename A, typename C>
void softmax_row(C* row, int64_t n) {
  constexpr A kNegInf = -std::numeric_limits<A>::infinity();
  if constexpr (std::is_same_v<A, float> && std::is_same_v<C, float>) {
    // Vectorised: a scalar expf per score took most of the time.
    const float top = elementwise::max_skipping_nan(row, n);
    if (top == kNegInf) {
      std::fill(row, row + n, 0.f);
      return;
    }
    const float inv = 1.f / elementwise::exp_shifted_sum(row, top, row, n);
    for (int64_t j = 0; j < n; ++j) row[j] *= inv;
  } else {
    A top = kNegInf;
    for (int64_t j = 0; j < n; ++j) top = top < row[j] ? static_cast<A>(row[j]) : top;
    if (top == kNegInf) {
      std::fill(row, row + n, C(0));
      return;
    }
    A sum = 0;
    for (int64_t j = 0; j < n; ++j) {
      const A e = std::exp(static_cast<A>(row[j]) - top);
      row[j] = static_cast<C>(e);
      sum += e;
    }
    const A inv = A(1) / sum;
    for (int64_t j = 0; j < n; ++j) row[j] = static_cast<C>(static_cast<A>(row[j]) * inv);
  }
}

class AttentionKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(attrs_, AttentionAttrs::parse(node));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(attention::AttentionInputs in, attention::AttentionInputs::read(ctx));
    ASSIGN_OR_RETURN(AttentionShape s, resolve_attention_shape(ctx.node(), attrs_, *in.q, *in.k, *in.v, in.mask,
                                                               in.past_k, in.past_v));
    if (in.q->dtype() == DataType::kDouble || in.v->dtype() == DataType::kDouble)
      return run<double>(ctx, s, in.mask, in.past_k, in.past_v);
    return run<float>(ctx, s, in.mask, in.past_k, in.past_v);
  }

 private:
  template <typename C>
  Status run(KernelContext& ctx, const AttentionShape& s, const Tensor* mask, const Tensor* past_k,
             const Tensor* past_v) const {
    const int64_t B = s.batch, Hq = s.q_heads, Hkv = s.kv_heads, Sq = s.q_len, T = s.total_len, P = s.past_len;
    const int64_t D = s.head, Dv = s.v_head;
    std::vector<C> q_copy, k_copy, v_copy, y_copy;
    const C* qb = dense_heads(ctx.input(0), s.q, B, Hq, Sq, D, q_copy);
    const C *kb, *vb;
    // Each optional output is allocated only when wanted (they would
    // otherwise share one scratch tensor).
    Tensor* present[2] = {nullptr, nullptr};
    for (size_t o = 1; o <= 2; ++o)
      if (ctx.output_wanted(o)) {
        ASSIGN_OR_RETURN(present[o - 1], ctx.allocate_output(o, ctx.input(o == 1 ? 0 : 2).dtype(),
                                                             o == 1 ? s.present_k_dims : s.present_v_dims));
      }
    const bool k_direct = present[0] && present[0]->dtype() == DataTypeOf<C>::value;
    const bool v_direct = present[1] && present[1]->dtype() == DataTypeOf<C>::value;
    if (past_k) {  // past and new keys, one after the other
      if (!k_direct) k_copy.resize(static_cast<size_t>(B * Hkv * T * D));
      if (!v_direct) v_copy.resize(static_cast<size_t>(B * Hkv * T * Dv));
      C* k_all = k_direct ? present[0]->data<C>() : k_copy.data();
      C* v_all = v_direct ? present[1]->data<C>() : v_copy.data();
      gather_heads(*past_k, attention::head_layout(false, Hkv, P, D), B, Hkv, P, D, k_all, T, 0);
      gather_heads(*past_v, attention::head_layout(false, Hkv, P, Dv), B, Hkv, P, Dv, v_all, T, 0);
      gather_heads(ctx.input(1), s.k, B, Hkv, s.kv_len, D, k_all, T, P);
      gather_heads(ctx.input(2), s.v, B, Hkv, s.kv_len, Dv, v_all, T, P);
      kb = k_all;
      vb = v_all;
    } else {
      kb = dense_heads(ctx.input(1), s.k, B, Hkv, T, D, k_copy);
      vb = dense_heads(ctx.input(2), s.v, B, Hkv, T, Dv, v_copy);
    }
    // Y is written in place when it is the [B, Hq, Sq, Dv] buffer itself.
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, ctx.input(0).dtype(), s.y_dims));
    const bool y_direct = is_dense<C>(*y, s.y, Sq, Dv);
    if (!y_direct) y_copy.resize(static_cast<size_t>(B * Hq * Sq * Dv));
    C* yb = y_direct ? y->data<C>() : y_copy.data();
    const std::vector<C> bias = mask ? mask_bias<C>(*mask) : std::vector<C>{};
    // The QK output, [B, Hq, Sq, T], is written in place when of type C.
    const bool want_qk = ctx.output_wanted(3);
    Tensor* qk_out = nullptr;
    if (want_qk) {
      ASSIGN_OR_RETURN(qk_out, ctx.allocate_output(3, ctx.input(0).dtype(), s.qk_dims));
    }
    const bool qk_direct = want_qk && qk_out->dtype() == DataTypeOf<C>::value;
    std::vector<C> qk_copy(want_qk && !qk_direct ? static_cast<size_t>(B * Hq * Sq * T) : 0);
    C* qkb = qk_direct ? qk_out->data<C>() : qk_copy.data();

    // Causal blocks are short, so that each computes only the keys its
    // last row may attend: a third less work on a square causal product.
    const int64_t max_rows = attrs_.causal && !want_qk ? kCausalRows : std::max<int64_t>(Sq, 1);
    const int64_t rows = T > 0 ? std::clamp<int64_t>(kScoreBudget / T, 1, max_rows) : Sq;
    const int64_t blocks = Sq > 0 ? (Sq + rows - 1) / rows : 0;
    constexpr C kNegInf = -std::numeric_limits<C>::infinity();
    const C softcap = static_cast<C>(attrs_.softcap);
    RETURN_IF_ERROR(for_batches(B * Hq * blocks, rows * T * (D + Dv), [&](int64_t task) -> Status {
      const int64_t bh = task / blocks, b = bh / Hq, h = bh % Hq;
      const int64_t i0 = task % blocks * rows, n = std::min(rows, Sq - i0);
      const int64_t kvh = b * Hkv + s.kv_head_of(h);
      // The keys the block's rows may attend (all of them for the QK output).
      const int64_t cols = attrs_.causal && !want_qk ? std::clamp<int64_t>(i0 + n + P, 0, T) : T;
      std::vector<C> scores(static_cast<size_t>(n * cols));
      RETURN_IF_ERROR(matmul(true, n, cols, D, static_cast<C>(s.scale), qb + (bh * Sq + i0) * D, kb + kvh * T * D,
                             scores.data()));
      for (int64_t r = 0; r < n; ++r) {
        const int64_t i = i0 + r;
        C* row = scores.data() + r * cols;
        C* qk = want_qk ? qkb + (bh * Sq + i) * T : nullptr;
        if (qk && attrs_.qk_mode == 0) std::copy(row, row + T, qk);
        if (softcap > 0)
          for (int64_t j = 0; j < cols; ++j) row[j] = softcap * std::tanh(row[j] / softcap);
        if (qk && attrs_.qk_mode == 1) std::copy(row, row + T, qk);
        // Keys from `valid` on are masked by causality: -inf scores, 0
        // probabilities, with no exp to take.
        const int64_t valid = attrs_.causal ? std::clamp<int64_t>(i + P + 1, 0, cols) : cols;
        if (mask) {
          const C* m = bias.data() + b * s.mask_stride[0] + h * s.mask_stride[1] + i * s.mask_stride[2];
          const int64_t len = std::min(valid, s.mask_len);
          for (int64_t j = 0; j < len; ++j) row[j] += m[j * s.mask_stride[3]];
          std::fill(row + len, row + valid, kNegInf);
        }
        std::fill(row + valid, row + cols, kNegInf);
        if (qk && attrs_.qk_mode == 2) std::copy(row, row + T, qk);
        if (attrs_.softmax_double) softmax_row<double>(row, valid);
        else softmax_row<C>(row, valid);
        std::fill(row + valid, row + cols, C(0));
        if (qk && attrs_.qk_mode == 3) std::copy(row, row + T, qk);
      }
      return matmul(false, n, Dv, cols, C(1), scores.data(), vb + kvh * T * Dv, yb + (bh * Sq + i0) * Dv);
    }));

    if (!y_direct) scatter_heads(yb, *y, s.y, B, Hq, Sq, Dv);
    if (present[0] && !(past_k && k_direct))
      scatter_heads(kb, *present[0], attention::head_layout(false, Hkv, T, D), B, Hkv, T, D);
    if (present[1] && !(past_k && v_direct))
      scatter_heads(vb, *present[1], attention::head_layout(false, Hkv, T, Dv), B, Hkv, T, Dv);
    if (want_qk && !qk_direct) scatter_heads(qkb, *qk_out, attention::head_layout(false, Hq, Sq, T), B, Hq, Sq, T);
    return OkStatus();
  }

  AttentionAttrs attrs_;
};

}  // namespace

void register_attention_kernels(KernelRegistry& r) {
  add_kernel(r, "Attention", 23, make_kernel<AttentionKernel>, reduce_detail::float_types());
}

}  // namespace sy::nn

// CUDA Attention and RotaryEmbedding (opset 23), float, float16 and
// bfloat16. Attributes and shapes are the CPU kernels' (attention_common.h),
// so both devices accept and reject the same inputs.
//
// Attention computes in float, as the CPU kernel does: Q, K and V are read
// into dense float [B, H, S, D] buffers (4-D float inputs in place; past
// and new keys straight into present_key/present_value when those are
// float), then, tile by tile (attention_plan.h), scores = scale * Q K^T on
// cuBLAS, the softmax kernel, and Y = P V on cuBLAS. The products run in
// CUBLAS_COMPUTE_32F, without TF32. Scores take at most kScoreBudget floats
// of scratch however long the sequences are. Double inputs, V of another
// type than Q, and masks of other types than bool, float, float16 and
// bfloat16 are declined, so the CPU runs them.
//
// RotaryEmbedding: a position id outside the caches fails the task through
// the launch's error flag, as the CPU kernel fails it before computing.
#include <algorithm>

#include "devices/cpu/kernels/attention_common.h"
#include "devices/cuda/cuda_launch.h"
#include "devices/cuda/cuda_libraries.h"
#include "devices/cuda/kernels/attention_launch.h"
#include "devices/cuda/kernels/attention_plan.h"
#include "devices/cuda/kernels/blas_dnn_common.h"
#include "devices/cuda/kernels/cuda_kernels.h"

namespace sy::cuda {
namespace {

using attention::AttentionAttrs;
using attention::AttentionShape;
using attention::HeadLayout;
using attention::RotaryAttrs;
using attention::RotaryShape;

constexpr int64_t kScoreBudget = int64_t{1} << 25;  // 128 MiB of float scores

bool half_or_float(DataType t) {
  return t == DataType::kFloat || t == DataType::kFloat16 || t == DataType::kBFloat16;
}

HeadStrides strides(const HeadLayout& l) { return {l.b, l.h, l.s}; }

// The dense [B, H, rows, D] layout.
HeadStrides dense(int64_t H, int64_t rows, int64_t D) { return {H * rows * D, rows * D, D}; }

// Row-major C = alpha * A op(B) for every entry of g, on float buffers.
Status run_gemm(cublasHandle_t h, const attention_plan::BatchedGemm& g, float alpha, const float* a, const float* b,
                float* c) {
  const float beta = 0.f;
  // Column-major C^T = op(B)^T A^T: B comes first (blas_dnn_kernels.cc).
  CUDA_RETURN_IF_ERROR(cublas_api().GemmStridedBatchedEx_64(
      h, g.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, g.n, g.m, g.k, &alpha, b + g.b_off, CUDA_R_32F,
      g.trans_b ? g.k : g.n, g.b_stride, a + g.a_off, CUDA_R_32F, g.k, g.a_stride, &beta, c + g.c_off, CUDA_R_32F, g.n,
      g.c_stride, g.count, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  return OkStatus();
}

class AttentionKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(attrs_, AttentionAttrs::parse(node));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    ASSIGN_OR_RETURN(attention::AttentionInputs in, attention::AttentionInputs::read(ctx));
    const Tensor &q = *in.q, &k = *in.k, &v = *in.v;
    const Tensor *mask = in.mask, *past_k = in.past_k, *past_v = in.past_v;
    const DataType t = q.dtype();
    if (!half_or_float(t) || v.dtype() != t)
      return Unimplemented(node.describe(), ": Q ", q.describe(), " and V ", v.describe(), " on CUDA");
    if (mask && mask->dtype() != DataType::kBool && !half_or_float(mask->dtype()))
      return Unimplemented(node.describe(), ": attn_mask of type ", dtype_name(mask->dtype()), " on CUDA");
    ASSIGN_OR_RETURN(AttentionShape s, resolve_attention_shape(node, attrs_, q, k, v, mask, past_k, past_v));
    // No keys or empty heads: nothing for cuBLAS to multiply, and rare
    // enough to leave to the CPU.
    if (s.total_len == 0 || s.head == 0)
      return Unimplemented(node.describe(), ": ", s.total_len == 0 ? "no keys" : "empty heads", " on CUDA");
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    const int64_t B = s.batch, Hq = s.q_heads, Hkv = s.kv_heads, Sq = s.q_len, T = s.total_len, P = s.past_len;
    const int64_t D = s.head, Dv = s.v_head;
    const int dt = static_cast<int>(t), f32 = static_cast<int>(DataType::kFloat);

    // Dense float Q, K and V.
    Tensor q_copy, k_copy, v_copy, y_copy;
    ASSIGN_OR_RETURN(const float* qb, dense_float(ctx, l, q, nullptr, s.q, nullptr, B, Hq, Sq, 0, D, q_copy));
    Tensor* present[2] = {nullptr, nullptr};
    for (size_t o = 1; o <= 2; ++o)
      if (ctx.output_wanted(o)) {
        ASSIGN_OR_RETURN(present[o - 1], ctx.allocate_output(o, t, o == 1 ? s.present_k_dims : s.present_v_dims));
      }
    ASSIGN_OR_RETURN(const float* kb, dense_float(ctx, l, k, past_k, s.k, present[0], B, Hkv, s.kv_len, P, D, k_copy));
    ASSIGN_OR_RETURN(const float* vb,
                     dense_float(ctx, l, v, past_v, s.v, present[1], B, Hkv, s.kv_len, P, Dv, v_copy));

    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, t, s.y_dims));
    float* yb = nullptr;
    if (t == DataType::kFloat && !s.three_d) {  // Y is the dense float buffer
      yb = y->data<float>();
    } else {
      ASSIGN_OR_RETURN(y_copy, dnn::scratch(ctx, DataType::kFloat, Dims{B, Hq, Sq, Dv}));
      yb = y_copy.data<float>();
    }
    Tensor* qk = nullptr;
    if (ctx.output_wanted(3)) {
      ASSIGN_OR_RETURN(qk, ctx.allocate_output(3, t, s.qk_dims));
    }

    const attention_plan::Dims pd{B * Hkv, Hq / Hkv, Sq, T, D, Dv};
    if (Sq > 0 && (Dv > 0 || qk)) RETURN_IF_ERROR(attend(ctx, l, s, pd, mask, qb, kb, vb, yb, qk));
    if (y_copy.defined())
      CUDA_RETURN_IF_ERROR(launch_heads_copy(f32, yb, dense(Hq, Sq, Dv), dt, y->raw(), strides(s.y), B, Hq, Sq, Dv,
                                             l.stream));
    for (int o = 0; o < 2; ++o) {
      const float* src = o == 0 ? kb : vb;
      const int64_t dh = o == 0 ? D : Dv;
      if (present[o] && present[o]->raw() != src)
        CUDA_RETURN_IF_ERROR(launch_heads_copy(f32, src, dense(Hkv, T, dh), dt, present[o]->raw(), dense(Hkv, T, dh),
                                               B, Hkv, T, dh, l.stream));
    }
    return OkStatus();
  }

 private:
  // The dense float [B, H, P + S, Dh] buffer of x (queries, keys or
  // values) after its past: x itself when it is float, 4-D and has no
  // past; else past and x gathered one after the other into `present`
  // (present_key or present_value) when that is float, or into `copy`.
  static StatusOr<const float*> dense_float(KernelContext& ctx, const Launch& l, const Tensor& x, const Tensor* past,
                                     const HeadLayout& x_at, Tensor* present, int64_t B, int64_t H, int64_t S,
                                     int64_t P, int64_t Dh, Tensor& copy) {
    const bool is_float = x.dtype() == DataType::kFloat;
    if (is_float && !past && x_at.s == Dh && x_at.h == S * Dh) return x.data<float>();
    float* dst = nullptr;
    if (present && is_float) {
      dst = present->data<float>();
    } else {
      ASSIGN_OR_RETURN(copy, dnn::scratch(ctx, DataType::kFloat, Dims{B, H, P + S, Dh}));
      dst = copy.data<float>();
    }
    const int dt = static_cast<int>(x.dtype()), f32 = static_cast<int>(DataType::kFloat);
    const HeadStrides all = dense(H, P + S, Dh);
    if (past)
      CUDA_RETURN_IF_ERROR(launch_heads_copy(dt, past->raw(), dense(H, P, Dh), f32, dst, all, B, H, P, Dh, l.stream));
    CUDA_RETURN_IF_ERROR(launch_heads_copy(dt, x.raw(), strides(x_at), f32, dst + P * Dh, all, B, H, S, Dh, l.stream));
    return dst;
  }

  Status attend(KernelContext& ctx, const Launch& l, const AttentionShape& s, const attention_plan::Dims& pd,
                const Tensor* mask, const float* qb, const float* kb, const float* vb, float* yb, Tensor* qk) const {
    const std::vector<attention_plan::Tile> tiles = attention_plan::plan_tiles(pd, kScoreBudget);
    int64_t most = 0;
    for (const attention_plan::Tile& tile : tiles) most = std::max(most, tile.rows(pd));
    ASSIGN_OR_RETURN(Tensor scores, dnn::scratch(ctx, DataType::kFloat, Dims{most, pd.total_len}));
    ASSIGN_OR_RETURN(cublasHandle_t h, l.cublas());
    CUDA_RETURN_IF_ERROR(cublas_api().SetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    AttnSoftmaxMeta m;
    m.dims = pd;
    m.q_heads = s.q_heads;
    m.past_len = s.past_len;
    m.softcap = attrs_.softcap;
    m.causal = attrs_.causal;
    m.softmax_double = attrs_.softmax_double;
    if (mask) {
      m.mask = mask->raw();
      m.mask_dtype = static_cast<int>(mask->dtype());
      m.mask_len = s.mask_len;
      std::copy(s.mask_stride, s.mask_stride + 4, m.mask_stride);
    }
    if (qk) {
      m.qk = qk->raw();
      m.qk_dtype = static_cast<int>(qk->dtype());
      m.qk_mode = attrs_.qk_mode;
    }
    float* sc = scores.data<float>();
    for (const attention_plan::Tile& tile : tiles) {
      RETURN_IF_ERROR(run_gemm(h, attention_plan::qk_gemm(tile, pd), static_cast<float>(s.scale), qb, kb, sc));
      m.tile = tile;
      CUDA_RETURN_IF_ERROR(launch_attention_softmax(sc, m, l.stream));
      if (pd.v_head > 0) RETURN_IF_ERROR(run_gemm(h, attention_plan::pv_gemm(tile, pd), 1.f, sc, vb, yb));
    }
    return OkStatus();
  }

  AttentionAttrs attrs_;
};

class RotaryEmbeddingKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(attrs_, RotaryAttrs::parse(node));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    const Tensor* ids = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    const DataType t = x.dtype();
    if (t != DataType::kFloat && t != DataType::kFloat16 && t != DataType::kBFloat16)
      return Unimplemented(node.describe(), ": X of type ", dtype_name(t), " on CUDA");
    ASSIGN_OR_RETURN(RotaryShape s, resolve_rotary_shape(node, attrs_, x, ctx.input(1), ctx.input(2), ids));
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, t, x.dims()));
    RotaryMeta m;
    m.batch = s.batch;
    m.heads = s.heads;
    m.len = s.len;
    m.head = s.head;
    m.rotary_dim = s.rotary_dim;
    m.three_d = x.rank() == 3;
    m.interleaved = attrs_.interleaved;
    m.positions = s.positions;
    int* bad = nullptr;
    if (ids) {
      ASSIGN_OR_RETURN(bad, l.error_flag("RotaryEmbedding: a position id is outside the caches"));
    }
    CUDA_RETURN_IF_ERROR(launch_rotary_embedding(static_cast<int>(t), x.raw(), ctx.input(1).raw(),
                                                 ctx.input(2).raw(), ids ? ids->data<int64_t>() : nullptr, y->raw(),
                                                 m, bad, l.stream));
    return OkStatus();
  }

 private:
  RotaryAttrs attrs_;
};

}  // namespace

void register_cuda_attention_kernels(KernelRegistry& r) {
  add_cuda_kernel<AttentionKernel>(r, "Attention", 23, {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16});
  add_cuda_kernel<RotaryEmbeddingKernel>(r, "RotaryEmbedding", 23,
                                         {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16});
}

}  // namespace sy::cuda

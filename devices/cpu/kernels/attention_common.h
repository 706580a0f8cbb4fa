// Attributes and shapes of Attention and RotaryEmbedding (opset 23), shared
// by the CPU and CUDA kernels so that both accept and reject the same
// inputs with the same messages.
#pragma once

#include <cmath>
#include <cstdint>

#include "devices/kernel.h"
#include "ir/graph.h"
#include "ir/str_cat.h"

namespace sy::attention {

// Where element (b, h, s, 0) of a [B, H, S, D] view starts: a 4-D tensor is
// that layout; a 3-D one, [B, S, H * D], is its transpose.
struct HeadLayout {
  int64_t b = 0, h = 0, s = 0;  // element strides; d's is 1
  int64_t at(int64_t bi, int64_t hi, int64_t si) const { return bi * b + hi * h + si * s; }
};

inline HeadLayout head_layout(bool three_d, int64_t heads, int64_t len, int64_t dim) {
  if (three_d) return {len * heads * dim, dim, heads * dim};
  return {heads * len * dim, len * dim, dim};
}

struct AttentionAttrs {
  bool causal = false;
  int64_t q_heads = 0, kv_heads = 0;  // 0: not given (4-D inputs take them from the shapes)
  bool has_scale = false;
  float scale = 0.f;
  float softcap = 0.f;  // 0: none
  int qk_mode = 0;      // what qk_matmul_output holds: 0 QK^T, 1 after softcap, 2 after the bias, 3 softmax
  bool softmax_double = false;  // softmax_precision asks for double

  static StatusOr<AttentionAttrs> parse(const Node& node) {
    AttentionAttrs a;
    a.causal = node.attr_int("is_causal", 0) != 0;
    a.q_heads = node.attr_int("q_num_heads", 0);
    a.kv_heads = node.attr_int("kv_num_heads", 0);
    if (a.q_heads < 0 || a.kv_heads < 0)
      return InvalidArgument(node.describe(), ": q_num_heads and kv_num_heads must be positive");
    a.has_scale = node.has_attr("scale");
    a.scale = node.attr_float("scale", 0.f);
    a.softcap = node.attr_float("softcap", 0.f);
    if (!(a.softcap >= 0.f)) return InvalidArgument(node.describe(), ": softcap must be >= 0, got ", a.softcap);
    const int64_t mode = node.attr_int("qk_matmul_output_mode", 0);
    if (mode < 0 || mode > 3)
      return InvalidArgument(node.describe(), ": qk_matmul_output_mode must be 0 to 3, got ", mode);
    a.qk_mode = static_cast<int>(mode);
    // The softmax runs in float at the least, so only double changes it.
    const int64_t precision = node.attr_int("softmax_precision", 0);
    if (precision != 0 && !dtype_is_float(static_cast<DataType>(precision)))
      return InvalidArgument(node.describe(), ": softmax_precision ", precision, " is not a floating-point type");
    a.softmax_double = precision == static_cast<int64_t>(DataType::kDouble);
    return a;
  }
};

// Attention's inputs, with the type rules every device checks: Q and V of
// float types, K and past_key of Q's, past_value of V's, and a boolean or
// numeric mask.
struct AttentionInputs {
  const Tensor* q = nullptr;
  const Tensor* k = nullptr;
  const Tensor* v = nullptr;
  const Tensor* mask = nullptr;  // null: omitted, as are the caches
  const Tensor* past_k = nullptr;
  const Tensor* past_v = nullptr;

  static StatusOr<AttentionInputs> read(const KernelContext& ctx) {
    const Node& node = ctx.node();
    auto optional = [&](size_t i) { return ctx.has_input(i) ? &ctx.input(i) : nullptr; };
    AttentionInputs in{&ctx.input(0), &ctx.input(1), &ctx.input(2), optional(3), optional(4), optional(5)};
    for (const Tensor* t : {in.q, in.v})
      if (!dtype_is_float(t->dtype()))
        return InvalidArgument(node.describe(), ": Q and V must be float tensors, got ", t->describe());
    const DataType qt = in.q->dtype();
    if (in.k->dtype() != qt || (in.past_k && in.past_k->dtype() != qt) ||
        (in.past_v && in.past_v->dtype() != in.v->dtype()))
      return InvalidArgument(node.describe(), ": K and past_key must have Q's type and past_value V's, got K ",
                             in.k->describe(), " for Q ", in.q->describe());
    if (in.mask && !visit_numeric(in.mask->dtype(), [](auto) {}))
      return InvalidArgument(node.describe(), ": attn_mask must be boolean or numeric, got ", in.mask->describe());
    return in;
  }
};

struct AttentionShape {
  bool three_d = false;
  int64_t batch = 0, q_heads = 0, kv_heads = 0;
  int64_t q_len = 0, kv_len = 0, past_len = 0, total_len = 0;  // total = past + kv
  int64_t head = 0, v_head = 0;                                // Q's and K's head size; V's
  double scale = 0;                                            // applied to QK^T
  HeadLayout q, k, v, y;
  Dims y_dims, present_k_dims, present_v_dims, qk_dims;
  // The mask broadcast to [B, Hq, Sq, mask_len] (0 stride where it
  // broadcasts); keys from mask_len to total_len are masked out.
  bool has_mask = false;
  int64_t mask_len = 0;
  int64_t mask_stride[4] = {};

  int64_t kv_head_of(int64_t h) const { return h / (q_heads / kv_heads); }
};

// Checks Q, K, V, the mask and the past caches against each other.
inline StatusOr<AttentionShape> resolve_attention_shape(const Node& node, const AttentionAttrs& a, const Tensor& q,
                                                        const Tensor& k, const Tensor& v, const Tensor* mask,
                                                        const Tensor* past_k, const Tensor* past_v) {
  auto bad = [&](auto&&... what) { return InvalidArgument(node.describe(), ": ", what...); };
  AttentionShape s;
  if (q.rank() != k.rank() || q.rank() != v.rank() || (q.rank() != 3 && q.rank() != 4))
    return bad("Q, K and V must all be 3-D or all 4-D, got ", q.describe(), ", ", k.describe(), " and ",
               v.describe());
  s.three_d = q.rank() == 3;
  s.batch = q.dim(0);
  if (k.dim(0) != s.batch || v.dim(0) != s.batch)
    return bad("Q, K and V must have the same batch size, got ", q.describe(), ", ", k.describe(), " and ",
               v.describe());
  if (s.three_d) {
    if (a.q_heads == 0 || a.kv_heads == 0) return bad("3-D inputs need q_num_heads and kv_num_heads");
    s.q_heads = a.q_heads;
    s.kv_heads = a.kv_heads;
    if (q.dim(2) % s.q_heads || k.dim(2) % s.kv_heads || v.dim(2) % s.kv_heads)
      return bad("hidden sizes ", q.dim(2), ", ", k.dim(2), " and ", v.dim(2), " must divide by q_num_heads ",
                 s.q_heads, " and kv_num_heads ", s.kv_heads);
    s.q_len = q.dim(1);
    s.kv_len = k.dim(1);
    s.head = q.dim(2) / s.q_heads;
    if (k.dim(2) / s.kv_heads != s.head)
      return bad("Q's head size ", s.head, " differs from K's, ", k.dim(2) / s.kv_heads);
    if (v.dim(1) != s.kv_len) return bad("K and V must have the same sequence length, got ", k.describe(), " and ",
                                         v.describe());
    s.v_head = v.dim(2) / s.kv_heads;
  } else {
    s.q_heads = q.dim(1);
    s.kv_heads = k.dim(1);
    if ((a.q_heads && a.q_heads != s.q_heads) || (a.kv_heads && a.kv_heads != s.kv_heads))
      return bad("q_num_heads ", a.q_heads, " and kv_num_heads ", a.kv_heads, " contradict Q ", q.describe(),
                 " and K ", k.describe());
    s.q_len = q.dim(2);
    s.kv_len = k.dim(2);
    s.head = q.dim(3);
    if (k.dim(3) != s.head) return bad("Q and K must have the same head size, got ", q.describe(), " and ",
                                       k.describe());
    if (v.dim(1) != s.kv_heads || v.dim(2) != s.kv_len)
      return bad("V must have K's heads and sequence length, got ", k.describe(), " and ", v.describe());
    s.v_head = v.dim(3);
  }
  if (s.q_heads == 0 || s.kv_heads == 0 || s.q_heads % s.kv_heads)
    return bad("the query heads (", s.q_heads, ") must be a positive multiple of the key/value heads (", s.kv_heads,
               ")");
  if ((past_k == nullptr) != (past_v == nullptr)) return bad("past_key and past_value must be given together");
  if (past_k) {
    const Dims want_k{s.batch, s.kv_heads, past_k->rank() == 4 ? past_k->dim(2) : 0, s.head};
    if (past_k->rank() != 4 || past_k->dims() != want_k)
      return bad("past_key must be [", s.batch, ", ", s.kv_heads, ", past length, ", s.head, "], got ",
                 past_k->describe());
    s.past_len = past_k->dim(2);
    const Dims want_v{s.batch, s.kv_heads, s.past_len, s.v_head};
    if (past_v->dims() != want_v)
      return bad("past_value must be ", want_v.to_string(), ", got ", past_v->describe());
  }
  s.total_len = s.past_len + s.kv_len;
  s.scale = a.has_scale ? a.scale : 1.0 / std::sqrt(static_cast<double>(s.head));
  s.q = head_layout(s.three_d, s.q_heads, s.q_len, s.head);
  s.k = head_layout(s.three_d, s.kv_heads, s.kv_len, s.head);
  s.v = head_layout(s.three_d, s.kv_heads, s.kv_len, s.v_head);
  s.y = head_layout(s.three_d, s.q_heads, s.q_len, s.v_head);
  s.y_dims = s.three_d ? Dims{s.batch, s.q_len, s.q_heads * s.v_head} : Dims{s.batch, s.q_heads, s.q_len, s.v_head};
  s.present_k_dims = Dims{s.batch, s.kv_heads, s.total_len, s.head};
  s.present_v_dims = Dims{s.batch, s.kv_heads, s.total_len, s.v_head};
  s.qk_dims = Dims{s.batch, s.q_heads, s.q_len, s.total_len};
  if (mask) {
    // Broadcast right-aligned onto [B, Hq, Sq, total]; a last dim shorter
    // than total (but not 1, which broadcasts) leaves the later keys masked.
    const Dims& m = mask->dims();
    if (m.size() > 4) return bad("attn_mask must have rank <= 4, got ", mask->describe());
    const int64_t target[4] = {s.batch, s.q_heads, s.q_len, s.total_len};
    int64_t stride = 1;
    s.has_mask = true;
    s.mask_len = s.total_len;
    for (int i = 3, j = static_cast<int>(m.size()) - 1; i >= 0; --i, --j) {
      const int64_t d = j >= 0 ? m[static_cast<size_t>(j)] : 1;
      const bool fits = d == target[i] || d == 1 || (i == 3 && d < target[i]);
      if (!fits)
        return bad("attn_mask ", mask->describe(), " does not broadcast to [", s.batch, ", ", s.q_heads, ", ",
                   s.q_len, ", ", s.total_len, "] (batch, query heads, query length, past + new keys)");
      if (i == 3 && d != 1) s.mask_len = d;
      s.mask_stride[i] = d == 1 ? 0 : stride;
      stride *= d;
    }
  }
  return s;
}

// RotaryEmbedding-23: X is [B, H, S, Dh] or [B, S, H * Dh]; the first
// `rotary_dim` of each head's Dh elements are rotated in pairs, by the cos
// and sin of row position_ids[b, s] of the caches ([max position + 1,
// rotary_dim / 2]), or of row [b, s] of 3-D caches without position_ids.
struct RotaryAttrs {
  bool interleaved = false;  // pairs (2i, 2i+1), else (i, i + rotary_dim / 2)
  int64_t heads = 0;         // 0: not given
  int64_t rotary_dim = 0;    // 0: the whole head

  static StatusOr<RotaryAttrs> parse(const Node& node) {
    RotaryAttrs a;
    a.interleaved = node.attr_int("interleaved", 0) != 0;
    a.heads = node.attr_int("num_heads", 0);
    a.rotary_dim = node.attr_int("rotary_embedding_dim", 0);
    if (a.heads < 0 || a.rotary_dim < 0)
      return InvalidArgument(node.describe(), ": num_heads and rotary_embedding_dim must not be negative");
    return a;
  }
};

struct RotaryShape {
  int64_t batch = 0, heads = 0, len = 0, head = 0, rotary_dim = 0;
  HeadLayout x;          // X's and Y's layout
  bool by_position = false;  // caches indexed by position_ids
  int64_t positions = 0;     // rows of 2-D caches
};

inline StatusOr<RotaryShape> resolve_rotary_shape(const Node& node, const RotaryAttrs& a, const Tensor& x,
                                                  const Tensor& cos, const Tensor& sin, const Tensor* ids) {
  auto bad = [&](auto&&... what) { return InvalidArgument(node.describe(), ": ", what...); };
  RotaryShape s;
  if (x.rank() == 4) {
    s.batch = x.dim(0);
    s.heads = x.dim(1);
    s.len = x.dim(2);
    s.head = x.dim(3);
    if (a.heads && a.heads != s.heads) return bad("num_heads ", a.heads, " contradicts X ", x.describe());
  } else if (x.rank() == 3) {
    if (a.heads == 0) return bad("a 3-D X needs num_heads");
    if (x.dim(2) % a.heads) return bad("X's hidden size ", x.dim(2), " does not divide by num_heads ", a.heads);
    s.batch = x.dim(0);
    s.heads = a.heads;
    s.len = x.dim(1);
    s.head = x.dim(2) / a.heads;
  } else {
    return bad("X must be 3-D or 4-D, got ", x.describe());
  }
  s.rotary_dim = a.rotary_dim ? a.rotary_dim : s.head;
  if (s.rotary_dim % 2 || s.rotary_dim > s.head)
    return bad("the rotated part of each head (", s.rotary_dim, ") must be even and at most the head size ", s.head);
  s.x = head_layout(x.rank() == 3, s.heads, s.len, s.head);
  const int64_t half = s.rotary_dim / 2;
  if (cos.dims() != sin.dims()) return bad("cos_cache ", cos.describe(), " and sin_cache ", sin.describe(),
                                           " differ in shape");
  if (cos.dtype() != x.dtype() || sin.dtype() != x.dtype())
    return bad("the caches must have X's type, got ", cos.describe(), " for X ", x.describe());
  s.by_position = ids != nullptr;
  if (ids) {
    if (ids->dtype() != DataType::kInt64 || ids->dims() != Dims{s.batch, s.len})
      return bad("position_ids must be int64[", s.batch, ",", s.len, "], got ", ids->describe());
    if (cos.rank() != 2 || cos.dim(1) != half)
      return bad("with position_ids the caches must be [positions, ", half, "], got ", cos.describe());
    s.positions = cos.dim(0);
  } else if (cos.dims() != Dims{s.batch, s.len, half}) {
    return bad("without position_ids the caches must be [", s.batch, ", ", s.len, ", ", half, "], got ",
               cos.describe());
  }
  return s;
}

}  // namespace sy::attention

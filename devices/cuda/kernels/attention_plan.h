// How the CUDA Attention kernel (attention_kernels.cc) splits its work into
// batched GEMMs and softmax launches. Plain C++ with no CUDA types, so the
// plan is tested on machines without a GPU (tests/devices/cuda/
// attention_plan_test.cc executes it on the host against the CPU kernel).
//
// Buffers are dense and row-major: Q [B, Hq, Sq, D], K [B, Hkv, T, D],
// V [B, Hkv, T, Dv], Y [B, Hq, Sq, Dv], T = past + new keys. A "pair" is
// one (batch, key/value head); its `group` = Hq / Hkv query heads are
// consecutive in Q and Y, so all of a pair's query rows form one
// [group * Sq, D] matrix that shares the pair's K and V.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

// Tile::rows() and row_of() also run on the device, in the softmax kernel.
#include "devices/host_device.h"

namespace sy::cuda::attention_plan {

struct Dims {
  int64_t pairs = 0;  // B * Hkv
  int64_t group = 0;  // Hq / Hkv
  int64_t q_len = 0, total_len = 0, head = 0, v_head = 0;
};

// A unit of work whose scores, [pairs * group * n, T] floats, fit the
// scratch: either whole pairs (i0 = 0, n = Sq), or, when one pair's scores
// alone are too many, rows [i0, i0 + n) of every query head of one pair.
struct Tile {
  int64_t pair0 = 0, pairs = 0, i0 = 0, n = 0;
  SY_HOST_DEVICE int64_t rows(const Dims& d) const { return pairs * d.group * n; }
  bool whole_pairs(const Dims& d) const { return n == d.q_len; }
};

// Scores row r of a tile is query row i of head h of batch b, where the
// head's flat index b * Hq + h is `bh`.
struct RowOf {
  int64_t pair, bh, i;
};
SY_HOST_DEVICE inline RowOf row_of(const Tile& t, const Dims& d, int64_t r) {
  const int64_t per_pair = d.group * t.n;
  const int64_t pair = t.pair0 + r / per_pair;
  return {pair, pair * d.group + r % per_pair / t.n, t.i0 + r % t.n};
}

// The tiles covering every query row once, each with at most `budget`
// scores (at least one row of one head when even that is more).
inline std::vector<Tile> plan_tiles(const Dims& d, int64_t budget) {
  std::vector<Tile> tiles;
  if (d.pairs == 0 || d.group == 0 || d.q_len == 0) return tiles;
  const int64_t per_pair = d.group * d.q_len * d.total_len;
  if (per_pair <= budget) {
    const int64_t step = per_pair > 0 ? std::max<int64_t>(budget / per_pair, 1) : d.pairs;
    for (int64_t p = 0; p < d.pairs; p += step) tiles.push_back({p, std::min(step, d.pairs - p), 0, d.q_len});
    return tiles;
  }
  const int64_t n = std::clamp<int64_t>(budget / (d.group * d.total_len), 1, d.q_len);
  for (int64_t p = 0; p < d.pairs; ++p)
    for (int64_t i = 0; i < d.q_len; i += n) tiles.push_back({p, 1, i, std::min(n, d.q_len - i)});
  return tiles;
}

// Row-major C[m, n] = alpha * A[m, k] x op(B), `count` times, the e-th on
// A + a_off + e * a_stride and so on (elements). op(B) is B^T when
// trans_b (B is [n, k]), else B ([k, n]). A stride of 0 shares a matrix.
struct BatchedGemm {
  bool trans_b = false;
  int64_t m = 0, n = 0, k = 0, count = 0;
  int64_t a_off = 0, a_stride = 0, b_off = 0, b_stride = 0, c_off = 0, c_stride = 0;
};

// Where a tile's query rows lie in a dense [pairs, group, Sq, width] buffer
// (Q for QK^T, Y for PV): whole pairs are one GEMM each of group * Sq rows;
// a row block of one pair is one GEMM for each of the pair's query heads.
struct QueryRows {
  int64_t m = 0, count = 0, off = 0, stride = 0;
};
inline QueryRows query_rows(const Tile& t, const Dims& d, int64_t width) {
  if (t.whole_pairs(d)) {
    const int64_t m = d.group * d.q_len;
    return {m, t.pairs, t.pair0 * m * width, m * width};
  }
  return {t.n, d.group, (t.pair0 * d.group * d.q_len + t.i0) * width, d.q_len * width};
}

// scores (the tile's own buffer, from 0) = Q K^T. Whole pairs batch over
// pairs, each with its own K; a row block batches over the pair's heads,
// which share its K (stride 0).
inline BatchedGemm qk_gemm(const Tile& t, const Dims& d) {
  const QueryRows q = query_rows(t, d, d.head);
  BatchedGemm g;
  g.trans_b = true;
  g.m = q.m;
  g.n = d.total_len;
  g.k = d.head;
  g.count = q.count;
  g.a_off = q.off;
  g.a_stride = q.stride;
  g.b_off = t.pair0 * d.total_len * d.head;
  g.b_stride = t.whole_pairs(d) ? d.total_len * d.head : 0;
  g.c_stride = g.m * d.total_len;
  return g;
}

// Y = P V, P being the tile's scores after the softmax; V is shared the
// same way as K.
inline BatchedGemm pv_gemm(const Tile& t, const Dims& d) {
  const QueryRows y = query_rows(t, d, d.v_head);
  BatchedGemm g;
  g.m = y.m;
  g.n = d.v_head;
  g.k = d.total_len;
  g.count = y.count;
  g.a_stride = g.m * d.total_len;
  g.b_off = t.pair0 * d.total_len * d.v_head;
  g.b_stride = t.whole_pairs(d) ? d.total_len * d.v_head : 0;
  g.c_off = y.off;
  g.c_stride = y.stride;
  return g;
}

}  // namespace sy::cuda::attention_plan

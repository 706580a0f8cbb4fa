// The CUDA Attention kernel's plan (devices/cuda/kernels/attention_plan.h),
// executed on the host: each tile's batched GEMMs run through a plain
// row-major loop that reads them exactly as the kernel hands them to cuBLAS,
// with a causal softmax between them that finds each score row's query
// through row_of(), as the device softmax does. The result must be the CPU
// Attention kernel's, for every tiling: whole pairs a tile, several pairs a
// tile, and row blocks of one pair. The GPU itself checks the cuBLAS calls
// and the kernels (CudaKernelDiff); this needs no GPU.
#include "devices/cuda/kernels/attention_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "tests/devices/kernel_test_util.h"

namespace sy::testing {
namespace {

namespace ap = cuda::attention_plan;

// Exactly the semantics attention_kernels.cc's run_gemm asks of cuBLAS.
void host_gemm(const ap::BatchedGemm& g, float alpha, const float* a, const float* b, float* c) {
  for (int64_t e = 0; e < g.count; ++e) {
    const float* A = a + g.a_off + e * g.a_stride;
    const float* B = b + g.b_off + e * g.b_stride;
    float* C = c + g.c_off + e * g.c_stride;
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        double sum = 0;
        for (int64_t k = 0; k < g.k; ++k) sum += double{A[i * g.k + k]} * (g.trans_b ? B[j * g.k + k] : B[k * g.n + j]);
        C[i * g.n + j] = static_cast<float>(alpha * sum);
      }
  }
}

struct Shape {
  int64_t batch, q_heads, kv_heads, q_len, kv_len, head, v_head;
};

// Runs the plan with `budget` scores a tile; Y as [B, Hq, Sq, Dv].
std::vector<float> run_plan(const Shape& s, const std::vector<float>& q, const std::vector<float>& k,
                            const std::vector<float>& v, int64_t budget, size_t* tile_count) {
  const ap::Dims d{s.batch * s.kv_heads, s.q_heads / s.kv_heads, s.q_len, s.kv_len, s.head, s.v_head};
  const float scale = 1.f / std::sqrt(static_cast<float>(s.head));
  std::vector<float> y(static_cast<size_t>(s.batch * s.q_heads * s.q_len * s.v_head), NAN);
  const std::vector<ap::Tile> tiles = ap::plan_tiles(d, budget);
  *tile_count = tiles.size();
  std::set<std::tuple<int64_t, int64_t>> seen;  // (bh, i): every query row once
  for (const ap::Tile& t : tiles) {
    EXPECT_TRUE(t.rows(d) * d.total_len <= budget || (t.pairs == 1 && t.n == 1)) << "tile over budget";
    std::vector<float> scores(static_cast<size_t>(t.rows(d) * d.total_len), NAN);
    host_gemm(ap::qk_gemm(t, d), scale, q.data(), k.data(), scores.data());
    for (int64_t r = 0; r < t.rows(d); ++r) {
      const ap::RowOf at = ap::row_of(t, d, r);
      EXPECT_TRUE(seen.insert({at.bh, at.i}).second) << "row " << at.bh << "," << at.i << " twice";
      EXPECT_EQ(at.pair, at.bh / d.group);
      float* row = scores.data() + r * d.total_len;
      const int64_t valid = std::min(at.i + 1, d.total_len);  // causal, no past
      const float top = *std::max_element(row, row + valid);
      float sum = 0;
      for (int64_t j = 0; j < d.total_len; ++j) sum += row[j] = j < valid ? std::exp(row[j] - top) : 0.f;
      for (int64_t j = 0; j < d.total_len; ++j) row[j] /= sum;
    }
    host_gemm(ap::pv_gemm(t, d), 1.f, scores.data(), v.data(), y.data());
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(s.batch * s.q_heads * s.q_len));
  return y;
}

TEST(AttentionPlan, EveryTiling_MatchesTheCpuKernel) {
  const Shape s{2, 6, 2, 7, 7, 5, 3};  // groups of 3 query heads
  const auto q = random_floats(s.batch * s.q_heads * s.q_len * s.head, 1);
  const auto k = random_floats(s.batch * s.kv_heads * s.kv_len * s.head, 2);
  const auto v = random_floats(s.batch * s.kv_heads * s.kv_len * s.v_head, 3);
  const KernelRun cpu = run_kernel("Attention",
                                   {make_tensor<float>({s.batch, s.q_heads, s.q_len, s.head}, q),
                                    make_tensor<float>({s.batch, s.kv_heads, s.kv_len, s.head}, k),
                                    make_tensor<float>({s.batch, s.kv_heads, s.kv_len, s.v_head}, v)},
                                   1, {attr_int("is_causal", 1)}, 23);
  const std::vector<float> want = out<float>(cpu);
  const int64_t per_pair = 3 * s.q_len * s.kv_len;  // one pair's scores
  // budget -> tiles: all 4 pairs at once; 2 pairs a tile; 1; rows of 6, 2
  // and 1 per head of one pair; and less than one row.
  const std::vector<std::pair<int64_t, size_t>> budgets = {
      {4 * per_pair, 1}, {3 * per_pair, 2}, {per_pair, 4}, {per_pair - 1, 4 * 2}, {3 * 2 * 7, 4 * 4}, {21, 4 * 7},
      {1, 4 * 7}};
  for (const auto& [budget, tiles] : budgets) {
    SCOPED_TRACE("budget " + std::to_string(budget));
    size_t got_tiles = 0;
    expect_near(run_plan(s, q, k, v, budget, &got_tiles), want, 1e-5f);
    EXPECT_EQ(got_tiles, tiles);
  }
}

TEST(AttentionPlan, NoQueryRows_NoTiles) {
  EXPECT_TRUE(ap::plan_tiles({4, 2, 0, 5, 8, 8}, 1000).empty());
  EXPECT_TRUE(ap::plan_tiles({0, 2, 3, 5, 8, 8}, 1000).empty());
}

}  // namespace
}  // namespace sy::testing

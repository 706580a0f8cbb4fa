// Unit tests for the few-row product C = alpha A op(B) + beta C
// (devices/cpu/kernels/few_rows_gemm.h): B untransposed against its
// chunked chains of std::fma bit for bit, B transposed against double, and
// both the same on one core as on four.
#include "devices/cpu/kernels/few_rows_gemm.h"

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace sy::nn {
namespace {

bool have_kernel() {
  float c = 0.f;
  const float one = 1.f;
  return gemm_few_rows(false, 1, 1, 1, 1.f, &one, 1, &one, 1, 0.f, &c, 1);
}

std::vector<float> random_values(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (float& x : v) x = value(rng);
  return v;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// What gemm_few_rows() promises for B [k, n]: partial sums of
// few_rows_chunk() rows, each a chain of fused multiply-adds from 0 in k
// order, added in order, times alpha, plus beta c.
float chunked_reference(const float* a, const std::vector<float>& B, int64_t ldb, int64_t n, int64_t k, int64_t j,
                        float alpha, float beta, float c) {
  const int64_t chunk = few_rows_chunk(n, k);
  float sum = 0.f;
  for (int64_t c0 = 0; c0 < std::max<int64_t>(k, 1); c0 += chunk) {
    float part = 0.f;
    for (int64_t q = c0; q < std::min(k, c0 + chunk); ++q) part = std::fma(a[q], B[q * ldb + j], part);
    sum = c0 == 0 ? part : sum + part;
  }
  sum *= alpha;
  return beta == 0.f ? sum : std::fma(beta, c, sum);
}

// A [m, k] with row stride k + 2 and C [m, n] with row stride n + 1; the
// elements between rows must stay as they were.
struct Case {
  int64_t m, n, k, lda, ldc;
  std::vector<float> A, C0;
  Case(int64_t m_, int64_t n_, int64_t k_, std::mt19937& rng)
      : m(m_),
        n(n_),
        k(k_),
        lda(k_ + 2),
        ldc(n_ + 1),
        A(random_values(m * lda, rng)),
        C0(random_values(m * ldc, rng)) {}

  // C after gemm_few_rows() on the calling thread, which the same call on
  // four threads must give bit for bit.
  std::vector<float> product(bool trans_b, const std::vector<float>& B, int64_t ldb, float alpha, float beta,
                             tbb::task_arena& four) const {
    std::vector<float> C = C0, C4 = C0;
    EXPECT_TRUE(gemm_few_rows(trans_b, m, n, k, alpha, A.data(), lda, B.data(), ldb, beta, C.data(), ldc));
    four.execute([&] { gemm_few_rows(trans_b, m, n, k, alpha, A.data(), lda, B.data(), ldb, beta, C4.data(), ldc); });
    EXPECT_EQ(C4, C) << "m " << m << " n " << n << " k " << k << ": four cores differ from one";
    return C;
  }
};

TEST(GemmFewRows, UntransposedMatchesChunkedFmaChainsBitForBit) {
  if (!have_kernel()) GTEST_SKIP() << "this CPU has no AVX-512: sgemm multiplies few rows by oneDNN";
  std::mt19937 rng(5);
  tbb::task_arena four(4);
  // Every row count; columns in whole and partial vectors, and in whole
  // and partial blocks of 1024 (2500); rows of B of every remainder of 8,
  // one chunk and many (4096 x 300 is over the parallel threshold); a row
  // stride of B wider than n; alpha and beta both plain and not.
  for (int64_t m = 1; m <= kFewRowsMax; ++m)
    for (int64_t n : {1, 17, 100, 2500, 4096})
      for (int64_t k : {0, 1, 9, 64, 300})
        for (auto [alpha, beta] : {std::pair{1.f, 0.f}, std::pair{0.5f, 0.f}, std::pair{1.f, -1.5f}}) {
          Case t(m, n, k, rng);
          const int64_t ldb = n + 3;
          const std::vector<float> B = random_values(static_cast<size_t>(std::max<int64_t>(k, 1) * ldb), rng);
          const std::vector<float> C = t.product(false, B, ldb, alpha, beta, four);
          for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j) {
              const float want = chunked_reference(&t.A[i * t.lda], B, ldb, n, k, j, alpha, beta, t.C0[i * t.ldc + j]);
              const float got = C[i * t.ldc + j];
              ASSERT_TRUE(same_bits(got, want))
                  << "m " << m << " n " << n << " k " << k << " alpha " << alpha << " beta " << beta << " at " << i
                  << "," << j << ": " << got << " != " << want;
            }
            EXPECT_EQ(C[i * t.ldc + n], t.C0[i * t.ldc + n]) << "m " << m << " n " << n << " k " << k;
          }
        }
}

TEST(GemmFewRows, TransposedMatchesDouble) {
  if (!have_kernel()) GTEST_SKIP() << "this CPU has no AVX-512: sgemm multiplies few rows by oneDNN";
  std::mt19937 rng(6);
  tbb::task_arena four(4);
  // Every row count (eight rows of B a pass for one row of A, four for
  // more); rows of B of
  // every remainder and over the 32-row blocks; k in whole and partial
  // vectors.
  for (int64_t m = 1; m <= kFewRowsMax; ++m)
    for (int64_t n : {1, 7, 9, 33, 1000})
      for (int64_t k : {0, 1, 16, 17, 300})
        for (auto [alpha, beta] : {std::pair{1.f, 0.f}, std::pair{-2.f, 0.25f}}) {
          Case t(m, n, k, rng);
          const int64_t ldb = k + 5;
          const std::vector<float> B = random_values(static_cast<size_t>(n * ldb), rng);
          const std::vector<float> C = t.product(true, B, ldb, alpha, beta, four);
          for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j) {
              double want = 0, scale = 0;
              for (int64_t q = 0; q < k; ++q) {
                const double ab = double(t.A[i * t.lda + q]) * B[j * ldb + q];
                want += ab;
                scale += std::abs(ab);
              }
              const double c0 = t.C0[i * t.ldc + j];
              want = alpha * want + beta * c0;
              const double tol = 1e-6 * (std::abs(alpha) * scale + std::abs(beta * c0)) + 1e-30;
              ASSERT_NEAR(C[i * t.ldc + j], want, tol)
                  << "m " << m << " n " << n << " k " << k << " at " << i << "," << j;
            }
            EXPECT_EQ(C[i * t.ldc + n], t.C0[i * t.ldc + n]) << "m " << m << " n " << n << " k " << k;
          }
        }
}

// beta 0 means C is not read: a NaN already there must not survive.
TEST(GemmFewRows, BetaZeroIgnoresWhatCHeld) {
  if (!have_kernel()) GTEST_SKIP() << "this CPU has no AVX-512: sgemm multiplies few rows by oneDNN";
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (bool trans : {false, true})
    for (float alpha : {1.f, 2.f}) {
      const std::vector<float> a{1.f, 2.f}, B{1.f, 2.f, 3.f, 4.f};
      std::vector<float> c{nan, nan};
      ASSERT_TRUE(gemm_few_rows(trans, 1, 2, 2, alpha, a.data(), 2, B.data(), 2, 0.f, c.data(), 2));
      // [1 2] x [[1 2] [3 4]] = [7 10]; with B transposed, [5 11].
      EXPECT_EQ(c[0], alpha * (trans ? 5.f : 7.f));
      EXPECT_EQ(c[1], alpha * (trans ? 11.f : 10.f));
    }
}

TEST(GemmFewRows, DeclinesMoreRows) {
  const std::vector<float> a(kFewRowsMax + 1, 1.f), b{1.f};
  std::vector<float> c(kFewRowsMax + 1, -1.f);
  EXPECT_FALSE(gemm_few_rows(false, kFewRowsMax + 1, 1, 1, 1.f, a.data(), 1, b.data(), 1, 0.f, c.data(), 1));
  EXPECT_EQ(c, std::vector<float>(kFewRowsMax + 1, -1.f));
}

}  // namespace
}  // namespace sy::nn

// Unit tests for the packed C = A B^T of the recurrent kernels
// (devices/cpu/kernels/packed_gemm.h): every element against a chain of
// std::fma in k order, bit for bit.
#include "devices/cpu/kernels/packed_gemm.h"

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace sy::nn {
namespace {

TEST(PackedGemmNT, MatchesFmaChainsBitForBit) {
  PackedGemmNT probe;
  if (!probe.pack(nullptr, 0, 0)) GTEST_SKIP() << "this CPU has no AVX-512: the recurrent kernels use sgemm";
  std::mt19937 rng(11);
  tbb::task_arena four(4);
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  // Row counts of every remainder of 8, columns in whole, partial and odd
  // panels (pairs and a last single one; nine panels in four shares), k
  // from 0.
  for (int64_t m : {1, 2, 3, 4, 5, 6, 7, 8, 9, 17})
    for (int64_t n : {1, 15, 16, 17, 33, 48, 141, 512})
      for (int64_t k : {0, 1, 7, 128}) {
        std::vector<float> A(static_cast<size_t>(m * k)), B(static_cast<size_t>(n * k));
        for (float& v : A) v = value(rng);
        for (float& v : B) v = value(rng);
        PackedGemmNT g;
        ASSERT_TRUE(g.pack(B.data(), n, k));
        std::vector<float> C(static_cast<size_t>(m * n) + 1, -9.0f);  // one guard element
        g.multiply(A.data(), m, C.data());
        // B's panels in shares over four threads: the same values.
        std::vector<float> split(C.size(), -9.0f);
        four.execute([&] { g.multiply(A.data(), m, split.data(), /*split=*/true); });
        EXPECT_EQ(split, C) << "m " << m << " n " << n << " k " << k;
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            float want = 0.0f;
            for (int64_t q = 0; q < k; ++q) want = std::fma(A[i * k + q], B[j * k + q], want);
            const float got = C[static_cast<size_t>(i * n + j)];
            ASSERT_EQ(std::memcmp(&got, &want, sizeof got), 0)
                << "m " << m << " n " << n << " k " << k << " at " << i << "," << j << ": " << got << " != " << want;
          }
        EXPECT_EQ(C.back(), -9.0f) << "m " << m << " n " << n << " k " << k;
      }
}

TEST(PackedGemmNT, DeclinesWithoutVectors) {
  const float b = 1.0f;
  PackedGemmNT g;
  EXPECT_FALSE(g.pack(&b, 1, 1, /*vector=*/false));
}

}  // namespace
}  // namespace sy::nn

// Unit tests for QuantizeLinear's intrinsics loop (quantize_simd.cc): every
// element it writes must equal the scalar definition, saturate(nearbyint(x /
// scale) + zero) with NaN to 0, bit for bit, for ties, saturation, NaN,
// infinities and every tail length; and the kernel must give the same
// through its SIMD prefix and scalar tail.
#include "devices/cpu/kernels/quantize_simd.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "tests/devices/kernel_test_util.h"

namespace sy::elementwise {
namespace {

template <typename Q>
Q reference(float x, float scale, int32_t zero) {
  const float v = std::nearbyint(x / scale) + static_cast<float>(zero);
  if (std::isnan(v)) return 0;
  const float lo = std::numeric_limits<Q>::lowest(), hi = std::numeric_limits<Q>::max();
  return static_cast<Q>(std::min(hi, std::max(lo, v)));
}

// Ties (k + 0.5) * scale, values past both ends, NaN, infinities, signed
// zeros and random values, in random order.
std::vector<float> awkward_values(float scale, int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> wide(-400.f, 400.f);
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            0.f,
                            -0.f,
                            1e30f,
                            -1e30f};
  std::vector<float> x(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    switch (rng() % 4) {
      case 0:
        x[i] = (static_cast<float>(static_cast<int>(rng() % 600) - 300) + 0.5f) * scale;
        break;
      case 1:
        x[i] = specials[rng() % std::size(specials)];
        break;
      default:
        x[i] = wide(rng) * scale;
    }
  }
  return x;
}

template <typename Q>
void expect_prefix_matches(int32_t zero, bool avx512) {
  const float scales[] = {1.f, 0.37f, 3.f};
  for (float scale : scales) {
    for (int64_t n : {0, 1, 15, 16, 17, 31, 32, 33, 64, 100, 1000}) {
      const std::vector<float> x = awkward_values(scale, n, static_cast<uint32_t>(n * 31 + zero + 1000));
      std::vector<Q> o(static_cast<size_t>(n), Q(42));
      const int64_t k = quantize_prefix(x.data(), o.data(), n, scale, zero, avx512);
      ASSERT_GE(k, 0);
      ASSERT_LE(k, n);
      for (int64_t i = 0; i < k; ++i)
        ASSERT_EQ(+o[i], +reference<Q>(x[i], scale, zero))
            << "x=" << x[i] << " scale=" << scale << " zero=" << zero << " at " << i << " of " << n
            << (avx512 ? " (AVX-512)" : " (AVX2)");
      for (int64_t i = k; i < n; ++i) ASSERT_EQ(o[i], Q(42)) << "wrote past the prefix it returned, at " << i;
    }
  }
}

bool has_simd() {
  std::vector<float> x(64, 1.f);
  std::vector<uint8_t> o(64);
  return quantize_prefix(x.data(), o.data(), 64, 1.f, 0) > 0;
}

TEST(QuantizeSimd, UInt8_MatchesScalarDefinition) {
  if (!has_simd()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512: the kernel runs only its scalar loop";
  for (bool avx512 : {true, false})
    for (int32_t zero : {0, 1, 128, 254, 255}) expect_prefix_matches<uint8_t>(zero, avx512);
}

TEST(QuantizeSimd, Int8_MatchesScalarDefinition) {
  if (!has_simd()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512: the kernel runs only its scalar loop";
  for (bool avx512 : {true, false})
    for (int32_t zero : {-128, -127, -1, 0, 3, 127}) expect_prefix_matches<int8_t>(zero, avx512);
}

// Through the kernel: per-axis runs of 37 elements split into a SIMD prefix
// and a scalar tail each.
TEST(QuantizeSimd, Kernel_PerAxisRunsMatchScalarDefinition) {
  const std::vector<float> scales = {0.5f, 2.f, 0.37f};
  const std::vector<int8_t> zeros = {-3, 0, 100};
  const int64_t inner = 37;
  std::vector<float> x = awkward_values(1.f, 2 * 3 * inner, 7);
  auto r = testing::run_kernel(
      "QuantizeLinear",
      {RuntimeValue(testing::make_tensor<float>({2, 3, inner}, x)),
       RuntimeValue(testing::make_tensor<float>({3}, scales)), RuntimeValue(testing::make_tensor<int8_t>({3}, zeros))},
      1, {testing::attr_int("axis", 1)}, 13);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  const std::vector<int8_t> got = testing::out<int8_t>(r);
  ASSERT_EQ(got.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const size_t c = (i / inner) % 3;
    ASSERT_EQ(+got[i], +reference<int8_t>(x[i], scales[c], zeros[c])) << "x=" << x[i] << " at " << i;
  }
}

}  // namespace
}  // namespace sy::elementwise

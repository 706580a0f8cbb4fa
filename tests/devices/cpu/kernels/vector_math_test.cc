// The float32 unary kernels on libmvec's vector math (vector_math.h), and
// the vectorised Sqrt loop, against std:: math in double: sizes around the
// lane counts and the parallel split, and inputs across the float range
// with NaN, infinities, signed zeros, denormals and huge arguments.
#include "devices/cpu/kernels/vector_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <utility>
#include <random>
#include <string>
#include <vector>

#include "tests/devices/kernel_test_util.h"

namespace sy {
namespace {

using elementwise::vector_math;
using elementwise::VecFn;
using testing::make_tensor;
using testing::run_kernel;
using testing::to_vector;

struct Case {
  const char* op;
  double (*ref)(double);
  float lo, hi;  // where most inputs are drawn
};

const Case kCases[] = {
    {"Exp", [](double x) { return std::exp(x); }, -80, 80},
    {"Log", [](double x) { return std::log(x); }, 0, 1e6},
    {"Sin", [](double x) { return std::sin(x); }, -100, 100},
    {"Cos", [](double x) { return std::cos(x); }, -100, 100},
    {"Erf", [](double x) { return std::erf(x); }, -4, 4},
    {"Tan", [](double x) { return std::tan(x); }, -10, 10},
    {"Asin", [](double x) { return std::asin(x); }, -1, 1},
    {"Acos", [](double x) { return std::acos(x); }, -1, 1},
    {"Atan", [](double x) { return std::atan(x); }, -100, 100},
    {"Sinh", [](double x) { return std::sinh(x); }, -20, 20},
    {"Cosh", [](double x) { return std::cosh(x); }, -20, 20},
    {"Asinh", [](double x) { return std::asinh(x); }, -1e4, 1e4},
    {"Acosh", [](double x) { return std::acosh(x); }, 1, 1e4},
    {"Atanh", [](double x) { return std::atanh(x); }, -1, 1},
    {"Tanh", [](double x) { return std::tanh(x); }, -10, 10},
    {"Sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }, -30, 30},
    {"Sqrt", [](double x) { return std::sqrt(x); }, 0, 1e6},
    // On expm1 (split_loop), with their default attributes.
    {"Elu", [](double x) { return x < 0 ? std::expm1(x) : x; }, -20, 5},
    {"Selu", [](double x) { return 1.05070102214813232421875 * (x <= 0 ? 1.67326319217681884765625 * std::expm1(x) : x); },
     -20, 5},
    {"Celu", [](double x) { return std::max(x, 0.0) + std::min(std::expm1(x), 0.0); }, -20, 5},  // NaN stays
    // On exp then log1p.
    {"Softplus", [](double x) { return std::max(0.0, x) + std::log1p(std::exp(-std::abs(x))); }, -30, 30},
};

std::vector<float> inputs(const Case& c, size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(c.lo, c.hi);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const float edges[] = {nan, inf,  -inf,   0.f,   -0.f,   1e-40f, -1e-40f, 88.f,  89.f,
                         -87.f, -104.f, 3e38f, -3e38f, 1e10f, 1e-5f, -1.f,   0.5f};
  for (size_t i = 0; i < std::size(edges) && i < n; ++i) v[(i * 7919) % n] = edges[i];
  return v;
}

// Within 1e-6 relative (libmvec is within 2e-7), with denormal-sized
// absolute slack; NaN where the reference is NaN, and nowhere else.
std::string mismatch(const Case& c, const std::vector<float>& in, const std::vector<float>& got) {
  for (size_t i = 0; i < in.size(); ++i) {
    const double want = c.ref(static_cast<double>(in[i]));
    const float w = static_cast<float>(want);
    if (std::isnan(w) != std::isnan(got[i]) ||
        (!std::isnan(w) && w != got[i] && !(std::abs(got[i] - want) <= 1e-6 * std::abs(want) + 1e-37)))
      return std::string(c.op) + "(" + std::to_string(in[i]) + ") = " + std::to_string(got[i]) + ", want " +
             std::to_string(w) + " (element " + std::to_string(i) + " of " + std::to_string(in.size()) + ")";
  }
  return "";
}

// Through the kernels: lane remainders (1, 7, 9, 17), a size past the parallel
// split with a tail, and the scalar loops where there is no libmvec.
TEST(VectorMath, UnaryKernels_MatchStdMath_AtEverySize) {
  for (const Case& c : kCases) {
    for (int64_t n : {int64_t{1}, int64_t{7}, int64_t{9}, int64_t{17}, int64_t{1000}, (int64_t{1} << 17) + 3}) {
      const std::vector<float> in = inputs(c, static_cast<size_t>(n), static_cast<uint32_t>(n));
      auto r = run_kernel(c.op, {make_tensor<float>({n}, in)}, 1, {}, 13);
      ASSERT_TRUE(r.status.ok()) << c.op << ": " << r.status.to_string();
      EXPECT_EQ(mismatch(c, in, to_vector<float>(r.outputs[0].tensor())), "") << "n=" << n;
    }
  }
}

// In place, as the header allows; the sigmoid goes through a buffer.
TEST(VectorMath, InPlace_MatchesStdMath) {
  const Case& sigmoid = *std::find_if(std::begin(kCases), std::end(kCases),
                                      [](const Case& c) { return std::string(c.op) == "Sigmoid"; });
  std::vector<float> v = inputs(sigmoid, 1000, 3);
  const std::vector<float> in = v;
  if (!vector_math(VecFn::kSigmoid, v.data(), v.data(), static_cast<int64_t>(v.size())))
    GTEST_SKIP() << "no libmvec here (not x86-64 glibc): the kernels run their scalar loops";
  EXPECT_EQ(mismatch(sigmoid, in, v), "");
}

// How many units in the last place of `want` (rounded to float; the
// denormal spacing below the normal range) `got` is from it.
double ulps(float got, double want) {
  const float w = static_cast<float>(want);
  if (std::isinf(w) || std::isinf(got)) return w == got ? 0 : std::numeric_limits<double>::infinity();
  const double spacing = std::max(static_cast<double>(std::nextafter(std::abs(w), INFINITY) - std::abs(w)),
                                  static_cast<double>(std::numeric_limits<float>::denorm_min()));
  return std::abs(static_cast<double>(got) - want) / spacing;
}

// With AVX-512, exp, tanh, log and erf are our own (exp within 0.89 ulp
// when measured, log 0.85, erf 1.23, tanh 2.75); elsewhere libmvec's,
// which glibc documents to 4 ulp.
bool own_math() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}
double exp_ulp_bound() { return own_math() ? 1.0 : 4.0; }
double tanh_ulp_bound() { return own_math() ? 3.0 : 4.0; }

// The worst distance in ulps of f over a million points evenly in
// [lo, hi] and tiny arguments of both signs, against ref in double; the
// argument where it occurs. Empty when vector_math lacks f.
std::optional<std::pair<double, float>> worst_ulps(VecFn f, double (*ref)(double), float lo, float hi) {
  constexpr int kPoints = 1 << 20;
  std::vector<float> x;
  for (int i = 0; i <= kPoints; ++i) x.push_back(lo + (hi - lo) * static_cast<float>(i) / kPoints);
  for (float t = 1e-30f; t < 1.f; t *= 3.f) x.insert(x.end(), {t, -t});
  std::vector<float> y(x.size());
  if (!vector_math(f, x.data(), y.data(), static_cast<int64_t>(x.size()))) return std::nullopt;
  std::pair<double, float> worst{0, 0};
  for (size_t i = 0; i < x.size(); ++i) {
    const double u = ulps(y[i], ref(static_cast<double>(x[i])));
    if (u > worst.first) worst = {u, x[i]};
  }
  return worst;
}

// From below exp's underflow to zero (-104) to past its overflow to inf
// (89), through the denormal results below -87.3: the range reduction and
// the scaling by 2^n at every exponent. Tanh over [-10, 10], where it
// reaches 1, and near 0, where e^(2x) - 1 must not cancel.
TEST(VectorMath, ExpAndTanh_DenseSweep_WithinUlpBound) {
  const auto exp = worst_ulps(VecFn::kExp, [](double v) { return std::exp(v); }, -105.f, 90.f);
  if (!exp) GTEST_SKIP() << "no libmvec here (not x86-64 glibc): Exp and Tanh run their scalar std:: loops";
  EXPECT_LE(exp->first, exp_ulp_bound()) << "exp(" << exp->second << ")";
  const auto tanh = worst_ulps(VecFn::kTanh, [](double v) { return std::tanh(v); }, -10.f, 10.f);
  ASSERT_TRUE(tanh.has_value());
  EXPECT_LE(tanh->first, tanh_ulp_bound()) << "tanh(" << tanh->second << ")";
}

// Log over every 4099th positive float bit pattern (each binade, denormals
// included) and a million points of [0.5, 2], where the mantissa is
// brought to [sqrt(1/2), sqrt(2)): ours on AVX-512 (within 0.85 ulp on all
// floats when measured), libmvec's elsewhere.
TEST(VectorMath, Log_EveryBinade_WithinUlpBound) {
  const auto dense = worst_ulps(VecFn::kLog, [](double v) { return std::log(v); }, 0.5f, 2.f);
  if (!dense) GTEST_SKIP() << "no libmvec here (not x86-64 glibc): Log runs its scalar std:: loop";
  EXPECT_LE(dense->first, own_math() ? 1.0 : 4.0) << "log(" << dense->second << ")";
  std::vector<float> x;
  for (uint32_t bits = 1; bits < 0x7F800000u; bits += 4099) {
    float v;
    std::memcpy(&v, &bits, sizeof v);
    x.push_back(v);
  }
  std::vector<float> y(x.size());
  ASSERT_TRUE(vector_math(VecFn::kLog, x.data(), y.data(), static_cast<int64_t>(x.size())));
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_LE(ulps(y[i], std::log(static_cast<double>(x[i]))), own_math() ? 1.0 : 4.0) << "log(" << x[i] << ")";
}

// Erf densely over [-4.5, 4.5] (both polynomials, the switch between them
// at 1.05 and the step to 1 at 3.92) and at every 4099th bit pattern of
// either sign (denormals, where |x| + |x| P(x^2) must not lose the tiny
// ones, and huge values): ours on AVX-512 (within 1.23 ulp on all floats
// when measured), libmvec's elsewhere. The edges exactly: the sign of
// zero, +-1 at the infinities, NaN.
TEST(VectorMath, Erf_EveryBinade_WithinUlpBound) {
  const double bound = own_math() ? 1.25 : 4.0;
  const auto dense = worst_ulps(
      VecFn::kErf, [](double v) { return std::erf(v); }, -4.5f, 4.5f);
  if (!dense) GTEST_SKIP() << "no libmvec here (not x86-64 glibc): Erf runs its scalar std:: loop";
  EXPECT_LE(dense->first, bound) << "erf(" << dense->second << ")";
  std::vector<float> x;
  for (uint32_t bits = 1; bits < 0x7F800000u; bits += 4099) {
    float v;
    std::memcpy(&v, &bits, sizeof v);
    x.insert(x.end(), {v, -v});
  }
  const float inf = std::numeric_limits<float>::infinity();
  x.insert(x.end(), {0.f, -0.f, inf, -inf, std::numeric_limits<float>::quiet_NaN()});
  std::vector<float> y(x.size());
  ASSERT_TRUE(vector_math(VecFn::kErf, x.data(), y.data(), static_cast<int64_t>(x.size())));
  const size_t edges = x.size() - 5;
  for (size_t i = 0; i < edges; ++i)
    ASSERT_LE(ulps(y[i], std::erf(static_cast<double>(x[i]))), bound) << "erf(" << x[i] << ")";
  EXPECT_TRUE(y[edges] == 0.f && !std::signbit(y[edges]));
  EXPECT_TRUE(y[edges + 1] == 0.f && std::signbit(y[edges + 1]));
  EXPECT_EQ(y[edges + 2], 1.f);
  EXPECT_EQ(y[edges + 3], -1.f);
  EXPECT_TRUE(std::isnan(y[edges + 4]));
}

// exp_shifted_sum at every length up to 40 (the vector blocks of 32 and
// 16 and the masked tail) and past them, in place and apart: each element
// as exp(x - shift) and the sum against a sum in double.
TEST(VectorMath, ExpShiftedSum_MatchesExpAndSum) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-30.f, 10.f);
  for (int64_t n : {0, 1, 2, 7, 15, 16, 17, 31, 32, 33, 40, 1000}) {
    std::vector<float> x(static_cast<size_t>(n));
    for (float& v : x) v = u(rng);
    for (bool in_place : {false, true}) {
      std::vector<float> y(x.size(), -1.f), keep = x;
      float* out = in_place ? keep.data() : y.data();
      const float shift = 3.5f;
      const float s = elementwise::exp_shifted_sum(keep.data(), shift, out, n);
      double want_sum = 0;
      for (int64_t i = 0; i < n; ++i) {
        const double want = std::exp(static_cast<double>(x[static_cast<size_t>(i)] - shift));
        want_sum += want;
        EXPECT_LE(ulps(out[i], want), exp_ulp_bound()) << "n=" << n << " i=" << i << " in place " << in_place;
      }
      EXPECT_NEAR(s, want_sum, 1e-6 * want_sum) << "n=" << n << " in place " << in_place;
    }
  }
  // A NaN turns the sum NaN (Softmax's row then comes out NaN); an infinite
  // shift with an infinite element gives exp(NaN).
  std::vector<float> x = {1.f, std::numeric_limits<float>::quiet_NaN(), 2.f}, y(3);
  EXPECT_TRUE(std::isnan(elementwise::exp_shifted_sum(x.data(), 0.f, y.data(), 3)));
  EXPECT_FLOAT_EQ(y[0], std::exp(1.f));
  EXPECT_TRUE(std::isnan(y[1]));
}

// Every length up to 150 (the AVX-512 blocks of 64, the SSE blocks of 16
// and the scalar tail), with a NaN at every position and a lone largest
// and smallest element that move with it.
TEST(VectorMath, MaxMinSkippingNan_MatchScalarScan) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (int64_t n = 0; n <= 150; ++n) {
    for (int64_t at = -1; at < n; ++at) {  // at: where the NaN goes (-1: none)
      std::vector<float> x(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = static_cast<float>((i * 7) % 11) - 5.f;
      if (n > 2) {
        x[static_cast<size_t>((at + 1 + n / 2) % n)] = 100.f;
        x[static_cast<size_t>((at + 2 + n / 2) % n)] = -100.f;
      }
      if (at >= 0) x[static_cast<size_t>(at)] = nan;
      float want_max = -inf, want_min = inf;
      for (float v : x) {
        if (v > want_max) want_max = v;
        if (v < want_min) want_min = v;
      }
      bool saw_max = !(at >= 0), saw_min = !(at >= 0);  // flipped so a missed write shows
      EXPECT_EQ(elementwise::max_skipping_nan(x.data(), n, &saw_max), want_max) << n << " " << at;
      EXPECT_EQ(elementwise::min_skipping_nan(x.data(), n, &saw_min), want_min) << n << " " << at;
      EXPECT_EQ(saw_max, at >= 0) << n << " " << at;
      EXPECT_EQ(saw_min, at >= 0) << n << " " << at;
    }
  }
}

// Rows whose extreme is zero, with zeros of both signs: the AVX-512 blocks
// then scan their lanes in order instead of reducing them (which lane wins
// a tie decides the zero's sign); the value is the scalar scan's.
TEST(VectorMath, MaxMinSkippingNan_ZeroExtremes) {
  for (int64_t n : {64, 65, 100, 128, 150}) {
    std::vector<float> below(static_cast<size_t>(n)), above(below.size());
    for (int64_t i = 0; i < n; ++i) {
      const float v = static_cast<float>((i * 7) % 11);
      below[static_cast<size_t>(i)] = v == 0 ? (i % 2 ? -0.f : 0.f) : -v;
      above[static_cast<size_t>(i)] = v == 0 ? (i % 2 ? 0.f : -0.f) : v;
    }
    bool nan = true;
    EXPECT_EQ(elementwise::max_skipping_nan(below.data(), n, &nan), 0.f) << n;
    EXPECT_FALSE(nan);
    EXPECT_EQ(elementwise::min_skipping_nan(above.data(), n, &nan), 0.f) << n;
    EXPECT_FALSE(nan);
    below[static_cast<size_t>(n - 1)] = 3.f;  // now a nonzero extreme, reduced in vectors
    EXPECT_EQ(elementwise::max_skipping_nan(below.data(), n, &nan), 3.f) << n;
  }
}

}  // namespace
}  // namespace sy

// Unit tests for the CPU elementwise kernel family. Expected values are hand
// calculations or numpy results hard-coded here.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "devices/broadcast.h"
#include "devices/cpu/cpu_kernels.h"
#include "tests/devices/kernel_test_util.h"

namespace sy {
namespace {

using testing::attr_float;
using testing::attr_int;
using testing::attr_string;
using testing::make_tensor;
using testing::out;
using testing::out_dims;
using testing::run_kernel;
using testing::to_vector;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

RuntimeValue T(const Tensor& t) { return RuntimeValue(t); }

template <typename V>
Tensor F(const Dims& d, std::vector<V> v) {
  return make_tensor<V>(d, v);
}

Tensor F16(const Dims& d, const std::vector<float>& v) {
  std::vector<Float16> h;
  for (float f : v) h.push_back(Float16(f));
  return make_tensor<Float16>(d, h);
}

// Finds the kernel without filtering on the input type, so the kernel's own
// compute-time type checks are exercised.
testing::KernelRun run_untyped(const std::string& op, std::vector<RuntimeValue> inputs, size_t num_outputs,
                               std::vector<Attribute> attrs = {}, int opset = 17) {
  return testing::run_kernel(op, std::move(inputs), num_outputs, std::move(attrs), opset, "", false);
}

void expect_near(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-5f) {
  testing::expect_near(got, want, tol);
}

std::vector<float> unary_f(const std::string& op, const std::vector<float>& x, std::vector<Attribute> attrs = {},
                           int opset = 17) {
  auto r = run_kernel(op, {T(F<float>({static_cast<int64_t>(x.size())}, x))}, 1, std::move(attrs), opset);
  return out<float>(r);
}

const std::vector<float> kX = {-2.f, -0.5f, 0.f, 0.5f, 2.f};

// ---- binary arithmetic & broadcasting ----------------------------------------

TEST(Elementwise, Add_SameShape) {
  auto r = run_kernel("Add", {T(F<float>({2, 2}, {1, 2, 3, 4})), T(F<float>({2, 2}, {10, 20, 30, 40}))}, 1);
  EXPECT_EQ(out<float>(r), (std::vector<float>{11, 22, 33, 44}));
  EXPECT_EQ(out_dims(r), (Dims{2, 2}));
}

TEST(Elementwise, Add_BroadcastsRowVector) {
  auto r = run_kernel("Add", {T(F<float>({2, 3}, {1, 2, 3, 4, 5, 6})), T(F<float>({3}, {10, 20, 30}))}, 1);
  EXPECT_EQ(out<float>(r), (std::vector<float>{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(out_dims(r), (Dims{2, 3}));
}

TEST(Elementwise, Add_BroadcastsColumnAgainstRow) {
  auto r = run_kernel("Add", {T(F<int32_t>({3, 1}, {1, 2, 3})), T(F<int32_t>({1, 4}, {10, 20, 30, 40}))}, 1);
  EXPECT_EQ(out<int32_t>(r), (std::vector<int32_t>{11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43}));
  EXPECT_EQ(out_dims(r), (Dims{3, 4}));
}

TEST(Elementwise, Add_ScalarOperandEitherSide) {
  auto r = run_kernel("Add", {T(F<double>({}, {0.5})), T(F<double>({3}, {1, 2, 3}))}, 1);
  EXPECT_EQ(out<double>(r), (std::vector<double>{1.5, 2.5, 3.5}));
  auto r2 = run_kernel("Sub", {T(F<double>({3}, {1, 2, 3})), T(F<double>({1}, {1}))}, 1);
  EXPECT_EQ(out<double>(r2), (std::vector<double>{0, 1, 2}));
}

TEST(Elementwise, Add_SingleElementHotPath) {
  auto a = T(F<float>({1}, {1.5f}));
  auto b = T(F<float>({1}, {2.25f}));
  for (int i = 0; i < 1000; ++i) {
    auto r = run_kernel("Add", {a, b}, 1);
    ASSERT_TRUE(r.status.ok());
    ASSERT_EQ(r.outputs[0].tensor().data<float>()[0], 3.75f);
  }
}

TEST(Elementwise, Mul_StridedMiddleBroadcast) {
  // [2,1,3] * [1,2,1] -> [2,2,3]: neither operand is flat.
  auto r = run_kernel("Mul", {T(F<int64_t>({2, 1, 3}, {1, 2, 3, 4, 5, 6})), T(F<int64_t>({1, 2, 1}, {10, 100}))}, 1);
  EXPECT_EQ(out<int64_t>(r),
            (std::vector<int64_t>{10, 20, 30, 100, 200, 300, 40, 50, 60, 400, 500, 600}));
  EXPECT_EQ(out_dims(r), (Dims{2, 2, 3}));
}

TEST(Elementwise, Add_LargeBroadcastRunsInParallelCorrectly) {
  const int64_t rows = 513, cols = 257;  // > 64K elements: oneTBB path
  std::vector<float> a(rows * cols), b(cols);
  for (int64_t i = 0; i < rows * cols; ++i) a[i] = static_cast<float>(i % 1000);
  for (int64_t j = 0; j < cols; ++j) b[j] = static_cast<float>(j) * 0.5f;
  auto r = run_kernel("Add", {T(F<float>({rows, cols}, a)), T(F<float>({cols}, b))}, 1);
  auto got = out<float>(r);
  ASSERT_EQ(got.size(), a.size());
  for (int64_t i = 0; i < rows * cols; ++i) ASSERT_EQ(got[i], a[i] + b[i % cols]) << i;
  // Column broadcast too (strided general loop under parallel split).
  std::vector<float> c(rows);
  for (int64_t i = 0; i < rows; ++i) c[i] = static_cast<float>(i);
  auto r2 = run_kernel("Sub", {T(F<float>({rows, cols}, a)), T(F<float>({rows, 1}, c))}, 1);
  auto got2 = out<float>(r2);
  ASSERT_EQ(got2.size(), a.size());
  for (int64_t i = 0; i < rows * cols; ++i) ASSERT_EQ(got2[i], a[i] - c[i / cols]) << i;
}

// Random shapes (rank 0..10, so Dims also spill to the heap) against a naive
// index computation: exercises dim collapsing and the strided loop.
TEST(Elementwise, Add_RandomBroadcastShapesMatchNaive) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 300; ++iter) {
    const size_t rank = rng() % 11;
    Dims od = Dims::of_rank(rank), ad, bd;
    for (size_t i = 0; i < rank; ++i) od[i] = 1 + rng() % (rank > 6 ? 2 : 4);
    // Each operand: a suffix of od with some dims set to 1.
    auto make = [&](Dims* d) {
      size_t r = rng() % (rank + 1);
      *d = Dims::of_rank(r);
      for (size_t i = 0; i < r; ++i) (*d)[i] = rng() % 3 == 0 ? 1 : od[rank - r + i];
    };
    make(&ad);
    make(&bd);
    std::vector<int32_t> av(static_cast<size_t>(ad.numel())), bv(static_cast<size_t>(bd.numel()));
    for (auto& v : av) v = static_cast<int32_t>(rng() % 1000);
    for (auto& v : bv) v = static_cast<int32_t>(rng() % 1000) * 1000;
    auto r = run_kernel("Add", {T(F<int32_t>(ad, av)), T(F<int32_t>(bd, bv))}, 1);
    ASSERT_TRUE(r.status.ok()) << r.status.to_string();
    const Tensor& o = r.outputs[0].tensor();
    // Expected output dims: broadcast of ad and bd.
    auto want_dims = broadcast_dims(ad, bd);
    ASSERT_TRUE(want_dims.ok());
    ASSERT_EQ(o.dims(), *want_dims);
    const Dims& wd = *want_dims;
    Dims as = broadcast_strides(ad, wd), bs = broadcast_strides(bd, wd);
    for (int64_t i = 0; i < o.numel(); ++i) {
      int64_t rem = i, ao = 0, bo = 0;
      for (size_t k = wd.size(); k-- > 0;) {
        int64_t idx = rem % wd[k];
        rem /= wd[k];
        ao += idx * as[k];
        bo += idx * bs[k];
      }
      ASSERT_EQ(o.data<int32_t>()[i], av[static_cast<size_t>(ao)] + bv[static_cast<size_t>(bo)])
          << "iter " << iter << " a" << ad.to_string() << " b" << bd.to_string() << " at " << i;
    }
  }
}

TEST(Elementwise, Add_Int8Wraps) {
  auto r = run_kernel("Add", {T(F<int8_t>({2}, {127, -128})), T(F<int8_t>({2}, {1, -1}))}, 1);
  EXPECT_EQ(out<int8_t>(r), (std::vector<int8_t>{-128, 127}));
}

TEST(Elementwise, Add_Float16AndBFloat16) {
  auto r = run_kernel("Add", {T(F16({2}, {1.5f, -2.f})), T(F16({2}, {0.25f, 4.f}))}, 1);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.outputs[0].tensor().dtype(), DataType::kFloat16);
  EXPECT_EQ(static_cast<float>(r.outputs[0].tensor().data<Float16>()[0]), 1.75f);
  EXPECT_EQ(static_cast<float>(r.outputs[0].tensor().data<Float16>()[1]), 2.f);
  auto rb = run_kernel("Mul", {T(F<BFloat16>({1}, {BFloat16(3.f)})), T(F<BFloat16>({1}, {BFloat16(-0.5f)}))}, 1);
  ASSERT_TRUE(rb.status.ok());
  EXPECT_EQ(static_cast<float>(rb.outputs[0].tensor().data<BFloat16>()[0]), -1.5f);
}

// Over 1000 elements, which take the vector (libmvec) path, as well as
// the five above, which may not.
TEST(Elementwise, Gelu_LongInputMatchesTheFormula) {
  std::vector<float> x(1000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = -6.f + 12.f * static_cast<float>(i) / 999.f;
  const std::vector<float> erf_form = unary_f("Gelu", x, {}, 20);
  const std::vector<float> tanh_form = unary_f("Gelu", x, {attr_string("approximate", "tanh")}, 20);
  ASSERT_EQ(erf_form.size(), x.size());
  ASSERT_EQ(tanh_form.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double v = x[i];
    EXPECT_NEAR(erf_form[i], 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))), 1e-5) << v;
    EXPECT_NEAR(tanh_form[i], 0.5 * v * (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v))), 1e-5) << v;
  }
}

TEST(Elementwise, Gelu_UnknownApproximationFails) {
  auto r = run_kernel("Gelu", {T(F<float>({1}, {1}))}, 1, {attr_string("approximate", "sigmoid")}, 20);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("approximate"), std::string::npos) << r.status.message();
}

// Opset 19 compares strings, broadcasting as for numbers.
TEST(Elementwise, Equal_Strings) {
  auto r = run_kernel("Equal",
                      {T(F<std::string>({2, 2}, {"a", "b", "", "d"})), T(F<std::string>({2}, {"a", ""}))}, 1, {}, 19);
  EXPECT_EQ(out<bool>(r), (std::vector<bool>{true, false, false, false}));
}

TEST(Elementwise, Add_MismatchedShapesFail) {
  auto r = run_kernel("Add", {T(F<float>({2, 3}, {1, 2, 3, 4, 5, 6})), T(F<float>({2}, {1, 2}))}, 1);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("broadcast"), std::string::npos) << r.status.message();
}

TEST(Elementwise, Add_MixedTypesFail) {
  auto r = run_kernel("Add", {T(F<float>({1}, {1})), T(F<int32_t>({1}, {1}))}, 1);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
}

TEST(Elementwise, Add_MissingInputFails) {
  auto r = run_kernel("Add", {T(F<float>({1}, {1})), RuntimeValue()}, 1);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
}

TEST(Elementwise, Add_UnsupportedTypeIsUnimplemented) {
  auto r = run_untyped("Add", {T(F<bool>({1}, {true})), T(F<bool>({1}, {true}))}, 1);
  EXPECT_EQ(r.status.code(), StatusCode::kUnimplemented) << r.status.to_string();
  auto r2 = run_untyped("Sqrt", {T(F<int32_t>({1}, {4}))}, 1);
  EXPECT_EQ(r2.status.code(), StatusCode::kUnimplemented);
}

TEST(Elementwise, Add_LegacyBroadcastAxis) {
  // Opset 6: B of shape [3] aligned to axis 0 of A [3,2].
  auto r = run_kernel("Add", {T(F<float>({3, 2}, {1, 2, 3, 4, 5, 6})), T(F<float>({3}, {10, 20, 30}))}, 1,
                      {attr_int("broadcast", 1), attr_int("axis", 0)}, 6);
  EXPECT_EQ(out<float>(r), (std::vector<float>{11, 12, 23, 24, 35, 36}));
}

TEST(Elementwise, Div_IntegerTruncatesAndZeroDivisorIsDefined) {
  auto r = run_kernel("Div", {T(F<int32_t>({4}, {7, -7, 5, std::numeric_limits<int32_t>::min()})),
                              T(F<int32_t>({4}, {2, 2, 0, -1}))},
                      1);
  EXPECT_EQ(out<int32_t>(r), (std::vector<int32_t>{3, -3, 0, std::numeric_limits<int32_t>::min()}));
  auto rf = run_kernel("Div", {T(F<float>({2}, {1, -1})), T(F<float>({2}, {0, 4}))}, 1);
  expect_near(out<float>(rf), {kInf, -0.25f});
}

TEST(Elementwise, Mod_IntegerFollowsDivisorSign) {
  // numpy.mod([-4, 7, 5, -3], [3, -3, 2, -2]) = [2, -2, 1, -1]
  auto r = run_kernel("Mod", {T(F<int32_t>({4}, {-4, 7, 5, -3})), T(F<int32_t>({4}, {3, -3, 2, -2}))}, 1);
  EXPECT_EQ(out<int32_t>(r), (std::vector<int32_t>{2, -2, 1, -1}));
}

TEST(Elementwise, Mod_FmodFollowsDividendSign) {
  // numpy.fmod([-4.5, 7, 5, -3], [3, -3, 2, -2]) = [-1.5, 1, 1, -1]
  auto r = run_kernel("Mod", {T(F<float>({4}, {-4.5f, 7, 5, -3})), T(F<float>({4}, {3, -3, 2, -2}))}, 1,
                      {attr_int("fmod", 1)});
  expect_near(out<float>(r), {-1.5f, 1, 1, -1});
  auto ri = run_kernel("Mod", {T(F<int64_t>({3}, {-4, 7, 1})), T(F<int64_t>({3}, {3, -3, 0}))}, 1,
                       {attr_int("fmod", 1)});
  EXPECT_EQ(out<int64_t>(ri), (std::vector<int64_t>{-1, 1, 0}));
}

// Float fmod goes by a - trunc(a / b) b (exact_fmod) where the quotient
// is under 2^23: bit for bit std::fmod's, -0 and NaN included, on random
// bit patterns, quotients a ulp either side of integers, quotients either
// side of 2^23, denormals, zeros, infinities and NaNs; fmod=0 too.
TEST(Elementwise, Mod_FloatMatchesStdFmodBitForBit) {
  std::mt19937 rng(11);
  std::vector<float> a, b;
  auto add = [&](float x, float y) {
    a.push_back(x);
    b.push_back(y);
  };
  std::uniform_int_distribution<uint32_t> bits;
  std::uniform_real_distribution<float> unit(-4.f, 4.f);
  std::uniform_int_distribution<int> k(1, 1 << 24), e(-30, 30);
  for (int i = 0; i < 20000; ++i) {
    const uint32_t ua = bits(rng), ub = bits(rng);
    add(std::bit_cast<float>(ua), std::bit_cast<float>(ub));
    add(unit(rng), unit(rng));
    const float y = std::ldexp(unit(rng), e(rng)), x = static_cast<float>(k(rng)) * y;
    add(x, y);
    add(std::nextafter(x, 0.f), y);
    add(std::nextafter(x, 2 * x), -y);
    add(-x, std::ldexp(y, -(i % 12)));
  }
  const float specials[] = {0.f, -0.f, 1e-45f, -3e-39f, 1.f, -2.5f, 8388608.f, 8388609.f, 3e38f, kInf, -kInf, kNaN};
  for (float x : specials)
    for (float y : specials) add(x, y);
  const int64_t n = static_cast<int64_t>(a.size());
  for (int64_t fmod_attr : {1, 0}) {
    auto r = run_kernel("Mod", {T(F<float>({n}, a)), T(F<float>({n}, b))}, 1, {attr_int("fmod", fmod_attr)});
    ASSERT_TRUE(r.status.ok()) << r.status.to_string();
    const std::vector<float> got = out<float>(r);
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; ++i) {
      float want = std::fmod(a[i], b[i]);
      if (!fmod_attr && want != 0 && (want < 0) != (b[i] < 0)) want += b[i];
      const bool same =
          std::isnan(want) ? std::isnan(got[i]) : std::bit_cast<uint32_t>(want) == std::bit_cast<uint32_t>(got[i]);
      if (!same && ++wrong <= 5)
        ADD_FAILURE() << "fmod=" << fmod_attr << ": " << a[i] << " mod " << b[i] << " gave " << got[i] << ", want "
                      << want;
    }
    EXPECT_EQ(wrong, 0) << "of " << n << ", fmod=" << fmod_attr;
  }
}

TEST(Elementwise, Mod_BadFmodAttrFails) {
  auto r = run_kernel("Mod", {T(F<int32_t>({1}, {1})), T(F<int32_t>({1}, {1}))}, 1, {attr_int("fmod", 2)});
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
}

TEST(Elementwise, Pow_FloatAndMixedTypes) {
  auto r = run_kernel("Pow", {T(F<float>({3}, {1, 2, 3})), T(F<float>({3}, {4, 5, 0.5f}))}, 1);
  expect_near(out<float>(r), {1, 32, 1.7320508f});
  auto ri = run_kernel("Pow", {T(F<int64_t>({3}, {2, -3, 10})), T(F<int64_t>({3}, {10, 3, 0}))}, 1);
  EXPECT_EQ(out<int64_t>(ri), (std::vector<int64_t>{1024, -27, 1}));
  auto rm = run_kernel("Pow", {T(F<int32_t>({3}, {1, 2, 3})), T(F<float>({3}, {4, 5, 6}))}, 1);
  EXPECT_EQ(out<int32_t>(rm), (std::vector<int32_t>{1, 32, 729}));
  auto rf = run_kernel("Pow", {T(F<float>({2, 2}, {1, 2, 3, 4})), T(F<int64_t>({}, {2}))}, 1);
  expect_near(out<float>(rf), {1, 4, 9, 16});
}

// A scalar exponent of 2, 3, 1, -1 or 0.5 (float or double) takes a
// product, a square root or a reciprocal instead of powf: the same results
// as std::pow on signed zeros, infinities, NaN, negatives and denormals
// (x^3 within 1 ulp: two roundings against powf's one). A [1, 1] exponent
// against a vector broadcasts to a new shape and goes the general way.
TEST(Elementwise, Pow_ScalarExponentShortcuts_MatchStdPow) {
  const std::vector<float> x = {0.f, -0.f, kInf, -kInf, kNaN, 1.f, -1.f, 2.5f, -3.25f, 1e-40f, -1e-40f, 1e20f, -7e-20f, 3e38f};
  for (double e : {2.0, 3.0, 1.0, -1.0, 0.5}) {
    for (bool as_double : {false, true}) {
      const Tensor exponent = as_double ? F<double>({}, {e}) : F<float>({}, {static_cast<float>(e)});
      auto r = run_kernel("Pow", {T(F<float>({static_cast<int64_t>(x.size())}, x)), T(exponent)}, 1);
      ASSERT_TRUE(r.status.ok()) << r.status.to_string();
      const std::vector<float> got = out<float>(r);
      for (size_t i = 0; i < x.size(); ++i) {
        const float want = std::pow(x[i], static_cast<float>(e));
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(got[i])) << x[i] << "^" << e;
        } else if (e == 3 && std::isfinite(want) && want != 0) {
          EXPECT_NEAR(got[i], want, std::abs(want) * 2.4e-7f) << x[i] << "^" << e;
        } else {
          EXPECT_EQ(got[i], want) << x[i] << "^" << e;
          EXPECT_EQ(std::signbit(got[i]), std::signbit(want)) << x[i] << "^" << e;
        }
      }
    }
  }
  auto b = run_kernel("Pow", {T(F<float>({3}, {1, 2, 3})), T(F<float>({1, 1}, {2}))}, 1);
  ASSERT_TRUE(b.status.ok()) << b.status.to_string();
  EXPECT_EQ(b.outputs[0].tensor().dims(), (Dims{1, 3}));
  EXPECT_EQ(out<float>(b), (std::vector<float>{1, 4, 9}));
  auto other = run_kernel("Pow", {T(F<float>({2}, {4, -8})), T(F<float>({}, {1.5f}))}, 1);
  ASSERT_TRUE(other.status.ok());
  EXPECT_FLOAT_EQ(out<float>(other)[0], 8.f);
  EXPECT_TRUE(std::isnan(out<float>(other)[1]));
}

TEST(Elementwise, BitShift_LeftAndRight) {
  auto l = run_kernel("BitShift", {T(F<uint8_t>({3}, {16, 4, 1})), T(F<uint8_t>({3}, {1, 2, 9}))}, 1,
                      {attr_string("direction", "LEFT")});
  EXPECT_EQ(out<uint8_t>(l), (std::vector<uint8_t>{32, 16, 0}));
  auto rr = run_kernel("BitShift", {T(F<uint32_t>({3}, {16, 4, 1})), T(F<uint32_t>({}, {2}))}, 1,
                       {attr_string("direction", "RIGHT")});
  EXPECT_EQ(out<uint32_t>(rr), (std::vector<uint32_t>{4, 1, 0}));
  auto bad = run_kernel("BitShift", {T(F<uint8_t>({1}, {1})), T(F<uint8_t>({1}, {1}))}, 1,
                        {attr_string("direction", "UP")});
  EXPECT_EQ(bad.status.code(), StatusCode::kInvalidArgument);
}

TEST(Elementwise, Bitwise_AndOrXorNot) {
  auto a = T(F<int32_t>({2}, {12, -1}));
  auto b = T(F<int32_t>({2}, {10, 5}));
  EXPECT_EQ(out<int32_t>(run_kernel("BitwiseAnd", {a, b}, 1, {}, 18)), (std::vector<int32_t>{8, 5}));
  EXPECT_EQ(out<int32_t>(run_kernel("BitwiseOr", {a, b}, 1, {}, 18)), (std::vector<int32_t>{14, -1}));
  EXPECT_EQ(out<int32_t>(run_kernel("BitwiseXor", {a, b}, 1, {}, 18)), (std::vector<int32_t>{6, -6}));
  EXPECT_EQ(out<int32_t>(run_kernel("BitwiseNot", {a}, 1, {}, 18)), (std::vector<int32_t>{-13, 0}));
}

TEST(Elementwise, Logic_BroadcastAndNot) {
  auto a = T(F<bool>({2, 2}, {true, false, true, false}));
  auto b = T(F<bool>({2}, {true, false}));
  EXPECT_EQ(out<bool>(run_kernel("And", {a, b}, 1)), (std::vector<bool>{true, false, true, false}));
  EXPECT_EQ(out<bool>(run_kernel("Or", {a, b}, 1)), (std::vector<bool>{true, false, true, false}));
  EXPECT_EQ(out<bool>(run_kernel("Xor", {a, b}, 1)), (std::vector<bool>{false, false, false, false}));
  EXPECT_EQ(out<bool>(run_kernel("Not", {a}, 1)), (std::vector<bool>{false, true, false, true}));
  auto bad = run_untyped("And", {T(F<float>({1}, {1})), T(F<float>({1}, {1}))}, 1);
  EXPECT_FALSE(bad.status.ok());
}

TEST(Elementwise, Compare_AllFive) {
  auto a = T(F<float>({3}, {1, 2, 3}));
  auto b = T(F<float>({}, {2}));
  EXPECT_EQ(out<bool>(run_kernel("Equal", {a, b}, 1)), (std::vector<bool>{false, true, false}));
  EXPECT_EQ(out<bool>(run_kernel("Less", {a, b}, 1)), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(out<bool>(run_kernel("LessOrEqual", {a, b}, 1)), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(out<bool>(run_kernel("Greater", {a, b}, 1)), (std::vector<bool>{false, false, true}));
  EXPECT_EQ(out<bool>(run_kernel("GreaterOrEqual", {a, b}, 1)), (std::vector<bool>{false, true, true}));
  auto eb = run_kernel("Equal", {T(F<bool>({2}, {true, false})), T(F<bool>({2}, {true, true}))}, 1);
  EXPECT_EQ(out<bool>(eb), (std::vector<bool>{true, false}));
  auto nan = run_kernel("Equal", {T(F<float>({1}, {kNaN})), T(F<float>({1}, {kNaN}))}, 1);
  EXPECT_EQ(out<bool>(nan), (std::vector<bool>{false}));
}

// ---- unary --------------------------------------------------------------------

// The unary loops run as AVX2/AVX-512 clones where the CPU has them: over
// 103 elements (whole vectors and a tail), each equal to the scalar std::
// result bit for bit, halves to even, signed zeros, infinities and NaN
// included (Relu keeps a NaN, as the ONNX reference's np.clip does); Not
// over bytes likewise.
TEST(Elementwise, Unary_VectorLoops_MatchScalarBitForBit) {
  const float edges[] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 2.4f, -0.f, 0.f, kInf, -kInf, kNaN, 1e30f, -1e-30f, 8388609.f, 3.7f};
  std::vector<float> x(103);
  for (size_t i = 0; i < x.size(); ++i) x[i] = edges[i % std::size(edges)] * (i < 16 ? 1.f : 1.f + static_cast<float>(i / 16));
  struct Case {
    const char* op;
    float (*ref)(float);
  };
  const Case cases[] = {{"Floor", [](float v) { return std::floor(v); }},
                        {"Ceil", [](float v) { return std::ceil(v); }},
                        {"Round", [](float v) { return std::nearbyint(v); }},
                        {"Abs", [](float v) { return std::fabs(v); }},
                        {"Neg", [](float v) { return -v; }},
                        {"Relu", [](float v) { return v < 0 ? 0.f : v; }}};  // NaN stays NaN
  for (const Case& c : cases) {
    const std::vector<float> got = unary_f(c.op, x);
    ASSERT_EQ(got.size(), x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const float want = c.ref(x[i]);
      EXPECT_TRUE(std::isnan(want) ? std::isnan(got[i]) : std::memcmp(&want, &got[i], sizeof want) == 0)
          << c.op << "(" << x[i] << ") = " << got[i] << ", want " << want;
    }
  }
  std::vector<bool> b(103);
  for (size_t i = 0; i < b.size(); ++i) b[i] = (i * 7) % 3 == 0;
  const std::vector<bool> got = out<bool>(run_kernel("Not", {T(F<bool>({103}, b))}, 1));
  ASSERT_EQ(got.size(), b.size());
  for (size_t i = 0; i < b.size(); ++i) EXPECT_EQ(got[i], !b[i]) << i;
}

TEST(Elementwise, Unary_MathFloat) {
  expect_near(unary_f("Abs", kX), {2, 0.5f, 0, 0.5f, 2});
  expect_near(unary_f("Neg", kX), {2, 0.5f, 0, -0.5f, -2});
  expect_near(unary_f("Reciprocal", {2, -4}), {0.5f, -0.25f});
  expect_near(unary_f("Sqrt", {4, 2, -1}), {2, 1.4142135f, kNaN});
  expect_near(unary_f("Exp", {0, 1}), {1, 2.7182817f});
  expect_near(unary_f("Log", {1, 2.7182817f, 0}), {0, 1, -kInf});
  expect_near(unary_f("Floor", {-1.5f, 1.5f}), {-2, 1});
  expect_near(unary_f("Ceil", {-1.5f, 1.5f}), {-1, 2});
  expect_near(unary_f("Round", {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4f}), {0, 2, 2, -0.f, -2, 2});
  expect_near(unary_f("Sign", {-3, 0, 2, kNaN}), {-1, 0, 1, kNaN});
  expect_near(unary_f("Erf", {0.5f, -2}), {0.5204999f, -0.9953223f});
  expect_near(unary_f("Sin", {0, 1.5707964f}), {0, 1});
  expect_near(unary_f("Cos", {0}), {1});
  expect_near(unary_f("Tan", {0.7853982f}), {1});
  expect_near(unary_f("Asin", {1}), {1.5707964f});
  expect_near(unary_f("Acos", {1}), {0});
  expect_near(unary_f("Atan", {1}), {0.7853982f});
  expect_near(unary_f("Sinh", {1}), {1.1752012f});
  expect_near(unary_f("Cosh", {1}), {1.5430806f});
  expect_near(unary_f("Asinh", {1}), {0.8813736f});
  expect_near(unary_f("Acosh", {2}), {1.3169579f});
  expect_near(unary_f("Atanh", {0.5f}), {0.5493061f});
  expect_near(unary_f("Tanh", kX), {-0.9640276f, -0.4621172f, 0, 0.4621172f, 0.9640276f});
}

TEST(Elementwise, Unary_IntegerTypes) {
  auto r = run_kernel("Abs", {T(F<int8_t>({3}, {-128, -5, 7}))}, 1);
  EXPECT_EQ(out<int8_t>(r), (std::vector<int8_t>{-128, 5, 7}));  // wraps like numpy
  auto n = run_kernel("Neg", {T(F<int64_t>({2}, {3, -4}))}, 1);
  EXPECT_EQ(out<int64_t>(n), (std::vector<int64_t>{-3, 4}));
  auto s = run_kernel("Sign", {T(F<uint16_t>({2}, {0, 9}))}, 1);
  EXPECT_EQ(out<uint16_t>(s), (std::vector<uint16_t>{0, 1}));
  auto relu = run_kernel("Relu", {T(F<int8_t>({3}, {-3, 0, 4}))}, 1, {}, 14);
  EXPECT_EQ(out<int8_t>(relu), (std::vector<int8_t>{0, 0, 4}));
}

TEST(Elementwise, Unary_Float16ComputesInFloat) {
  auto r = run_kernel("Sqrt", {T(F16({2}, {4.f, 2.25f}))}, 1);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(static_cast<float>(r.outputs[0].tensor().data<Float16>()[0]), 2.f);
  EXPECT_EQ(static_cast<float>(r.outputs[0].tensor().data<Float16>()[1]), 1.5f);
}

TEST(Elementwise, IsNaNAndIsInf) {
  auto x = T(F<float>({4}, {1, kNaN, kInf, -kInf}));
  EXPECT_EQ(out<bool>(run_kernel("IsNaN", {x}, 1)), (std::vector<bool>{false, true, false, false}));
  EXPECT_EQ(out<bool>(run_kernel("IsInf", {x}, 1)), (std::vector<bool>{false, false, true, true}));
  EXPECT_EQ(out<bool>(run_kernel("IsInf", {x}, 1, {attr_int("detect_negative", 0)})),
            (std::vector<bool>{false, false, true, false}));
  EXPECT_EQ(out<bool>(run_kernel("IsInf", {x}, 1, {attr_int("detect_positive", 0)})),
            (std::vector<bool>{false, false, false, true}));
}

TEST(Elementwise, Activations) {
  expect_near(unary_f("Relu", kX), {0, 0, 0, 0.5f, 2});
  expect_near(unary_f("LeakyRelu", kX, {attr_float("alpha", 0.1f)}), {-0.2f, -0.05f, 0, 0.5f, 2});
  expect_near(unary_f("Elu", kX), {-0.86466473f, -0.39346933f, 0, 0.5f, 2});
  expect_near(unary_f("Selu", kX), {-1.5201665f, -0.6917582f, 0, 0.5253505f, 2.101402f});
  expect_near(unary_f("Celu", kX, {attr_float("alpha", 2.f)}), {-1.2642412f, -0.44239855f, 0, 0.5f, 2});
  expect_near(unary_f("Sigmoid", kX), {0.119202934f, 0.37754068f, 0.5f, 0.62245935f, 0.880797f});
  expect_near(unary_f("HardSigmoid", kX), {0.1f, 0.4f, 0.5f, 0.6f, 0.9f});
  expect_near(unary_f("HardSwish", kX), {-0.3333333f, -0.20833333f, 0, 0.29166666f, 1.6666667f});
  expect_near(unary_f("Softplus", kX), {0.126928f, 0.474077f, 0.6931472f, 0.974077f, 2.1269279f});
  expect_near(unary_f("Softsign", kX), {-0.6666667f, -0.33333334f, 0, 0.33333334f, 0.6666667f});
  expect_near(unary_f("ThresholdedRelu", kX, {attr_float("alpha", 0.4f)}), {0, 0, 0, 0.5f, 2});
  expect_near(unary_f("Mish", kX, {}, 18), {-0.25250146f, -0.22074378f, 0, 0.37524518f, 1.9439589f});
  expect_near(unary_f("Gelu", kX, {}, 20), {-0.04550026f, -0.15426877f, 0, 0.34573123f, 1.9544997f});
  expect_near(unary_f("Gelu", kX, {attr_string("approximate", "tanh")}, 20),
              {-0.04540231f, -0.15428599f, 0, 0.34571401f, 1.9545977f});
  expect_near(unary_f("Shrink", kX, {attr_float("lambd", 1.f), attr_float("bias", 0.5f)}), {-1.5f, 0, 0, 0, 1.5f});
  expect_near(unary_f("Sigmoid", {-1000.f, 1000.f}), {0, 1});
  expect_near(unary_f("Softplus", {-1000.f, 1000.f}), {0, 1000});
}

// A NaN stays NaN through the clamping activations, as in the ONNX
// reference (np.clip, np.maximum): the clamps once turned it into 0 or 1.
// ThresholdedRelu and Shrink compare and give 0, as the reference does.
TEST(Elementwise, Activations_NaN) {
  for (const char* op : {"Relu", "HardSigmoid", "Celu", "LeakyRelu", "Elu", "HardSwish", "Softsign"}) {
    const std::vector<float> y = unary_f(op, {kNaN, 1.f});
    EXPECT_TRUE(std::isnan(y[0])) << op << "(NaN) = " << y[0];
  }
  EXPECT_EQ(unary_f("ThresholdedRelu", {kNaN}), (std::vector<float>{0}));
  EXPECT_EQ(unary_f("Shrink", {kNaN}), (std::vector<float>{0}));
}

TEST(Elementwise, Shrink_IntegerInput) {
  auto r = run_kernel("Shrink", {T(F<int8_t>({5}, {-3, -1, 0, 1, 3}))}, 1,
                      {attr_float("lambd", 1.5f), attr_float("bias", 1.5f)});
  EXPECT_EQ(out<int8_t>(r), (std::vector<int8_t>{-1, 0, 0, 0, 1}));
}

TEST(Elementwise, PRelu_BroadcastsSlope) {
  auto r = run_kernel("PRelu", {T(F<float>({2, 2}, {-1, 2, -3, 4})), T(F<float>({2}, {0.5f, 0.25f}))}, 1);
  expect_near(out<float>(r), {-0.5f, 2, -1.5f, 4});
}

// ---- Clip -----------------------------------------------------------------------

TEST(Elementwise, Clip_AttributesBeforeOpset11) {
  auto r = run_kernel("Clip", {T(F<float>({4}, {-3, -1, 1, 3}))}, 1, {attr_float("min", -2), attr_float("max", 2)},
                      6);
  expect_near(out<float>(r), {-2, -1, 1, 2});
}

TEST(Elementwise, Clip_InputsFromOpset11) {
  auto x = T(F<float>({5}, {-3, -1, 1, 3, kNaN}));
  auto r = run_kernel("Clip", {x, T(F<float>({}, {-2})), T(F<float>({}, {2}))}, 1, {}, 13);
  expect_near(out<float>(r), {-2, -1, 1, 2, kNaN});
  auto only_max = run_kernel("Clip", {x, RuntimeValue(), T(F<float>({}, {0}))}, 1, {}, 13);
  expect_near(out<float>(only_max), {-3, -1, 0, 0, kNaN});
  auto none = run_kernel("Clip", {x}, 1, {}, 13);
  expect_near(out<float>(none), {-3, -1, 1, 3, kNaN});
}

TEST(Elementwise, Clip_Int8AndBadBounds) {
  auto r = run_kernel("Clip", {T(F<int8_t>({3}, {-100, 0, 100})), T(F<int8_t>({}, {-10})), T(F<int8_t>({}, {10}))},
                      1, {}, 13);
  EXPECT_EQ(out<int8_t>(r), (std::vector<int8_t>{-10, 0, 10}));
  auto bad = run_kernel("Clip", {T(F<float>({1}, {1})), T(F<int8_t>({}, {0}))}, 1, {}, 13);
  EXPECT_EQ(bad.status.code(), StatusCode::kInvalidArgument);
  auto bad2 = run_kernel("Clip", {T(F<float>({1}, {1})), T(F<float>({2}, {0, 1}))}, 1, {}, 13);
  EXPECT_EQ(bad2.status.code(), StatusCode::kInvalidArgument);
}

// ---- Where and variadic ------------------------------------------------------

TEST(Elementwise, Where_BroadcastsAllThree) {
  auto r = run_kernel("Where", {T(F<bool>({2, 1}, {true, false})), T(F<float>({2}, {1, 2})), T(F<float>({}, {9}))},
                      1);
  EXPECT_EQ(out<float>(r), (std::vector<float>{1, 2, 9, 9}));
  EXPECT_EQ(out_dims(r), (Dims{2, 2}));
}

// Same shapes take a branch-free path, for every element size; a bool
// condition read from a file may hold any nonzero byte for true.
TEST(Elementwise, Where_SameShapes_EveryWidthAndAnyTrueByte) {
  const int64_t n = 37;
  Tensor c = F<bool>({n}, std::vector<bool>(static_cast<size_t>(n), false));
  auto* bytes = static_cast<uint8_t*>(c.raw());
  for (int64_t i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>(i % 3 == 0 ? 0 : i % 3 == 1 ? 1 : 2);
  auto check = [&](auto tag) {
    using V = decltype(tag);
    std::vector<V> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      a[static_cast<size_t>(i)] = static_cast<V>(i + 1);
      b[static_cast<size_t>(i)] = static_cast<V>(100 - 2 * i);  // even, where a alternates: a wrong mask's low bit shows
    }
    auto r = run_kernel("Where", {T(c), T(F<V>({n}, a)), T(F<V>({n}, b))}, 1);
    ASSERT_TRUE(r.status.ok()) << r.status.to_string();
    const std::vector<V> got = out<V>(r);
    for (int64_t i = 0; i < n; ++i)
      EXPECT_EQ(got[static_cast<size_t>(i)], i % 3 == 0 ? b[static_cast<size_t>(i)] : a[static_cast<size_t>(i)]) << i;
  };
  check(double{});
  check(float{});
  check(int16_t{});
  check(int8_t{});
}

// Broadcast operands take the same branch-free select, strided.
TEST(Elementwise, Where_Broadcast_AnyTrueByte) {
  Tensor c = F<bool>({2, 3}, std::vector<bool>(6, false));
  auto* bytes = static_cast<uint8_t*>(c.raw());
  const uint8_t cond[6] = {0, 1, 2, 255, 0, 7};
  std::copy(cond, cond + 6, bytes);
  auto r = run_kernel("Where", {T(c), T(F<int32_t>({1, 3}, {1, 2, 3})), T(F<int32_t>({}, {-8}))}, 1);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(out<int32_t>(r), (std::vector<int32_t>{-8, 2, 3, 1, -8, 3}));
}

// Every combination of full and broadcast operands, so that each of the
// loops compiled for strides of 1 and 0 runs (rows of 37: whole vectors and
// a tail), and a column broadcast that leaves a stride of 37; true bytes
// other than 1 included.
TEST(Elementwise, Where_EveryStrideCombination_MatchesReference) {
  const int64_t R = 3, C = 37;
  for (int combo = 0; combo < 9; ++combo) {
    // Bit k set: operand k is full [R, C]; else it is a row [C], a column
    // [R, 1] or a single value, in turn. Combo 8: x is a column of a
    // transposed layout ([C, 1] against [1, C] elsewhere).
    auto dims_of = [&](int k) -> Dims {
      if (combo == 8) return k == 1 ? Dims{C, 1} : Dims{1, C};
      if (combo & (1 << k)) return Dims{R, C};
      return k == 0 ? Dims{R, 1} : k == 1 ? Dims{C} : Dims{};
    };
    const Dims cd = dims_of(0), xd = dims_of(1), yd = dims_of(2);
    Tensor c = F<bool>(cd, std::vector<bool>(static_cast<size_t>(cd.numel()), false));
    auto* bytes = static_cast<uint8_t*>(c.raw());
    for (int64_t i = 0; i < cd.numel(); ++i) bytes[i] = static_cast<uint8_t>(i % 3 == 0 ? 0 : i % 3 == 1 ? 1 : 9);
    std::vector<float> xv(static_cast<size_t>(xd.numel())), yv(static_cast<size_t>(yd.numel()));
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i + 1);
    for (size_t i = 0; i < yv.size(); ++i) yv[i] = -static_cast<float>(i + 1);
    auto r = run_kernel("Where", {T(c), T(F<float>(xd, xv)), T(F<float>(yd, yv))}, 1);
    ASSERT_TRUE(r.status.ok()) << r.status.to_string();
    const Dims od = out_dims(r);
    const std::vector<float> got = out<float>(r);
    // Element (i, j) of an operand broadcast to od (rank 2).
    auto at = [&](const Dims& d, int64_t i, int64_t j) {
      const Dims d2 = d.rank() == 2 ? d : d.rank() == 1 ? Dims{1, d[0]} : Dims{1, 1};
      return (d2[0] == 1 ? 0 : i) * d2[1] + (d2[1] == 1 ? 0 : j);
    };
    for (int64_t i = 0; i < od[0]; ++i)
      for (int64_t j = 0; j < od[1]; ++j) {
        const float want = bytes[at(cd, i, j)] != 0 ? xv[static_cast<size_t>(at(xd, i, j))] : yv[static_cast<size_t>(at(yd, i, j))];
        ASSERT_EQ(got[static_cast<size_t>(i * od[1] + j)], want) << "combo " << combo << " at " << i << "," << j;
      }
  }
}

TEST(Elementwise, Where_Strings) {
  auto r = run_kernel("Where", {T(F<bool>({2}, {true, false})), T(F<std::string>({2}, {"a", "b"})),
                                T(F<std::string>({2}, {"c", "d"}))},
                      1);
  EXPECT_EQ(out<std::string>(r), (std::vector<std::string>{"a", "d"}));
}

TEST(Elementwise, Where_BadConditionType) {
  auto r = run_untyped("Where", {T(F<int32_t>({1}, {1})), T(F<float>({1}, {1})), T(F<float>({1}, {2}))}, 1);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
}

TEST(Elementwise, Variadic_MaxMinSumMeanBroadcast) {
  auto a = T(F<float>({3}, {1, 5, 3}));
  auto b = T(F<float>({2, 1}, {2, 4}));
  auto c = T(F<float>({}, {0}));
  EXPECT_EQ(out<float>(run_kernel("Max", {a, b, c}, 1)), (std::vector<float>{2, 5, 3, 4, 5, 4}));
  EXPECT_EQ(out<float>(run_kernel("Min", {a, b, c}, 1)), (std::vector<float>{0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(out<float>(run_kernel("Sum", {a, b, c}, 1)), (std::vector<float>{3, 7, 5, 5, 9, 7}));
  expect_near(out<float>(run_kernel("Mean", {a, b}, 1)), {1.5f, 3.5f, 2.5f, 2.5f, 4.5f, 3.5f});
  // A later input can grow the output shape.
  auto grown = run_kernel("Sum", {c, c, a}, 1);
  EXPECT_EQ(out<float>(grown), (std::vector<float>{1, 5, 3}));
}

// The count of inputs must not wrap in the element type: 256 uint8 inputs
// would divide by zero (a crash), 128 int8 inputs by -128.
TEST(Elementwise, Mean_ManyIntegerInputs_DividesByTheTrueCount) {
  std::vector<RuntimeValue> u8(256, T(F<uint8_t>({2}, {0, 1})));
  u8[0] = T(F<uint8_t>({2}, {255, 1}));  // sum wraps in uint8: 255 and 256 -> 0
  EXPECT_EQ(out<uint8_t>(run_kernel("Mean", u8, 1)), (std::vector<uint8_t>{0, 0}));
  std::vector<RuntimeValue> i8(128, T(F<int8_t>({2}, {-1, 0})));
  i8[1] = T(F<int8_t>({2}, {-1, 127}));  // sums -128 and 127
  EXPECT_EQ(out<int8_t>(run_kernel("Mean", i8, 1)), (std::vector<int8_t>{-1, 0}));
}

TEST(Elementwise, Variadic_SingleInputAndInts) {
  EXPECT_EQ(out<float>(run_kernel("Max", {T(F<float>({2}, {1, 2}))}, 1)), (std::vector<float>{1, 2}));
  auto r = run_kernel("Max", {T(F<int32_t>({2}, {1, -2})), T(F<int32_t>({2}, {0, -1}))}, 1);
  EXPECT_EQ(out<int32_t>(r), (std::vector<int32_t>{1, -1}));
  auto nan = run_kernel("Max", {T(F<float>({2}, {kNaN, 1})), T(F<float>({2}, {0, kNaN}))}, 1);
  expect_near(out<float>(nan), {kNaN, kNaN});
  auto bad = run_kernel("Sum", {T(F<float>({2}, {1, 2})), T(F<float>({3}, {1, 2, 3}))}, 1);
  EXPECT_EQ(bad.status.code(), StatusCode::kInvalidArgument);
}

// ---- Cast ---------------------------------------------------------------------

TEST(Elementwise, Cast_FloatToIntTruncatesAndBool) {
  auto r = run_kernel("Cast", {T(F<float>({4}, {1.7f, -1.7f, 0, kNaN}))}, 1,
                      {attr_int("to", static_cast<int>(DataType::kInt32))});
  EXPECT_EQ(out<int32_t>(r), (std::vector<int32_t>{1, -1, 0, 0}));
  auto b = run_kernel("Cast", {T(F<float>({3}, {0, 2, -0.5f}))}, 1, {attr_int("to", static_cast<int>(DataType::kBool))});
  EXPECT_EQ(out<bool>(b), (std::vector<bool>{false, true, true}));
  auto u = run_kernel("Cast", {T(F<bool>({2}, {true, false}))}, 1, {attr_int("to", static_cast<int>(DataType::kDouble))});
  EXPECT_EQ(out<double>(u), (std::vector<double>{1, 0}));
}

// Float to integer goes through int64 and wraps, as numpy does on x86: NaN
// gives 0, values beyond int64 its minimum. Edge values repeated along a
// long tensor meet the vector loop and its remainder.
TEST(Elementwise, Cast_FloatToInt_WrapsThroughInt64) {
  const std::vector<float> edges = {3e9f, -3e9f, kInf, -kInf, kNaN, 1e19f, 2147483520.f, -2147483648.f, 300.f, -1.f, 0.9f};
  std::vector<float> x;
  for (int i = 0; i < 101; ++i) x.insert(x.end(), edges.begin(), edges.end());
  auto through_int64 = [](float v) {
    return v != v ? int64_t{0} : v >= -9223372036854775808.f && v < 9223372036854775808.f ? static_cast<int64_t>(v)
                                                                                             : INT64_MIN;
  };
  auto i32 = run_kernel("Cast", {T(F<float>({int64_t(x.size())}, x))}, 1, {attr_int("to", static_cast<int>(DataType::kInt32))});
  auto u8 = run_kernel("Cast", {T(F<float>({int64_t(x.size())}, x))}, 1, {attr_int("to", static_cast<int>(DataType::kUInt8))});
  auto i64 = run_kernel("Cast", {T(F<float>({int64_t(x.size())}, x))}, 1, {attr_int("to", static_cast<int>(DataType::kInt64))});
  ASSERT_TRUE(i32.status.ok() && u8.status.ok() && i64.status.ok());
  const auto gi = out<int32_t>(i32);
  const auto gu = out<uint8_t>(u8);
  const auto gl = out<int64_t>(i64);
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(gl[i], through_int64(x[i])) << "int64 of " << x[i] << " at " << i;
    ASSERT_EQ(gi[i], static_cast<int32_t>(through_int64(x[i]))) << "int32 of " << x[i] << " at " << i;
    ASSERT_EQ(gu[i], static_cast<uint8_t>(through_int64(x[i]))) << "uint8 of " << x[i] << " at " << i;
  }
  EXPECT_EQ(gi[0], -1294967296);  // 3e9 wraps
  EXPECT_EQ(gu[8], 44);           // 300 wraps
}

TEST(Elementwise, Cast_HalfTypesRoundTrip) {
  auto h = run_kernel("Cast", {T(F<float>({3}, {1.5f, 65504.f, 1e6f}))}, 1,
                      {attr_int("to", static_cast<int>(DataType::kFloat16))});
  ASSERT_TRUE(h.status.ok());
  auto back = run_kernel("Cast", {h.outputs[0]}, 1, {attr_int("to", static_cast<int>(DataType::kFloat))});
  expect_near(out<float>(back), {1.5f, 65504.f, kInf});
  auto bf = run_kernel("Cast", {T(F<float>({1}, {3.0f}))}, 1, {attr_int("to", static_cast<int>(DataType::kBFloat16))});
  ASSERT_TRUE(bf.status.ok());
  EXPECT_EQ(bf.outputs[0].tensor().data<BFloat16>()[0].bits, 0x4040);
}

// double -> float16 and bfloat16 round once, correctly: through a float
// rounded to nearest, 65519.99 became inf and 1 + 2^-11 + 2^-30 became 1
// (numpy gives 65504 and 1 + 2^-10); the rest still round to nearest even.
TEST(Elementwise, Cast_DoubleToHalfTypes_RoundsOnce) {
  const double tiny = std::ldexp(1.0, -30);
  auto h = run_kernel("Cast",
                      {T(F<double>({6}, {65519.99999999, 1 + std::ldexp(1.0, -11) + tiny, 1 + std::ldexp(1.0, -11),
                                         65520.0, -1e300, std::ldexp(1.0, -25) + tiny}))},
                      1, {attr_int("to", static_cast<int>(DataType::kFloat16))});
  ASSERT_TRUE(h.status.ok()) << h.status.to_string();
  std::vector<uint16_t> bits;
  for (int i = 0; i < 6; ++i) bits.push_back(h.outputs[0].tensor().data<Float16>()[i].bits);
  // 65504, 1 + 2^-10, 1 (a tie to even), inf, -inf, the smallest subnormal.
  EXPECT_EQ(bits, (std::vector<uint16_t>{0x7bff, 0x3c01, 0x3c00, 0x7c00, 0xfc00, 0x0001}));
  auto bf =
      run_kernel("Cast", {T(F<double>({2}, {1 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40), 1 + std::ldexp(1.0, -8)}))},
                 1, {attr_int("to", static_cast<int>(DataType::kBFloat16))});
  ASSERT_TRUE(bf.status.ok()) << bf.status.to_string();
  EXPECT_EQ(bf.outputs[0].tensor().data<BFloat16>()[0].bits, 0x3f81);
  EXPECT_EQ(bf.outputs[0].tensor().data<BFloat16>()[1].bits, 0x3f80);
}

// The Cast kernel converts float <-> float16 with F16C instructions where the
// CPU has them; it must agree bit for bit with the portable Float16 type
// (NaN payloads aside): every float16, and floats around every float16
// boundary (ties, subnormals, overflow), 8-aligned and in the scalar tail.
TEST(Elementwise, Cast_Float16_MatchesPortableConversion) {
  std::vector<Float16> halves(65536);
  for (uint32_t b = 0; b < 65536; ++b) halves[b].bits = static_cast<uint16_t>(b);
  auto up = run_kernel("Cast", {T(F<Float16>({65536}, halves))}, 1, {attr_int("to", static_cast<int>(DataType::kFloat))});
  ASSERT_TRUE(up.status.ok()) << up.status.to_string();
  const std::vector<float> wide = out<float>(up);
  int64_t bad = 0;
  for (uint32_t b = 0; b < 65536; ++b) {
    const float want = static_cast<float>(halves[b]);
    bad += std::isnan(want) ? !std::isnan(wide[b]) : std::memcmp(&want, &wide[b], 4) != 0;
  }
  EXPECT_EQ(bad, 0) << "float16 -> float";

  std::vector<float> floats;
  for (uint32_t b = 0; b < 65536; b += 7) {
    uint32_t f;
    const float v = static_cast<float>(halves[b]);
    std::memcpy(&f, &v, 4);
    for (uint32_t d : {0u, 1u, 0xfffu, 0x1000u, 0x1001u}) {  // 0x1000: halfway to the next float16
      const uint32_t g = f + d;
      float x;
      std::memcpy(&x, &g, 4);
      floats.push_back(x);
    }
  }
  floats.push_back(1e-8f);  // float16 subnormal range and below
  floats.push_back(7e-8f);
  floats.push_back(65519.f);  // rounds down to 65504
  floats.push_back(65520.f);  // rounds up to infinity
  const auto n = static_cast<int64_t>(floats.size());
  auto down = run_kernel("Cast", {T(F<float>({n}, floats))}, 1, {attr_int("to", static_cast<int>(DataType::kFloat16))});
  ASSERT_TRUE(down.status.ok()) << down.status.to_string();
  const Float16* got = down.outputs[0].tensor().data<Float16>();
  bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    const Float16 want(floats[static_cast<size_t>(i)]);
    const bool nan = (want.bits & 0x7c00) == 0x7c00 && (want.bits & 0x3ff);
    bad += nan ? !((got[i].bits & 0x7c00) == 0x7c00 && (got[i].bits & 0x3ff)) : got[i].bits != want.bits;
  }
  EXPECT_EQ(bad, 0) << "float -> float16";
}

TEST(Elementwise, Cast_NumberToStringLikeNumpy) {
  auto r = run_kernel("Cast", {T(F<float>({8}, {0.9767611f, 0.039187793f, 1e-5f, 123456.f, -2.5f, kNaN, kInf, -kInf}))},
                      1, {attr_int("to", static_cast<int>(DataType::kString))});
  EXPECT_EQ(out<std::string>(r), (std::vector<std::string>{"0.9767611", "0.039187793", "1e-05", "123456.0", "-2.5",
                                                           "NaN", "INF", "-INF"}));
  auto d = run_kernel("Cast", {T(F<double>({3}, {0.1, 1e20, 0.0}))}, 1,
                      {attr_int("to", static_cast<int>(DataType::kString))});
  EXPECT_EQ(out<std::string>(d), (std::vector<std::string>{"0.1", "1e+20", "0.0"}));
  auto i = run_kernel("Cast", {T(F<int64_t>({2}, {-42, 7}))}, 1, {attr_int("to", static_cast<int>(DataType::kString))});
  EXPECT_EQ(out<std::string>(i), (std::vector<std::string>{"-42", "7"}));
  auto h = run_kernel("Cast", {T(F16({1}, {0.1f}))}, 1, {attr_int("to", static_cast<int>(DataType::kString))});
  EXPECT_EQ(out<std::string>(h), (std::vector<std::string>{"0.1"}));
}

TEST(Elementwise, Cast_StringToNumber) {
  auto r = run_kernel("Cast", {T(F<std::string>({6}, {"0.47892547", "NaN", "INF", "+INF", "-INF", "-3"}))}, 1,
                      {attr_int("to", static_cast<int>(DataType::kFloat))});
  expect_near(out<float>(r), {0.47892547f, kNaN, kInf, kInf, -kInf, -3});
  auto i = run_kernel("Cast", {T(F<std::string>({2}, {"9007199254740993", "-5"}))}, 1,
                      {attr_int("to", static_cast<int>(DataType::kInt64))});
  EXPECT_EQ(out<int64_t>(i), (std::vector<int64_t>{9007199254740993LL, -5}));
  auto bad = run_kernel("Cast", {T(F<std::string>({1}, {"abc"}))}, 1, {attr_int("to", static_cast<int>(DataType::kFloat))});
  EXPECT_EQ(bad.status.code(), StatusCode::kInvalidArgument);
}

TEST(Elementwise, Cast_OldStringAttrAndBadTarget) {
  auto r = run_kernel("Cast", {T(F<int32_t>({2}, {1, 2}))}, 1, {attr_string("to", "FLOAT")}, 1);
  EXPECT_EQ(out<float>(r), (std::vector<float>{1, 2}));
  auto bad = run_kernel("Cast", {T(F<int32_t>({1}, {1}))}, 1, {attr_int("to", 99)});
  EXPECT_EQ(bad.status.code(), StatusCode::kInvalidArgument);
  auto cplx = run_kernel("Cast", {T(F<int32_t>({1}, {1}))}, 1, {attr_int("to", static_cast<int>(DataType::kComplex64))});
  EXPECT_EQ(cplx.status.code(), StatusCode::kUnimplemented);
}

TEST(Elementwise, CastLike_UsesTargetType) {
  auto r = run_kernel("CastLike", {T(F<double>({2}, {1.25, -3})), T(F<int16_t>({}, {0}))}, 1);
  EXPECT_EQ(out<int16_t>(r), (std::vector<int16_t>{1, -3}));
  EXPECT_EQ(r.outputs[0].tensor().dtype(), DataType::kInt16);
}

}  // namespace
}  // namespace sy

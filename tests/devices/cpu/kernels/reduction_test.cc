// Unit tests for the CPU reduction family: Reduce*, ArgMax/ArgMin, Softmax,
// LogSoftmax, Hardmax, CumSum (TopK: reduction_topk_test.cc). Expected values are hand-computed or
// from numpy and hard-coded.
#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "tests/devices/kernel_test_util.h"

namespace sy {
namespace {

using testing::attr_int;
using testing::attr_ints;
using testing::make_tensor;
using testing::run_kernel;
using testing::to_vector;

void expect_near(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol * std::max(1.0f, std::abs(want[i]))) << i;
}

std::vector<float> iota_f(int n, float start = 1) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = start + static_cast<float>(i);
  return v;
}

Tensor x234() { return make_tensor<float>({2, 3, 4}, iota_f(24)); }

TEST(Reduce, Sum_KeepDimsFalse) {
  auto r = run_kernel("ReduceSum", {x234(), make_tensor<int64_t>({1}, {1})}, 1, {attr_int("keepdims", 0)}, 13);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  const Tensor& y = r.outputs[0].tensor();
  EXPECT_EQ(y.dims(), (Dims{2, 4}));
  expect_near(to_vector<float>(y), {15, 18, 21, 24, 51, 54, 57, 60});
}

TEST(Reduce, Sum_TwoAxesKeepDims) {
  auto r = run_kernel("ReduceSum", {x234(), make_tensor<int64_t>({2}, {0, -1})}, 1, {}, 13);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.outputs[0].tensor().dims(), (Dims{1, 3, 1}));
  expect_near(to_vector<float>(r.outputs[0].tensor()), {68, 100, 132});
}

TEST(Reduce, Sum_NoAxesReducesAll) {
  auto r = run_kernel("ReduceSum", {x234()}, 1, {attr_int("keepdims", 0)}, 13);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.outputs[0].tensor().rank(), 0u);
  expect_near(to_vector<float>(r.outputs[0].tensor()), {300});
}

TEST(Reduce, Sum_EmptyAxesNoop) {
  auto r = run_kernel("ReduceSum", {x234(), make_tensor<int64_t>({0}, {})}, 1, {attr_int("noop_with_empty_axes", 1)}, 13);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.outputs[0].tensor().dims(), (Dims{2, 3, 4}));
  expect_near(to_vector<float>(r.outputs[0].tensor()), iota_f(24));
}

// With nothing to reduce, a composite reduction still applies its
// elementwise step (opset 18's text): L1 and L2 give |x|, SumSquare x*x,
// LogSum log(x); LogSumExp gives x back. They used to return x for all.
TEST(Reduce, CompositeReductions_EmptyAxesNoop_KeepTheirElementwiseStep) {
  const std::vector<float> x = {-1.5f, 2, -3, 0.5f, -0.25f, 4};
  const std::vector<std::pair<std::string, std::vector<float>>> want = {
      {"ReduceL1", {1.5f, 2, 3, 0.5f, 0.25f, 4}},
      {"ReduceL2", {1.5f, 2, 3, 0.5f, 0.25f, 4}},
      {"ReduceSumSquare", {2.25f, 4, 9, 0.25f, 0.0625f, 16}},
      {"ReduceLogSum", {NAN, std::log(2.f), NAN, std::log(0.5f), NAN, std::log(4.f)}},
      {"ReduceLogSumExp", x},
  };
  for (const auto& [op, values] : want) {
    SCOPED_TRACE(op);
    for (bool axes_given : {false, true}) {
      std::vector<RuntimeValue> in = {RuntimeValue(make_tensor<float>({2, 3}, x))};
      if (axes_given) in.push_back(RuntimeValue(make_tensor<int64_t>({0}, {})));
      auto r = run_kernel(op, in, 1, {attr_int("noop_with_empty_axes", 1)}, 18);
      ASSERT_TRUE(r.status.ok()) << r.status.to_string();
      EXPECT_EQ(r.outputs[0].tensor().dims(), (Dims{2, 3}));
      const std::vector<float> got = to_vector<float>(r.outputs[0].tensor());
      ASSERT_EQ(got.size(), values.size());
      for (size_t i = 0; i < got.size(); ++i) {
        if (std::isnan(values[i]))
          EXPECT_TRUE(std::isnan(got[i])) << i;
        else
          EXPECT_NEAR(got[i], values[i], 1e-6) << i;
      }
    }
  }
}

TEST(Reduce, Sum_AttributeAxesBeforeOpset13) {
  auto r = run_kernel("ReduceSum", {x234()}, 1, {attr_ints("axes", {1}), attr_int("keepdims", 0)}, 11);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  expect_near(to_vector<float>(r.outputs[0].tensor()), {15, 18, 21, 24, 51, 54, 57, 60});
}

TEST(Reduce, Sum_Int32) {
  auto r = run_kernel("ReduceSum", {make_tensor<int32_t>({2, 2}, {1, 2, 3, 4}), make_tensor<int64_t>({1}, {0})}, 1,
                      {attr_int("keepdims", 0)}, 13);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(to_vector<int32_t>(r.outputs[0].tensor()), (std::vector<int32_t>{4, 6}));
}

TEST(Reduce, Sum_AxisOutOfRange) {
  auto r = run_kernel("ReduceSum", {x234(), make_tensor<int64_t>({1}, {3})}, 1, {}, 13);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  r = run_kernel("ReduceMean", {x234()}, 1, {attr_ints("axes", {-4})}, 13);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
}

TEST(Reduce, Sum_RepeatedAxis) {
  auto r = run_kernel("ReduceSum", {x234(), make_tensor<int64_t>({2}, {1, -2})}, 1, {}, 13);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
}

TEST(Reduce, Sum_EmptySet) {
  auto r = run_kernel("ReduceSum", {make_tensor<float>({2, 0, 3}, {}), make_tensor<int64_t>({1}, {1})}, 1, {}, 13);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.outputs[0].tensor().dims(), (Dims{2, 1, 3}));
  expect_near(to_vector<float>(r.outputs[0].tensor()), {0, 0, 0, 0, 0, 0});
}

TEST(Reduce, EmptySet_IdentityValues) {
  Tensor e = make_tensor<float>({0, 2}, {});
  auto prod = run_kernel("ReduceProd", {e}, 1, {attr_ints("axes", {0})}, 13);
  ASSERT_TRUE(prod.status.ok());
  expect_near(to_vector<float>(prod.outputs[0].tensor()), {1, 1});
  auto mx = run_kernel("ReduceMax", {e}, 1, {attr_ints("axes", {0})}, 13);
  ASSERT_TRUE(mx.status.ok());
  EXPECT_EQ(to_vector<float>(mx.outputs[0].tensor())[0], -std::numeric_limits<float>::infinity());
  auto lse = run_kernel("ReduceLogSumExp", {e}, 1, {attr_ints("axes", {0})}, 13);
  ASSERT_TRUE(lse.status.ok());
  EXPECT_EQ(to_vector<float>(lse.outputs[0].tensor())[0], -std::numeric_limits<float>::infinity());
}

// The reduced axes of an empty input may claim 2^40 of nothing between
// them: each output is the value of an empty set at once. The loops over
// the reduced groups stepped through all of them.
TEST(Reduce, EmptySet_ClaimingHugeAxes_FinishesAtOnce) {
  constexpr int64_t kHuge = int64_t{1} << 40;
  Tensor e = make_tensor<float>({kHuge, 2, 3, 0}, {});
  auto sum = run_kernel("ReduceSum", {e, make_tensor<int64_t>({2}, {0, 3})}, 1, {}, 13);
  ASSERT_TRUE(sum.status.ok()) << sum.status.to_string();
  EXPECT_EQ(sum.outputs[0].tensor().dims(), (Dims{1, 2, 3, 1}));
  expect_near(to_vector<float>(sum.outputs[0].tensor()), std::vector<float>(6, 0.f));
  auto prod = run_kernel("ReduceProd", {e}, 1, {attr_ints("axes", {0, 3}), attr_int("keepdims", 0)}, 13);
  ASSERT_TRUE(prod.status.ok()) << prod.status.to_string();
  expect_near(to_vector<float>(prod.outputs[0].tensor()), std::vector<float>(6, 1.f));
}

// Opset 20: ReduceMax is any and ReduceMin all; over nothing, false and
// true (a byte of 1, not the 255 a uint8 min of nothing starts from).
TEST(Reduce, MaxMin_Bool) {
  Tensor x = make_tensor<bool>({2, 3}, {true, false, false, true, true, true});
  Tensor axes = make_tensor<int64_t>({1}, {1});
  auto mx = run_kernel("ReduceMax", {x, axes}, 1, {attr_int("keepdims", 0)}, 20);
  auto mn = run_kernel("ReduceMin", {x, axes}, 1, {attr_int("keepdims", 0)}, 20);
  ASSERT_TRUE(mx.status.ok() && mn.status.ok()) << mx.status.to_string() << mn.status.to_string();
  EXPECT_EQ(to_vector<bool>(mx.outputs[0].tensor()), (std::vector<bool>{true, true}));
  EXPECT_EQ(to_vector<bool>(mn.outputs[0].tensor()), (std::vector<bool>{false, true}));
  Tensor e = make_tensor<bool>({0, 2}, {});
  Tensor axis0 = make_tensor<int64_t>({1}, {0});
  auto emx = run_kernel("ReduceMax", {e, axis0}, 1, {}, 20);
  auto emn = run_kernel("ReduceMin", {e, axis0}, 1, {}, 20);
  ASSERT_TRUE(emx.status.ok() && emn.status.ok());
  const Tensor& t = emn.outputs[0].tensor();
  ASSERT_EQ(t.numel(), 2);
  EXPECT_EQ(reinterpret_cast<const uint8_t*>(t.data<bool>())[0], 1);
  EXPECT_EQ(to_vector<bool>(emx.outputs[0].tensor()), (std::vector<bool>{false, false}));
  // Sums of bools are still refused.
  EXPECT_FALSE(run_kernel("ReduceSum", {x, axes}, 1, {}, 20).status.ok());
}

TEST(Reduce, Mean_AllAxes) {
  auto r = run_kernel("ReduceMean", {x234()}, 1, {}, 13);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.outputs[0].tensor().dims(), (Dims{1, 1, 1}));
  expect_near(to_vector<float>(r.outputs[0].tensor()), {12.5f});
}

TEST(Reduce, MaxMin_OuterAxis) {
  Tensor x = make_tensor<float>({3, 2}, {1, 9, -4, 2, 7, 3});
  auto mx = run_kernel("ReduceMax", {x}, 1, {attr_ints("axes", {0}), attr_int("keepdims", 0)}, 13);
  auto mn = run_kernel("ReduceMin", {x}, 1, {attr_ints("axes", {0}), attr_int("keepdims", 0)}, 13);
  ASSERT_TRUE(mx.status.ok() && mn.status.ok());
  expect_near(to_vector<float>(mx.outputs[0].tensor()), {7, 9});
  expect_near(to_vector<float>(mn.outputs[0].tensor()), {-4, 2});
}

TEST(Reduce, Max_Int64AndUInt8) {
  auto r = run_kernel("ReduceMax", {make_tensor<int64_t>({2, 2}, {-5, -7, 3, -1})}, 1,
                      {attr_ints("axes", {1}), attr_int("keepdims", 0)}, 13);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(to_vector<int64_t>(r.outputs[0].tensor()), (std::vector<int64_t>{-5, 3}));
  auto u = run_kernel("ReduceMin", {make_tensor<uint8_t>({3}, {200, 7, 255})}, 1, {attr_int("keepdims", 0)}, 13);
  ASSERT_TRUE(u.status.ok());
  EXPECT_EQ(to_vector<uint8_t>(u.outputs[0].tensor()), (std::vector<uint8_t>{7}));
}

TEST(Reduce, Prod_Axis0) {
  auto r = run_kernel("ReduceProd", {x234()}, 1, {attr_ints("axes", {0}), attr_int("keepdims", 0)}, 13);
  ASSERT_TRUE(r.status.ok());
  expect_near(to_vector<float>(r.outputs[0].tensor()), {13, 28, 45, 64, 85, 108, 133, 160, 189, 220, 253, 288});
}

TEST(Reduce, L1L2SumSquare_LastAxis) {
  Tensor x = make_tensor<float>({2, 2}, {3, -4, -1, 1});
  auto l1 = run_kernel("ReduceL1", {x}, 1, {attr_ints("axes", {1}), attr_int("keepdims", 0)}, 13);
  auto l2 = run_kernel("ReduceL2", {x}, 1, {attr_ints("axes", {1}), attr_int("keepdims", 0)}, 13);
  auto ss = run_kernel("ReduceSumSquare", {x}, 1, {attr_ints("axes", {1}), attr_int("keepdims", 0)}, 13);
  ASSERT_TRUE(l1.status.ok() && l2.status.ok() && ss.status.ok());
  expect_near(to_vector<float>(l1.outputs[0].tensor()), {7, 2});
  expect_near(to_vector<float>(l2.outputs[0].tensor()), {5, std::sqrt(2.0f)});
  expect_near(to_vector<float>(ss.outputs[0].tensor()), {25, 2});
}

TEST(Reduce, LogSumExp_LargeValuesStable) {
  Tensor x = make_tensor<float>({1, 3}, {1000, 1000, 1000});
  auto r = run_kernel("ReduceLogSumExp", {x}, 1, {attr_ints("axes", {1}), attr_int("keepdims", 0)}, 13);
  ASSERT_TRUE(r.status.ok());
  expect_near(to_vector<float>(r.outputs[0].tensor()), {1000 + std::log(3.0f)});
  auto s = run_kernel("ReduceLogSumExp", {x234()}, 1, {attr_ints("axes", {-1}), attr_int("keepdims", 0)}, 13);
  ASSERT_TRUE(s.status.ok());
  expect_near(to_vector<float>(s.outputs[0].tensor()),
              {4.4401898f, 8.4401894f, 12.440189f, 16.440189f, 20.440189f, 24.440189f});
}

// Equal infinite maxima add their sums: exp(inf - inf) would make them NaN.
TEST(Reduce, LogSumExp_InfiniteRows) {
  const float inf = std::numeric_limits<float>::infinity();
  Tensor x = make_tensor<float>({4, 3}, {-inf, -inf, -inf, -inf, -inf, 2, inf, 1, inf, -inf, inf, inf});
  auto r = run_kernel("ReduceLogSumExp", {x}, 1, {attr_ints("axes", {1}), attr_int("keepdims", 0)}, 13);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  const std::vector<float> got = to_vector<float>(r.outputs[0].tensor());
  EXPECT_EQ(got, (std::vector<float>{-inf, 2, inf, inf}));
}

TEST(Reduce, LogSum_Axis1) {
  auto r = run_kernel("ReduceLogSum", {x234()}, 1, {attr_ints("axes", {1}), attr_int("keepdims", 0)}, 13);
  ASSERT_TRUE(r.status.ok());
  expect_near(to_vector<float>(r.outputs[0].tensor()),
              {std::log(15.f), std::log(18.f), std::log(21.f), std::log(24.f), std::log(51.f), std::log(54.f),
               std::log(57.f), std::log(60.f)});
}

TEST(Reduce, Float16_Sum) {
  Tensor x = make_tensor<Float16>({2, 2}, {Float16(1.5f), Float16(2.5f), Float16(-1.0f), Float16(4.0f)});
  auto r = run_kernel("ReduceSum", {x, make_tensor<int64_t>({1}, {1})}, 1, {attr_int("keepdims", 0)}, 13);
  ASSERT_TRUE(r.status.ok());
  auto v = to_vector<Float16>(r.outputs[0].tensor());
  EXPECT_FLOAT_EQ(static_cast<float>(v[0]), 4.0f);
  EXPECT_FLOAT_EQ(static_cast<float>(v[1]), 3.0f);
}

TEST(Reduce, Sum_LargeParallelMatchesSerial) {
  // 512 x 300: large enough to take the parallel paths for both axes.
  std::vector<float> v(512 * 300);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 7) - 3.0f;
  Tensor x = make_tensor<float>({512, 300}, v);
  auto rows = run_kernel("ReduceSum", {x, make_tensor<int64_t>({1}, {1})}, 1, {attr_int("keepdims", 0)}, 13);
  auto cols = run_kernel("ReduceSum", {x, make_tensor<int64_t>({1}, {0})}, 1, {attr_int("keepdims", 0)}, 13);
  auto all = run_kernel("ReduceSum", {x}, 1, {attr_int("keepdims", 0)}, 13);
  ASSERT_TRUE(rows.status.ok() && cols.status.ok() && all.status.ok());
  auto rv = to_vector<float>(rows.outputs[0].tensor());
  auto cv = to_vector<float>(cols.outputs[0].tensor());
  for (size_t r = 0; r < 512; ++r) {
    float s = 0;
    for (size_t c = 0; c < 300; ++c) s += v[r * 300 + c];
    ASSERT_FLOAT_EQ(rv[r], s) << r;
  }
  for (size_t c = 0; c < 300; ++c) {
    float s = 0;
    for (size_t r = 0; r < 512; ++r) s += v[r * 300 + c];
    ASSERT_FLOAT_EQ(cv[c], s) << c;
  }
  double total = 0;
  for (float f : v) total += f;
  EXPECT_NEAR(to_vector<float>(all.outputs[0].tensor())[0], total, 1e-2);
}

TEST(Reduce, Mean_KeptInnerTiles) {
  // [2, 3, 2500] over axis 1: kept inner rows wider than one tile, with a tail.
  std::vector<float> v(2 * 3 * 2500);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 37) % 101);
  auto r = run_kernel("ReduceMean", {make_tensor<float>({2, 3, 2500}, v)}, 1,
                      {attr_ints("axes", {1}), attr_int("keepdims", 0)}, 13);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  auto got = to_vector<float>(r.outputs[0].tensor());
  ASSERT_EQ(got.size(), 5000u);
  for (size_t o = 0; o < 2; ++o)
    for (size_t j = 0; j < 2500; ++j) {
      float s = 0;
      for (size_t k = 0; k < 3; ++k) s += v[(o * 3 + k) * 2500 + j];
      ASSERT_NEAR(got[o * 2500 + j], s / 3, 1e-4f) << o << "," << j;
    }
}

// Few kept tiles over many reduced rows split the rows into slabs: here
// [300, 5, 200, 3] over axes 0 and 2 gives 5 tiles of 3 columns over 60000
// rows, cut into slabs that start inside the inner reduced group. Integer
// values make every order of the sums exact; Max carries a NaN from one
// slab through the merge; random values give the same bits in arenas of
// 1 and 4 threads.
TEST(Reduce, KeptInnerSlabs_MatchReferenceAtAnyThreadCount) {
  const int64_t a = 300, k = 5, b = 200, w = 3;
  std::vector<float> v(static_cast<size_t>(a * k * b * w));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 7919) % 23) - 11.f;
  auto at = [&](int64_t i, int64_t kk, int64_t j, int64_t c) { return v[static_cast<size_t>(((i * k + kk) * b + j) * w + c)]; };
  auto reduce = [&](const char* op, const std::vector<float>& in) {
    auto r = run_kernel(op, {make_tensor<float>({a, k, b, w}, in), make_tensor<int64_t>({2}, {0, 2})}, 1,
                        {attr_int("keepdims", 0)}, 18);
    EXPECT_TRUE(r.status.ok()) << r.status.to_string();
    return r.status.ok() ? to_vector<float>(r.outputs[0].tensor()) : std::vector<float>();
  };
  const std::vector<float> sum = reduce("ReduceSum", v);
  ASSERT_EQ(sum.size(), static_cast<size_t>(k * w));
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t c = 0; c < w; ++c) {
      double want = 0;
      for (int64_t i = 0; i < a; ++i)
        for (int64_t j = 0; j < b; ++j) want += at(i, kk, j, c);
      EXPECT_EQ(sum[static_cast<size_t>(kk * w + c)], want) << kk << "," << c;
    }

  std::vector<float> with_nan = v;
  with_nan[static_cast<size_t>(((250 * k + 2) * b + 7) * w + 1)] = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> mx = reduce("ReduceMax", with_nan);
  ASSERT_EQ(mx.size(), static_cast<size_t>(k * w));
  for (size_t o = 0; o < mx.size(); ++o) {
    if (o == 2 * w + 1) EXPECT_TRUE(std::isnan(mx[o]));
    else EXPECT_EQ(mx[o], 11.f) << o;
  }

  std::vector<float> noise(v.size());
  for (size_t i = 0; i < v.size(); ++i) noise[i] = std::sin(static_cast<float>(i)) * 1e3f;
  std::vector<float> one, four;
  tbb::task_arena(1).execute([&] { one = reduce("ReduceSum", noise); });
  tbb::task_arena(4).execute([&] { four = reduce("ReduceSum", noise); });
  ASSERT_EQ(one.size(), four.size());
  for (size_t o = 0; o < one.size(); ++o) EXPECT_EQ(one[o], four[o]) << o;
}

TEST(ReduceSoftmax, Float16) {
  Tensor x = make_tensor<Float16>({1, 2}, {Float16(0.0f), Float16(0.0f)});
  auto r = run_kernel("Softmax", {x}, 1, {}, 13);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  auto v = to_vector<Float16>(r.outputs[0].tensor());
  EXPECT_FLOAT_EQ(static_cast<float>(v[0]), 0.5f);
  EXPECT_FLOAT_EQ(static_cast<float>(v[1]), 0.5f);
}

TEST(Reduce, Max_Opset18AxesInput) {
  auto r = run_kernel("ReduceMax", {x234(), make_tensor<int64_t>({1}, {2})}, 1, {attr_int("keepdims", 0)}, 18);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  expect_near(to_vector<float>(r.outputs[0].tensor()), {4, 8, 12, 16, 20, 24});
}

// ------------------------------------------------------------------ ArgMax

TEST(ReduceArgMax, KeepDimsDefaultAxis) {
  Tensor x = make_tensor<float>({2, 2}, {2, 1, 3, 10});
  auto r = run_kernel("ArgMax", {x}, 1, {}, 13);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.outputs[0].tensor().dims(), (Dims{1, 2}));
  EXPECT_EQ(to_vector<int64_t>(r.outputs[0].tensor()), (std::vector<int64_t>{1, 1}));
}

// Float rows of 16 or more without NaN take a vectorised path: ties (the
// extreme several times, zeros of both signs), both index rules, both ops,
// and a row with a NaN, against the loop's rules (the first element, then
// strictly better ones; NaN never better).
TEST(ReduceArgMax, LongFloatRows_MatchTheLoopRules) {
  const int64_t d = 37;
  std::vector<float> x(static_cast<size_t>(4 * d));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int64_t>(i * 7 % 5) - 2);  // many ties
  x[static_cast<size_t>(2 * d + 3)] = -0.f;
  x[static_cast<size_t>(3 * d + 5)] = std::numeric_limits<float>::quiet_NaN();
  for (const char* op : {"ArgMax", "ArgMin"}) {
    for (int64_t last : {0, 1}) {
      auto r = run_kernel(op, {make_tensor<float>({4, d}, x)}, 1,
                          {attr_int("axis", 1), attr_int("keepdims", 0), attr_int("select_last_index", last)}, 13);
      ASSERT_TRUE(r.status.ok()) << r.status.to_string();
      const std::vector<int64_t> got = to_vector<int64_t>(r.outputs[0].tensor());
      for (int64_t row = 0; row < 4; ++row) {
        const float* p = x.data() + row * d;
        const bool is_max = std::string(op) == "ArgMax";
        float best = p[0];
        int64_t want = 0;
        for (int64_t k = 1; k < d; ++k) {
          const float v = p[k];
          if (is_max ? (last ? v >= best : v > best) : (last ? v <= best : v < best)) {
            best = v;
            want = k;
          }
        }
        EXPECT_EQ(got[static_cast<size_t>(row)], want) << op << " last " << last << " row " << row;
      }
    }
  }
}

// Along a middle axis the columns go in blocks of 32 (here full ones and a
// partial one), compared a row at a time: ties, NaNs (never better, but a
// NaN first row stays), ArgMax and ArgMin, first and last index, against
// the rules element by element, for a float, a double and an integer type.
template <typename T>
void expect_middle_axis_arg_matches_rules() {
  const int64_t outer = 2, d = 7, inner = 300;
  std::vector<T> x(outer * d * inner);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<T>((i * 37) % 11 % 5);  // many ties
  if constexpr (std::is_floating_point_v<T>)
    for (size_t i = 0; i < x.size(); i += 41) x[i] = std::numeric_limits<T>::quiet_NaN();
  for (const char* op : {"ArgMax", "ArgMin"})
    for (int last = 0; last < 2; ++last) {
      auto r = run_kernel(op, {make_tensor<T>({outer, d, inner}, x)}, 1,
                          {attr_int("axis", 1), attr_int("keepdims", 0), attr_int("select_last_index", last)}, 13);
      ASSERT_TRUE(r.status.ok()) << r.status.to_string();
      const std::vector<int64_t> y = to_vector<int64_t>(r.outputs[0].tensor());
      const bool is_max = std::string(op) == "ArgMax";
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          auto at = [&](int64_t k) { return x[(o * d + k) * inner + i]; };
          int64_t want = 0;
          for (int64_t k = 1; k < d; ++k) {
            const T v = at(k), b = at(want);
            if (is_max ? (last ? v >= b : v > b) : (last ? v <= b : v < b)) want = k;
          }
          ASSERT_EQ(y[o * inner + i], want) << op << " last " << last << " at " << o << "," << i;
        }
    }
}

TEST(ReduceArgMax, MiddleAxisColumnBlocks_MatchTheLoopRules) {
  expect_middle_axis_arg_matches_rules<float>();
  expect_middle_axis_arg_matches_rules<double>();
  expect_middle_axis_arg_matches_rules<uint8_t>();
}

TEST(ReduceArgMax, SelectLastIndex_Ties) {
  Tensor x = make_tensor<float>({2, 3}, {2, 2, 1, 5, 1, 5});
  auto first = run_kernel("ArgMax", {x}, 1, {attr_int("axis", 1), attr_int("keepdims", 0)}, 13);
  auto last = run_kernel("ArgMax", {x}, 1, {attr_int("axis", 1), attr_int("keepdims", 0), attr_int("select_last_index", 1)}, 13);
  ASSERT_TRUE(first.status.ok() && last.status.ok());
  EXPECT_EQ(to_vector<int64_t>(first.outputs[0].tensor()), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(to_vector<int64_t>(last.outputs[0].tensor()), (std::vector<int64_t>{1, 2}));
}

TEST(ReduceArgMin, NegativeAxisInt32) {
  Tensor x = make_tensor<int32_t>({2, 3}, {4, -2, 7, 0, 9, -8});
  auto r = run_kernel("ArgMin", {x}, 1, {attr_int("axis", -1)}, 13);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.outputs[0].tensor().dims(), (Dims{2, 1}));
  EXPECT_EQ(to_vector<int64_t>(r.outputs[0].tensor()), (std::vector<int64_t>{1, 2}));
}

// int16 and uint16 are ArgMax/ArgMin types too (no Reduce* op takes
// them); they were refused as "unsupported input type".
TEST(ReduceArgMax, Int16AndUInt16) {
  auto i16 = run_kernel("ArgMax", {make_tensor<int16_t>({2, 3}, {-32768, 32767, 5, -1, -7, -1})}, 1,
                        {attr_int("axis", 1), attr_int("keepdims", 0), attr_int("select_last_index", 1)}, 13);
  ASSERT_TRUE(i16.status.ok()) << i16.status.to_string();
  EXPECT_EQ(to_vector<int64_t>(i16.outputs[0].tensor()), (std::vector<int64_t>{1, 2}));
  auto u16 =
      run_kernel("ArgMin", {make_tensor<uint16_t>({3, 2}, {65535, 7, 0, 7, 9, 0})}, 1, {attr_int("axis", 0)}, 13);
  ASSERT_TRUE(u16.status.ok()) << u16.status.to_string();
  EXPECT_EQ(to_vector<int64_t>(u16.outputs[0].tensor()), (std::vector<int64_t>{1, 2}));
}

TEST(ReduceArgMax, AxisOutOfRange) {
  auto r = run_kernel("ArgMax", {x234()}, 1, {attr_int("axis", 3)}, 13);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
}

// Contiguous runs of 64 or more go through 32 accumulators (float
// LogSumExp: the vector exp): lengths around that, against a double
// reference, and NaN or an infinity placed in the lanes and in the tail,
// of float and of double (which has lanes of its own for Max and Min).
TEST(Reduce, LongRuns_MatchReference) {
  for (int64_t d : {15, 16, 17, 37, 63, 64, 65, 100, 1000}) {
    std::vector<float> x(static_cast<size_t>(3 * d));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int64_t>(i * 7919 % 61) - 30) / 16;
    for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceL2", "ReduceLogSumExp"}) {
      // Opset 18: axes is an input for every Reduce op.
      auto r = run_kernel(op, {make_tensor<float>({3, d}, x), make_tensor<int64_t>({1}, {1})}, 1,
                          {attr_int("keepdims", 0)}, 18);
      ASSERT_TRUE(r.status.ok()) << op << ": " << r.status.to_string();
      std::vector<float> want;
      for (int64_t row = 0; row < 3; ++row) {
        const float* in = x.data() + row * d;
        double sum = 0, sq = 0, mx = in[0], mn = in[0], lse = 0;
        for (int64_t k = 0; k < d; ++k) {
          sum += in[k];
          sq += double(in[k]) * in[k];
          mx = std::max<double>(mx, in[k]);
          mn = std::min<double>(mn, in[k]);
        }
        for (int64_t k = 0; k < d; ++k) lse += std::exp(in[k] - mx);
        const std::string o = op;
        want.push_back(static_cast<float>(o == "ReduceSum"    ? sum
                                          : o == "ReduceMean" ? sum / d
                                          : o == "ReduceMax"  ? mx
                                          : o == "ReduceMin"  ? mn
                                          : o == "ReduceL2"   ? std::sqrt(sq)
                                                              : mx + std::log(lse)));
      }
      expect_near(to_vector<float>(r.outputs[0].tensor()), want, 1e-5f);
    }
  }
  // NaN and infinities (which send Max and Min down their exact path), in
  // the lanes and in the tail.
  auto specials = [](auto zero) {
    using T = decltype(zero);
    const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
    for (int64_t at : {0, 5, 33, 63, 64, 69}) {  // 70 elements: 64 in lanes, 6 in the tail
      for (T special : {nan, inf, -inf}) {
        std::vector<T> x(70, T(1));
        x[static_cast<size_t>(at)] = special;
        for (const char* op : {"ReduceMax", "ReduceMin", "ReduceSum", "ReduceLogSumExp"}) {
          auto r = run_kernel(op, {make_tensor<T>({70}, x)}, 1, {attr_int("keepdims", 0)}, 18);
          ASSERT_TRUE(r.status.ok()) << r.status.to_string();
          const T got = to_vector<T>(r.outputs[0].tensor())[0];
          const std::string o = op;
          const T want = special != special ? nan
                         : o == "ReduceSum" ? special
                         : o == "ReduceMax" ? std::max(special, T(1))
                         : o == "ReduceMin" ? std::min(special, T(1))
                         : special > 0      ? special
                                            : T(1) + std::log(T(69));  // e^1 69 times, and e^-inf
          if (want != want) EXPECT_TRUE(std::isnan(got)) << op << " NaN at " << at;
          else if (o == "ReduceLogSumExp" && special < 0) EXPECT_NEAR(got, want, 1e-5) << op << " at " << at;
          else EXPECT_EQ(got, want) << op << " " << special << " at " << at;
        }
      }
    }
  };
  specials(0.f);
  specials(0.0);
}

// ----------------------------------------------------------------- Softmax

TEST(ReduceSoftmax, LastAxis) {
  Tensor x = make_tensor<float>({2, 3}, {1, 2, 3, 1, 2, 3});
  auto r = run_kernel("Softmax", {x}, 1, {}, 13);
  ASSERT_TRUE(r.status.ok());
  expect_near(to_vector<float>(r.outputs[0].tensor()),
              {0.09003057f, 0.24472846f, 0.66524094f, 0.09003057f, 0.24472846f, 0.66524094f});
}

TEST(ReduceSoftmax, LogSoftmaxAxis0) {
  Tensor x = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto r = run_kernel("LogSoftmax", {x}, 1, {attr_int("axis", 0)}, 13);
  ASSERT_TRUE(r.status.ok());
  expect_near(to_vector<float>(r.outputs[0].tensor()),
              {-3.0485873f, -3.0485873f, -3.0485873f, -0.0485873f, -0.0485873f, -0.0485873f});
}

// Large inputs: x - max is exact, so the outputs near 0 are as accurate
// as the log of the sum. Subtracting max + log(sum) in one step rounded at
// x's magnitude (3e-5 at 1000), as the sweep against ONNX Runtime showed.
TEST(ReduceSoftmax, LogSoftmax_LargeInputs_OutputsNearZeroStayAccurate) {
  const std::vector<double> row = {1000, 999.5, 999.25, 1000.125};
  double sum = 0;
  for (double v : row) sum += std::exp(v - 1000.125);
  std::vector<float> want;
  for (double v : row) want.push_back(static_cast<float>((v - 1000.125) - std::log(sum)));
  // Along the last axis (the row path) and along axis 0 of [4, 2] (the
  // block path).
  const std::vector<float> x(row.begin(), row.end());
  auto r = run_kernel("LogSoftmax", {make_tensor<float>({1, 4}, x)}, 1, {}, 13);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  std::vector<float> got = to_vector<float>(r.outputs[0].tensor());
  for (size_t k = 0; k < 4; ++k) EXPECT_NEAR(got[k], want[k], 2e-6) << k;
  std::vector<float> columns;
  for (float v : x) columns.insert(columns.end(), {v, v});
  r = run_kernel("LogSoftmax", {make_tensor<float>({4, 2}, columns)}, 1, {attr_int("axis", 0)}, 13);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  got = to_vector<float>(r.outputs[0].tensor());
  for (size_t k = 0; k < 8; ++k) EXPECT_NEAR(got[k], want[k / 2], 2e-6) << k;
}

TEST(ReduceSoftmax, Opset11NegativeAxis_CountsFromTheLastAxis) {
  // axis=-1 on [2, 3] is axis 1 (range [-r, r-1]): one softmax per row, not
  // one per element.
  Tensor x = make_tensor<float>({2, 3}, {1, 2, 3, 1, 2, 3});
  auto r = run_kernel("Softmax", {x}, 1, {attr_int("axis", -1)}, 11);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  expect_near(to_vector<float>(r.outputs[0].tensor()),
              {0.09003057f, 0.24472846f, 0.66524094f, 0.09003057f, 0.24472846f, 0.66524094f});
  auto end = run_kernel("Softmax", {x}, 1, {attr_int("axis", 2)}, 11);
  ASSERT_TRUE(end.status.ok()) << end.status.to_string();
  expect_near(to_vector<float>(end.outputs[0].tensor()), {1, 1, 1, 1, 1, 1});
  EXPECT_EQ(run_kernel("Softmax", {x}, 1, {attr_int("axis", -3)}, 11).status.code(), StatusCode::kInvalidArgument);
}

TEST(ReduceSoftmax, Opset11CoercesTo2D) {
  // axis=1 on [1, 2, 2]: one softmax over all 4 elements.
  Tensor x = make_tensor<float>({1, 2, 2}, {0, 0, 0, 0});
  auto r = run_kernel("Softmax", {x}, 1, {attr_int("axis", 1)}, 11);
  ASSERT_TRUE(r.status.ok());
  expect_near(to_vector<float>(r.outputs[0].tensor()), {0.25f, 0.25f, 0.25f, 0.25f});
  auto r13 = run_kernel("Softmax", {x}, 1, {attr_int("axis", 1)}, 13);
  ASSERT_TRUE(r13.status.ok());
  expect_near(to_vector<float>(r13.outputs[0].tensor()), {0.5f, 0.5f, 0.5f, 0.5f});
}

TEST(ReduceSoftmax, LargeNumbers) {
  Tensor x = make_tensor<float>({1, 2}, {10000, 10000});
  auto r = run_kernel("Softmax", {x}, 1, {}, 13);
  ASSERT_TRUE(r.status.ok());
  expect_near(to_vector<float>(r.outputs[0].tensor()), {0.5f, 0.5f});
}

// Rows along the last axis take a path of their own (8 lanes plus a tail):
// lengths around the lane count, against a double-precision reference.
TEST(ReduceSoftmax, LastAxisRows_MatchReference) {
  for (int64_t d : {1, 7, 8, 9, 37, 1024}) {
    std::vector<float> x(static_cast<size_t>(2 * d));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int64_t>(i * 7919 % 61) - 30) / 4;
    for (const char* op : {"Softmax", "LogSoftmax"}) {
      auto r = run_kernel(op, {make_tensor<float>({2, d}, x)}, 1, {}, 13);
      ASSERT_TRUE(r.status.ok()) << r.status.to_string();
      std::vector<float> want(x.size());
      for (int64_t row = 0; row < 2; ++row) {
        const float* in = x.data() + row * d;
        const double m = *std::max_element(in, in + d);
        double sum = 0;
        for (int64_t k = 0; k < d; ++k) sum += std::exp(double(in[k]) - m);
        for (int64_t k = 0; k < d; ++k)
          want[static_cast<size_t>(row * d + k)] = static_cast<float>(
              std::string(op) == "Softmax" ? std::exp(double(in[k]) - m) / sum : double(in[k]) - m - std::log(sum));
      }
      expect_near(to_vector<float>(r.outputs[0].tensor()), want, 1e-5f);
    }
  }
}

TEST(ReduceSoftmax, LastAxisRows_NonFiniteInputs) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  // 9 elements a row, so the special values fall in the lanes and the tail.
  std::vector<float> x = {0, -inf, 0, 0, 0, 0, 0, 0, -inf,  // -inf gives 0
                          0, 0, 0, nan, 0, 0, 0, 0, 0,      // NaN spreads over the row
                          0, 0, 0, 0, 0, 0, 0, 0, nan,
                          -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf};
  auto r = run_kernel("Softmax", {make_tensor<float>({4, 9}, x)}, 1, {}, 13);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  const std::vector<float> y = to_vector<float>(r.outputs[0].tensor());
  for (int k = 0; k < 9; ++k) {
    EXPECT_FLOAT_EQ(y[static_cast<size_t>(k)], k == 1 || k == 8 ? 0.f : 1.f / 7) << k;
    for (int row = 1; row < 4; ++row) EXPECT_TRUE(std::isnan(y[static_cast<size_t>(row * 9 + k)])) << row << "," << k;
  }
}

TEST(ReduceSoftmax, AxisOutOfRange) {
  auto r = run_kernel("Softmax", {x234()}, 1, {attr_int("axis", 3)}, 13);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  r = run_kernel("LogSoftmax", {x234()}, 1, {attr_int("axis", -4)}, 13);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
}

TEST(ReduceHardmax, FirstMaximumAlongMiddleAxis) {
  Tensor x = make_tensor<float>({1, 3, 2}, {1, 5, 3, 5, 3, 0});
  auto r = run_kernel("Hardmax", {x}, 1, {attr_int("axis", 1)}, 13);
  ASSERT_TRUE(r.status.ok());
  expect_near(to_vector<float>(r.outputs[0].tensor()), {0, 1, 1, 0, 0, 0});
}

// Float rows of 16 or more along the last axis take a vectorised path: the
// first of tied maxima, a maximum in the vector tail, and rows with a NaN
// (which follow the loop's rules: the first element, then strictly larger
// ones, so a leading NaN wins) against those rules.
TEST(ReduceHardmax, LongRows_FirstMaximum_NaNByTheLoopsRules) {
  const int64_t rows = 5, d = 37;
  std::vector<float> x(rows * d);
  for (int64_t i = 0; i < rows * d; ++i) x[i] = static_cast<float>((i * 7) % 13);
  x[0 * d + 20] = x[0 * d + 30] = 50;                      // tie: 20 wins
  x[1 * d + 36] = 60;                                      // in the tail
  x[2 * d + 10] = std::numeric_limits<float>::quiet_NaN();  // NaN inside: skipped
  x[3 * d + 0] = std::numeric_limits<float>::quiet_NaN();   // NaN first: wins
  auto r = run_kernel("Hardmax", {make_tensor<float>({rows, d}, x)}, 1, {}, 13);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  const std::vector<float> y = to_vector<float>(r.outputs[0].tensor());
  for (int64_t row = 0; row < rows; ++row) {
    int64_t want = 0;
    for (int64_t k = 1; k < d; ++k)
      if (x[row * d + k] > x[row * d + want]) want = k;
    for (int64_t k = 0; k < d; ++k) ASSERT_EQ(y[row * d + k], k == want ? 1.f : 0.f) << "row " << row << ", " << k;
  }
  EXPECT_EQ(y[0 * d + 20], 1.f);
  EXPECT_EQ(y[1 * d + 36], 1.f);
  EXPECT_EQ(y[3 * d + 0], 1.f);
}

// ------------------------------------------------------------------ CumSum

TEST(ReduceCumSum, ExclusiveReverse) {
  Tensor x = make_tensor<double>({5}, {1, 2, 3, 4, 5});
  Tensor axis = make_tensor<int32_t>({}, {0});
  auto plain = run_kernel("CumSum", {x, axis}, 1, {}, 14);
  auto excl = run_kernel("CumSum", {x, axis}, 1, {attr_int("exclusive", 1)}, 14);
  auto rev = run_kernel("CumSum", {x, axis}, 1, {attr_int("reverse", 1)}, 14);
  auto both = run_kernel("CumSum", {x, axis}, 1, {attr_int("reverse", 1), attr_int("exclusive", 1)}, 14);
  ASSERT_TRUE(plain.status.ok() && excl.status.ok() && rev.status.ok() && both.status.ok());
  EXPECT_EQ(to_vector<double>(plain.outputs[0].tensor()), (std::vector<double>{1, 3, 6, 10, 15}));
  EXPECT_EQ(to_vector<double>(excl.outputs[0].tensor()), (std::vector<double>{0, 1, 3, 6, 10}));
  EXPECT_EQ(to_vector<double>(rev.outputs[0].tensor()), (std::vector<double>{15, 14, 12, 9, 5}));
  EXPECT_EQ(to_vector<double>(both.outputs[0].tensor()), (std::vector<double>{14, 12, 9, 5, 0}));
}

// Along the last axis rows go eight at a time, then one by one: 19 rows
// cover both, each compared with its own sequential sum (same order, so
// exactly equal), in every mode.
TEST(ReduceCumSum, LastAxisRowGroups_MatchSequentialSums) {
  const int64_t rows = 19, d = 37;
  std::vector<float> v(static_cast<size_t>(rows * d));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 7919) % 101) / 7.f - 6.f;
  for (int64_t reverse : {0, 1})
    for (int64_t exclusive : {0, 1}) {
      auto r = run_kernel("CumSum", {make_tensor<float>({rows, d}, v), make_tensor<int64_t>({}, {1})}, 1,
                          {attr_int("reverse", reverse), attr_int("exclusive", exclusive)}, 14);
      ASSERT_TRUE(r.status.ok()) << r.status.to_string();
      const std::vector<float> got = to_vector<float>(r.outputs[0].tensor());
      for (int64_t o = 0; o < rows; ++o) {
        float a = 0;
        for (int64_t s = 0; s < d; ++s) {
          const size_t k = static_cast<size_t>(o * d + (reverse ? d - 1 - s : s));
          if (!exclusive) a += v[k];
          EXPECT_EQ(got[k], a) << "row " << o << " reverse " << reverse << " exclusive " << exclusive;
          if (exclusive) a += v[k];
        }
      }
    }
}

TEST(ReduceCumSum, Axis0Of2D) {
  Tensor x = make_tensor<int64_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto r = run_kernel("CumSum", {x, make_tensor<int64_t>({1}, {-2})}, 1, {}, 14);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(to_vector<int64_t>(r.outputs[0].tensor()), (std::vector<int64_t>{1, 2, 3, 5, 7, 9}));
}

// Along an outer axis the columns go in blocks of 256 bytes of sums (32
// int64 sums of int32, 64 float sums): full and partial blocks, several
// outer slices, exclusive and reverse, against sequential sums. Small
// integers, so that float sums are exact too.
template <typename T>
void expect_outer_axis_cumsum_matches_sequential() {
  const int64_t outer = 3, d = 9, inner = 150;
  std::vector<T> x(outer * d * inner);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<T>(static_cast<int>(i % 17) - 8);
  for (int flags = 0; flags < 4; ++flags) {
    const bool excl = flags & 1, rev = flags & 2;
    auto r = run_kernel("CumSum", {make_tensor<T>({outer, d, inner}, x), make_tensor<int64_t>({}, {1})}, 1,
                        {attr_int("exclusive", excl), attr_int("reverse", rev)}, 14);
    ASSERT_TRUE(r.status.ok()) << r.status.to_string();
    const std::vector<T> y = to_vector<T>(r.outputs[0].tensor());
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        T sum = 0;
        for (int64_t s = 0; s < d; ++s) {
          const int64_t k = rev ? d - 1 - s : s, at = (o * d + k) * inner + i;
          if (!excl) sum += x[at];
          ASSERT_EQ(y[at], sum) << "flags " << flags << " at " << o << "," << k << "," << i;
          if (excl) sum += x[at];
        }
      }
  }
}

TEST(ReduceCumSum, OuterAxisColumnBlocks_MatchSequentialSums) {
  expect_outer_axis_cumsum_matches_sequential<int32_t>();
  expect_outer_axis_cumsum_matches_sequential<float>();
  expect_outer_axis_cumsum_matches_sequential<double>();
}

TEST(ReduceCumSum, AxisOutOfRange) {
  auto r = run_kernel("CumSum", {x234(), make_tensor<int64_t>({}, {3})}, 1, {}, 14);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sy

// Unit tests for the CPU quantization kernels and Dropout
// (elementwise_quant.cc). Expected values are numpy's, hard-coded.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/devices/kernel_test_util.h"

namespace sy {
namespace {

using testing::attr_float;
using testing::attr_int;
using testing::expect_near;
using testing::make_tensor;
using testing::out;
using testing::out_dims;
using testing::run_kernel;

RuntimeValue T(const Tensor& t) { return RuntimeValue(t); }

template <typename V>
Tensor F(const Dims& d, std::vector<V> v) {
  return make_tensor<V>(d, v);
}

TEST(Elementwise, QuantizeLinear_PerTensorRoundsHalfToEven) {
  auto r = run_kernel("QuantizeLinear", {T(F<float>({6}, {0, 2, 3, 1000, -254, -1000})), T(F<float>({}, {2})),
                                         T(F<uint8_t>({}, {128}))},
                      1, {}, 13);
  // numpy: clip(rint(x/2) + 128, 0, 255) = [128, 129, 130, 255, 1, 0]
  EXPECT_EQ(out<uint8_t>(r), (std::vector<uint8_t>{128, 129, 130, 255, 1, 0}));
  auto i8 = run_kernel("QuantizeLinear", {T(F<float>({3}, {-300, 5, 300})), T(F<float>({}, {1})),
                                          T(F<int8_t>({}, {1}))},
                       1, {}, 13);
  EXPECT_EQ(out<int8_t>(i8), (std::vector<int8_t>{-128, 6, 127}));
  auto nozp = run_kernel("QuantizeLinear", {T(F<float>({2}, {2.5f, 3.5f})), T(F<float>({}, {1}))}, 1, {}, 13);
  EXPECT_EQ(out<uint8_t>(nozp), (std::vector<uint8_t>{2, 4}));
}

TEST(Elementwise, QuantizeLinear_PerAxis) {
  auto r = run_kernel("QuantizeLinear", {T(F<float>({1, 2, 2}, {2, 4, 9, 12})), T(F<float>({2}, {2, 3})),
                                         T(F<uint8_t>({2}, {0, 10}))},
                      1, {attr_int("axis", 1)}, 13);
  EXPECT_EQ(out<uint8_t>(r), (std::vector<uint8_t>{1, 2, 13, 14}));
  auto bad = run_kernel("QuantizeLinear", {T(F<float>({1, 2, 2}, {2, 4, 9, 12})), T(F<float>({3}, {2, 3, 4}))}, 1,
                        {attr_int("axis", 1)}, 13);
  EXPECT_EQ(bad.status.code(), StatusCode::kInvalidArgument);
}

TEST(Elementwise, DequantizeLinear_PerTensorAndAxis) {
  auto r = run_kernel("DequantizeLinear", {T(F<uint8_t>({4}, {0, 3, 128, 255})), T(F<float>({}, {2})),
                                           T(F<uint8_t>({}, {128}))},
                      1, {}, 13);
  EXPECT_EQ(out<float>(r), (std::vector<float>{-256, -250, 0, 254}));
  auto ax = run_kernel("DequantizeLinear", {T(F<int8_t>({2, 2}, {1, 2, 3, 4})), T(F<float>({2}, {1, 10})),
                                            T(F<int8_t>({2}, {0, 1}))},
                       1, {attr_int("axis", 0)}, 13);
  EXPECT_EQ(out<float>(ax), (std::vector<float>{1, 2, 20, 30}));
  auto i32 = run_kernel("DequantizeLinear", {T(F<int32_t>({2}, {-5, 7})), T(F<float>({}, {0.5f}))}, 1, {}, 13);
  EXPECT_EQ(out<float>(i32), (std::vector<float>{-2.5f, 3.5f}));
}

// Opset 21's output_dtype names y's type when no zero point does; it must
// agree with one that does.
TEST(Elementwise, QuantizeLinear_OutputDtype) {
  const int64_t int8 = static_cast<int64_t>(DataType::kInt8);
  auto r = run_kernel("QuantizeLinear", {T(F<float>({3}, {-300, -3, 5})), T(F<float>({}, {1}))}, 1,
                      {attr_int("output_dtype", int8)}, 21);
  EXPECT_EQ(out<int8_t>(r), (std::vector<int8_t>{-128, -3, 5}));
  auto clash = run_kernel("QuantizeLinear", {T(F<float>({1}, {1})), T(F<float>({}, {1})), T(F<uint8_t>({}, {0}))}, 1,
                          {attr_int("output_dtype", int8)}, 21);
  EXPECT_EQ(clash.status.code(), StatusCode::kInvalidArgument);
  auto not_float = run_kernel("QuantizeLinear", {T(F<float>({1}, {1})), T(F<float>({}, {1}))}, 1,
                              {attr_int("precision", static_cast<int64_t>(DataType::kInt32))}, 23);
  EXPECT_EQ(not_float.status.code(), StatusCode::kUnimplemented);
}

// Opset 23: a double scale, or precision double, divides in double:
// 16777217 / 1 is not a float.
TEST(Elementwise, QuantizeLinear_DoublePrecision) {
  const std::vector<RuntimeValue> in = {T(F<int32_t>({1}, {16777217})), T(F<float>({}, {1})),
                                        T(F<int32_t>({}, {-16777216}))};
  auto as_float = run_kernel("QuantizeLinear", in, 1, {}, 23);
  EXPECT_EQ(out<int32_t>(as_float), (std::vector<int32_t>{0}));
  auto as_double =
      run_kernel("QuantizeLinear", in, 1, {attr_int("precision", static_cast<int64_t>(DataType::kDouble))}, 23);
  EXPECT_EQ(out<int32_t>(as_double), (std::vector<int32_t>{1}));
}

// Opset 23's output_dtype gives y a type other than the scale's.
TEST(Elementwise, DequantizeLinear_OutputDtype) {
  auto r = run_kernel("DequantizeLinear", {T(F<uint8_t>({2}, {1, 130})), T(F<float>({}, {0.5f})),
                                           T(F<uint8_t>({}, {128}))},
                      1, {attr_int("output_dtype", static_cast<int64_t>(DataType::kFloat16))}, 23);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.outputs[0].tensor().dtype(), DataType::kFloat16);
  const std::vector<Float16> y = out<Float16>(r);
  ASSERT_EQ(y.size(), 2u);
  EXPECT_EQ(static_cast<float>(y[0]), -63.5f);
  EXPECT_EQ(static_cast<float>(y[1]), 1.f);
  auto not_float = run_kernel("DequantizeLinear", {T(F<uint8_t>({1}, {1})), T(F<float>({}, {1}))}, 1,
                              {attr_int("output_dtype", static_cast<int64_t>(DataType::kInt32))}, 23);
  EXPECT_FALSE(not_float.status.ok());
}

TEST(Elementwise, DynamicQuantizeLinear_MatchesReference) {
  auto r = run_kernel("DynamicQuantizeLinear", {T(F<float>({6}, {0, 2, -3, -2.5f, 1.34f, 0.5f}))}, 3, {}, 11);
  EXPECT_EQ(out<uint8_t>(r, 0), (std::vector<uint8_t>{153, 255, 0, 26, 221, 179}));
  expect_near(out<float>(r, 1), {0.019607844f}, 1e-8f);
  EXPECT_EQ(out<uint8_t>(r, 2), (std::vector<uint8_t>{153}));
  EXPECT_EQ(out_dims(r, 1), Dims{});
  auto neg = run_kernel("DynamicQuantizeLinear", {T(F<float>({6}, {-1, -2.1f, -1.3f, -2.5f, -3.34f, -4}))}, 3, {}, 11);
  EXPECT_EQ(out<uint8_t>(neg, 0), (std::vector<uint8_t>{191, 121, 172, 96, 42, 0}));
  EXPECT_EQ(out<uint8_t>(neg, 2), (std::vector<uint8_t>{255}));
  auto zeros = run_kernel("DynamicQuantizeLinear", {T(F<float>({2}, {0, 0}))}, 3, {}, 11);
  EXPECT_EQ(out<uint8_t>(zeros, 0), (std::vector<uint8_t>{0, 0}));
}

TEST(Elementwise, Dropout_InferenceIsIdentityWithTrueMask) {
  auto x = F<float>({2, 2}, {1, 2, 3, 4});
  auto r = run_kernel("Dropout", {T(x)}, 2, {}, 13);
  EXPECT_EQ(out<float>(r), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(out<bool>(r, 1), (std::vector<bool>{true, true, true, true}));
  auto zero_ratio = run_kernel("Dropout", {T(x), T(F<float>({}, {0.f})), T(F<bool>({}, {true}))}, 2, {}, 13);
  EXPECT_EQ(out<float>(zero_ratio), (std::vector<float>{1, 2, 3, 4}));
  auto old = run_kernel("Dropout", {T(x)}, 2, {attr_float("ratio", 0.2f)}, 7);
  EXPECT_EQ(out<float>(old), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(out<float>(old, 1), (std::vector<float>{1, 1, 1, 1}));  // mask has type T before opset 10
}

TEST(Elementwise, Dropout_TrainingScalesKeptValues) {
  std::vector<float> v(1000, 1.0f);
  auto r = run_kernel("Dropout", {T(F<float>({1000}, v)), T(F<float>({}, {0.75f})), T(F<bool>({}, {true}))}, 2,
                      {attr_int("seed", 3)}, 13);
  auto y = out<float>(r);
  auto m = out<bool>(r, 1);
  ASSERT_EQ(y.size(), 1000u);
  ASSERT_EQ(m.size(), 1000u);
  int kept = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    EXPECT_EQ(y[i], m[i] ? 4.0f : 0.0f);
    kept += m[i];
  }
  EXPECT_GT(kept, 150);
  EXPECT_LT(kept, 350);
  auto bad = run_kernel("Dropout", {T(F<float>({1}, {1})), T(F<float>({}, {1.5f}))}, 1, {}, 13);
  EXPECT_EQ(bad.status.code(), StatusCode::kInvalidArgument);
}

// Opset 21's blocked parameters: the scale is x's shape with the axis cut
// into blocks (the last one short), along the innermost axis and an outer one.
TEST(Elementwise, QuantizeDequantize_Blocked) {
  // x [2, 5] blocked by 2 along axis 1: scale [2, 3].
  const std::vector<float> x = {2, 4, 6, 8, 10, -2, -4, -6, -8, -10};
  auto q = run_kernel(
      "QuantizeLinear",
      {T(F<float>({2, 5}, x)), T(F<float>({2, 3}, {1, 2, 0.5f, 2, 1, 4})), T(F<int8_t>({2, 3}, {0, 1, 2, -1, 0, 3}))},
      1, {attr_int("axis", 1), attr_int("block_size", 2)}, 21);
  ASSERT_TRUE(q.status.ok()) << q.status.to_string();
  EXPECT_EQ(out<int8_t>(q), (std::vector<int8_t>{2, 4, 4, 5, 22, -2, -3, -6, -8, 1}));
  auto d = run_kernel("DequantizeLinear",
                      {T(F<int8_t>({2, 5}, {2, 4, 4, 5, 22, -2, -3, -6, -8, 1})),
                       T(F<float>({2, 3}, {1, 2, 0.5f, 2, 1, 4})), T(F<int8_t>({2, 3}, {0, 1, 2, -1, 0, 3}))},
                      1, {attr_int("axis", 1), attr_int("block_size", 2)}, 21);
  ASSERT_TRUE(d.status.ok()) << d.status.to_string();
  // The last element's -2.5 rounded to -2 on the way in.
  EXPECT_EQ(out<float>(d), (std::vector<float>{2, 4, 6, 8, 10, -2, -4, -6, -8, -8}));
  // x [3, 2] blocked by 2 along axis 0: scale [2, 2]; rows 0 and 1 share
  // scale row 0, row 2 has scale row 1.
  auto outer = run_kernel("DequantizeLinear",
                          {T(F<uint8_t>({3, 2}, {10, 20, 30, 40, 50, 60})), T(F<float>({2, 2}, {1, 10, 100, 1000}))}, 1,
                          {attr_int("axis", 0), attr_int("block_size", 2)}, 21);
  ASSERT_TRUE(outer.status.ok()) << outer.status.to_string();
  EXPECT_EQ(out<float>(outer), (std::vector<float>{10, 200, 30, 400, 5000, 60000}));
  // An axis shorter than the block: one block per axis, but a scale per
  // row still (not per tensor).
  auto short_axis = run_kernel("QuantizeLinear", {T(F<float>({2, 1}, {8, 8})), T(F<float>({2, 1}, {2, 4}))}, 1,
                               {attr_int("axis", 1), attr_int("block_size", 4)}, 21);
  ASSERT_TRUE(short_axis.status.ok()) << short_axis.status.to_string();
  EXPECT_EQ(out<uint8_t>(short_axis), (std::vector<uint8_t>{4, 2}));
  // A 1-D x with block_size: the scale holds ceil(5 / 3) = 2 blocks.
  auto one_d = run_kernel("QuantizeLinear", {T(F<float>({5}, {3, 6, 9, 12, 15})), T(F<float>({2}, {3, 0.5f}))}, 1,
                          {attr_int("axis", 0), attr_int("block_size", 3)}, 21);
  ASSERT_TRUE(one_d.status.ok()) << one_d.status.to_string();
  EXPECT_EQ(out<uint8_t>(one_d), (std::vector<uint8_t>{1, 2, 3, 24, 30}));
  // The scale's shape must match the blocks exactly.
  for (const Dims& bad : {Dims{2, 2}, Dims{2, 5}, Dims{3}, Dims{1, 2, 3}}) {
    auto r =
        run_kernel("QuantizeLinear",
                   {T(F<float>({2, 5}, x)), T(F<float>(bad, std::vector<float>(static_cast<size_t>(bad.numel()), 1)))},
                   1, {attr_int("axis", 1), attr_int("block_size", 2)}, 21);
    EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument) << bad.to_string();
  }
  auto negative =
      run_kernel("QuantizeLinear", {T(F<float>({2, 5}, x)), T(F<float>({}, {1}))}, 1, {attr_int("block_size", -1)}, 21);
  EXPECT_EQ(negative.status.code(), StatusCode::kInvalidArgument);
}

// Per-axis parameters over runs that the parallel split cuts in the middle
// ([2, 5, 20011] on axis 1: runs of 20011 elements against ranges of 16K
// and more), in both directions, with int8 zero points and saturation.
TEST(Elementwise, QuantizeDequantize_PerAxisRunsAcrossTheSplit) {
  const int64_t A = 2, K = 5, I = 20011, n = A * K * I;
  std::vector<float> x(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = static_cast<float>((i * 37) % 1001) - 500.f;
  const std::vector<float> scale = {0.5f, 1.f, 2.f, 3.f, 4.f};
  const std::vector<int8_t> zero = {0, -3, 5, 100, -100};
  auto q = run_kernel("QuantizeLinear", {T(F<float>({A, K, I}, x)), T(F<float>({K}, scale)), T(F<int8_t>({K}, zero))},
                      1, {attr_int("axis", 1)}, 13);
  const std::vector<int8_t> got = out<int8_t>(q);
  ASSERT_EQ(got.size(), static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<size_t>(i / I % K);
    const float v = std::nearbyint(x[static_cast<size_t>(i)] / scale[k]) + zero[k];
    ASSERT_EQ(got[static_cast<size_t>(i)], static_cast<int8_t>(std::clamp(v, -128.f, 127.f))) << i;
  }
  auto d = run_kernel("DequantizeLinear", {T(F<int8_t>({A, K, I}, got)), T(F<float>({K}, scale)), T(F<int8_t>({K}, zero))},
                      1, {attr_int("axis", 1)}, 13);
  const std::vector<float> back = out<float>(d);
  ASSERT_EQ(back.size(), static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<size_t>(i / I % K);
    ASSERT_EQ(back[static_cast<size_t>(i)], static_cast<float>(got[static_cast<size_t>(i)] - zero[k]) * scale[k]) << i;
  }
}

}  // namespace
}  // namespace sy

// DeformConv against Conv (zero offsets), hand-computed interpolation,
// masks, offset groups, NaN and infinite offsets, and bad inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "tests/devices/kernel_test_util.h"

namespace sy::testing {
namespace {

Tensor random_tensor(const Dims& dims, uint32_t seed) {
  return make_tensor<float>(dims, random_floats(dims.numel(), seed));
}

Tensor zeros(const Dims& dims) {
  return make_tensor<float>(dims, std::vector<float>(static_cast<size_t>(dims.numel())));
}

// With every offset zero and no mask, DeformConv is Conv: over 1-D to 3-D
// windows with groups, strides, pads and dilations, and over more output
// positions than one column tile holds.
TEST(DeformConv, ZeroOffsets_AreConv) {
  struct Case {
    Dims x, w, out;
    std::vector<Attribute> attrs;
  };
  const std::vector<Case> cases = {
      {{2, 4, 9, 8}, {6, 2, 3, 3}, {2, 6, 5, 3},
       {attr_int("group", 2), attr_ints("strides", {2, 2}), attr_ints("pads", {1, 0, 1, 1}),
        attr_ints("dilations", {1, 2})}},
      {{1, 3, 11}, {2, 3, 4}, {1, 2, 4}, {attr_ints("strides", {2}), attr_ints("dilations", {1})}},
      {{1, 2, 4, 5, 6}, {3, 2, 2, 3, 2}, {1, 3, 3, 3, 5}, {}},
      {{1, 64, 50, 50}, {4, 64, 3, 3}, {1, 4, 50, 50}, {attr_ints("pads", {1, 1, 1, 1})}},  // > 1 tile
  };
  uint32_t seed = 1;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.x.to_string());
    const Tensor x = random_tensor(c.x, seed++), w = random_tensor(c.w, seed++);
    const Tensor b = random_tensor({c.w[0]}, seed++);
    Dims offset_dims = c.out;
    offset_dims[1] = (c.w.numel() / (c.w[0] * c.w[1])) * static_cast<int64_t>(c.x.size() - 2);
    auto conv = run_kernel("Conv", {x, w, b}, 1, c.attrs, 17);
    auto deform = run_kernel("DeformConv", {x, w, zeros(offset_dims), b}, 1, c.attrs, 19);
    ASSERT_EQ(out_dims(deform), c.out);
    expect_near(out<float>(deform), out<float>(conv), 1e-4f);
  }
}

// The same over double and float16 (which computes in float).
TEST(DeformConv, ZeroOffsets_AreConv_OtherTypes) {
  const Dims xd{1, 2, 5, 4}, wd{3, 2, 2, 2};
  const std::vector<float> xv = random_floats(xd.numel(), 7), wv = random_floats(wd.numel(), 8);
  const Dims od{1, 8, 4, 3};
  auto as = [](auto tag, const Dims& d, const std::vector<float>& v) {
    using T = decltype(tag);
    std::vector<T> t;
    for (float f : v) t.push_back(T(f));
    return make_tensor<T>(d, t);
  };
  auto conv = run_kernel("Conv", {as(double{}, xd, xv), as(double{}, wd, wv)}, 1, {}, 17);
  auto deform = run_kernel("DeformConv", {as(double{}, xd, xv), as(double{}, wd, wv),
                                          as(double{}, od, std::vector<float>(96))}, 1, {}, 19);
  const std::vector<double> want = out<double>(conv), got = out<double>(deform);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12);
  auto half = run_kernel("DeformConv", {as(Float16{}, xd, xv), as(Float16{}, wd, wv),
                                        as(Float16{}, od, std::vector<float>(96))}, 1, {}, 19);
  const std::vector<Float16> got16 = out<Float16>(half);
  ASSERT_EQ(got16.size(), want.size());
  for (size_t i = 0; i < got16.size(); ++i) EXPECT_NEAR(static_cast<float>(got16[i]), want[i], 1e-2);
}

// A 1x1 kernel over one channel: each output reads the input at its own
// position plus its offset, bilinearly, zero outside, times the mask.
TEST(DeformConv, FractionalOffsets_InterpolateBilinearly) {
  const Tensor x = make_tensor<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor w = make_tensor<float>({1, 1, 1, 1}, {2});
  // dy at the four output positions, then dx.
  const Tensor offset = make_tensor<float>({1, 2, 2, 2}, {0.5f, 0.25f, -0.5f, 1.0f, 0.25f, -1.5f, 0.0f, 0.5f});
  const Tensor mask = make_tensor<float>({1, 1, 2, 2}, {1, 1, 0.5f, 1});
  auto r = run_kernel("DeformConv", {x, w, offset, RuntimeValue(), mask}, 1, {}, 19);
  // (0.5, 0.25): rows 1.25 and 3.25, halfway; (0.25, -0.5): half of column
  // 0, 3/4 of 1 and 1/4 of 3; (0.5, 0): column 0 halfway, masked by half;
  // (2, 1.5): below the input.
  expect_near(out<float>(r), {2 * 2.25f, 2 * 0.75f, 2 * 2 * 0.5f, 0}, 1e-6f);
}

// Two offset groups of one channel each: the first reads one to the right,
// the second in place, each with its own mask.
TEST(DeformConv, OffsetGroups_HaveTheirOwnOffsetsAndMasks) {
  const Tensor x = make_tensor<float>({1, 2, 4}, {1, 2, 3, 4, 10, 20, 30, 40});
  const Tensor w = make_tensor<float>({1, 2, 1}, {1, 1});
  const Tensor offset = make_tensor<float>({1, 2, 4}, {1, 1, 1, 1, 0, 0, 0, 0});
  const Tensor mask = make_tensor<float>({1, 2, 4}, {1, 1, 1, 1, 1, 0.5f, 0, 1});
  const Tensor b = make_tensor<float>({1}, {100});
  auto r = run_kernel("DeformConv", {x, w, offset, b, mask}, 1, {attr_int("offset_group", 2)}, 19);
  expect_near(out<float>(r), {112, 113, 104, 140}, 1e-5f);
}

// A tap outside the input reads a zero, not a zero-weighted element: an
// infinite input element leaves the outputs that do not reach it finite.
TEST(DeformConv, TapsOutsideTheInput_ReadZeros) {
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor x = make_tensor<float>({1, 1, 3}, {inf, 2, 3});
  const Tensor w = make_tensor<float>({1, 1, 1}, {1});
  const Tensor offset = make_tensor<float>({1, 1, 3}, {-1.5f, 0.5f, 5});
  auto r = run_kernel("DeformConv", {x, w, offset}, 1, {}, 19);
  const std::vector<float> got = out<float>(r);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0], 0);  // at -1.5, wholly outside
  EXPECT_EQ(got[1], 2.5f);
  EXPECT_EQ(got[2], 0);
}

// A NaN offset makes its output NaN; an infinite one reads zeros.
TEST(DeformConv, NanAndInfiniteOffsets) {
  const Tensor x = make_tensor<float>({1, 1, 3}, {1, 2, 3});
  const Tensor w = make_tensor<float>({1, 1, 1}, {1});
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor offset = make_tensor<float>({1, 1, 3}, {std::nanf(""), inf, -inf});
  auto r = run_kernel("DeformConv", {x, w, offset, make_tensor<float>({1}, {5})}, 1, {}, 19);
  const std::vector<float> got = out<float>(r);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_TRUE(std::isnan(got[0]));
  EXPECT_EQ(got[1], 5);
  EXPECT_EQ(got[2], 5);
}

TEST(DeformConv, BadInputs_AreClearErrors) {
  const Tensor x = random_tensor({1, 4, 5, 5}, 3), w = random_tensor({2, 4, 3, 3}, 4);
  const Tensor offset = zeros({1, 18, 3, 3});
  auto message = [](const KernelRun& r) { return r.status.message(); };
  auto wrong_offset = run_kernel("DeformConv", {x, w, zeros({1, 18, 4, 3})}, 1, {}, 19);
  EXPECT_EQ(wrong_offset.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(message(wrong_offset).find("offset must be float32[1,18,3,3]"), std::string::npos) << message(wrong_offset);
  auto wrong_mask = run_kernel("DeformConv", {x, w, offset, RuntimeValue(), zeros({1, 18, 3, 3})}, 1, {}, 19);
  EXPECT_NE(message(wrong_mask).find("mask must be float32[1,9,3,3]"), std::string::npos) << message(wrong_mask);
  auto uneven = run_kernel("DeformConv", {x, w, zeros({1, 54, 3, 3})}, 1, {attr_int("offset_group", 3)}, 19);
  EXPECT_NE(message(uneven).find("do not divide into 3 offset groups"), std::string::npos) << message(uneven);
  auto no_offset = run_kernel("DeformConv", {x, w, RuntimeValue()}, 1, {}, 19);
  EXPECT_NE(message(no_offset).find("offset is required"), std::string::npos) << message(no_offset);
  auto wrong_bias = run_kernel("DeformConv", {x, w, offset, zeros({3})}, 1, {}, 19);
  EXPECT_NE(message(wrong_bias).find("B must be"), std::string::npos) << message(wrong_bias);
  auto channels = run_kernel("DeformConv", {x, random_tensor({2, 3, 3, 3}, 5), offset}, 1, {}, 19);
  EXPECT_EQ(channels.status.code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(run_kernel("DeformConv", {x, w, offset}, 1, {attr_int("offset_group", 0)}, 19).status.ok());
}

}  // namespace
}  // namespace sy::testing

// Unit tests for the CPU Resize and Upsample kernels (tensor_resize.cc).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/devices/kernel_test_util.h"

namespace sy {
namespace {

using testing::attr_ints;
using testing::attr_string;
using testing::make_tensor;
using testing::run_kernel;
using testing::to_vector;

Tensor f32(const Dims& d, std::vector<float> v) { return make_tensor<float>(d, v); }
Tensor i64v(std::vector<int64_t> v) { return make_tensor<int64_t>(Dims{int64_t(v.size())}, v); }

const Tensor& out0(const testing::KernelRun& r) { return r.outputs[0].tensor(); }

#define EXPECT_OK(run) ASSERT_TRUE((run).status.ok()) << (run).status.to_string()

TEST(TensorOps, Resize_LinearHalfPixel) {
  Tensor x = f32(Dims{1, 2}, {1, 2});
  auto r = run_kernel("Resize", {x, RuntimeValue(), f32(Dims{2}, {1, 2})}, 1, {attr_string("mode", "linear")}, 13);
  EXPECT_OK(r);
  EXPECT_EQ(out0(r).dims(), (Dims{1, 4}));
  std::vector<float> got = to_vector<float>(out0(r));
  std::vector<float> want{1, 1.25f, 1.75f, 2};
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(got[i], want[i], 1e-6);
}

TEST(TensorOps, Resize_NearestSizesAndAlignCorners) {
  Tensor x = f32(Dims{1, 1, 2, 2}, {1, 2, 3, 4});
  auto r = run_kernel("Resize", {x, RuntimeValue(), RuntimeValue(), i64v({1, 1, 3, 3})}, 1,
                      {attr_string("mode", "nearest")}, 13);
  EXPECT_OK(r);
  // half_pixel: x_ori = (x + 0.5) * 2/3 - 0.5 = -0.17, 0.5, 1.17 -> 0, 0 (prefer floor), 1
  EXPECT_EQ(to_vector<float>(out0(r)), (std::vector<float>{1, 1, 2, 1, 1, 2, 3, 3, 4}));
  auto ac = run_kernel("Resize", {x, RuntimeValue(), RuntimeValue(), i64v({1, 1, 1, 3})}, 1,
                       {attr_string("mode", "linear"), attr_string("coordinate_transformation_mode", "align_corners")},
                       13);
  EXPECT_OK(ac);
  EXPECT_EQ(to_vector<float>(out0(ac)), (std::vector<float>{1, 1.5f, 2}));
}

TEST(TensorOps, Resize_CubicMatchesReference) {
  // numpy/onnx reference: Resize(cubic, half_pixel, A=-0.75) of [0,1,2,3] by scale 2.
  Tensor x = f32(Dims{4}, {0, 1, 2, 3});
  auto r = run_kernel("Resize", {x, RuntimeValue(), f32(Dims{1}, {2})}, 1, {attr_string("mode", "cubic")}, 13);
  EXPECT_OK(r);
  std::vector<float> want{-0.10546875f, 0.19140625f, 0.66796875f, 1.296875f, 1.703125f, 2.3320312f, 2.8085938f, 3.1054688f};
  std::vector<float> got = to_vector<float>(out0(r));
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
}

TEST(TensorOps, Resize_RejectsBadScales) {
  Tensor x = f32(Dims{2}, {1, 2});
  auto neg = run_kernel("Resize", {x, RuntimeValue(), f32(Dims{1}, {-1})}, 1, {}, 13);
  EXPECT_EQ(neg.status.code(), StatusCode::kInvalidArgument);
  auto huge = run_kernel("Resize", {x, RuntimeValue(), f32(Dims{1}, {1e30f})}, 1, {}, 13);
  EXPECT_FALSE(huge.status.ok());
  auto none = run_kernel("Resize", {x}, 1, {}, 13);
  EXPECT_EQ(none.status.code(), StatusCode::kInvalidArgument);
}

// Opset 18's axes: scales and sizes name only those axes, in the
// attribute's order; the rest keep their size.
TEST(TensorOps, Resize18_Axes) {
  Tensor x = f32(Dims{1, 2, 2}, {1, 2, 3, 4});
  auto r = run_kernel("Resize", {x, RuntimeValue(), f32(Dims{2}, {2, 1})}, 1,
                      {attr_string("mode", "nearest"), attr_ints("axes", {-1, 1})}, 18);
  EXPECT_OK(r);
  EXPECT_EQ(out0(r).dims(), (Dims{1, 2, 4}));
  EXPECT_EQ(to_vector<float>(out0(r)), (std::vector<float>{1, 1, 2, 2, 3, 3, 4, 4}));
  auto bad_count = run_kernel("Resize", {x, RuntimeValue(), f32(Dims{3}, {1, 2, 1})}, 1, {attr_ints("axes", {2})}, 18);
  EXPECT_EQ(bad_count.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad_count.status.message().find("number of axes"), std::string::npos) << bad_count.status.message();
  auto repeated = run_kernel("Resize", {x, RuntimeValue(), f32(Dims{2}, {2, 2})}, 1, {attr_ints("axes", {2, -1})}, 18);
  EXPECT_EQ(repeated.status.code(), StatusCode::kInvalidArgument);
  auto outside = run_kernel("Resize", {x, RuntimeValue(), f32(Dims{1}, {2})}, 1, {attr_ints("axes", {3})}, 18);
  EXPECT_EQ(outside.status.code(), StatusCode::kInvalidArgument);
}

// keep_aspect_ratio_policy: one scale for the given axes, the smallest
// (not_larger) or largest (not_smaller) of sizes / dims, sizes rounded
// half up from it.
TEST(TensorOps, Resize18_KeepAspectRatio) {
  Tensor x = f32(Dims{1, 1, 4, 6}, std::vector<float>(24, 1.f));
  for (const auto& [policy, want] : {std::pair{"not_larger", Dims{1, 1, 2, 3}}, std::pair{"not_smaller", Dims{1, 1, 4, 6}},
                                     std::pair{"stretch", Dims{1, 1, 2, 6}}}) {
    auto r = run_kernel("Resize", {x, RuntimeValue(), RuntimeValue(), i64v({2, 6})}, 1,
                        {attr_ints("axes", {2, 3}), attr_string("keep_aspect_ratio_policy", policy)}, 18);
    EXPECT_OK(r);
    EXPECT_EQ(out0(r).dims(), want) << policy;
  }
  auto bad = run_kernel("Resize", {x, RuntimeValue(), RuntimeValue(), i64v({1, 1, 2, 6})}, 1,
                        {attr_string("keep_aspect_ratio_policy", "fit")}, 18);
  EXPECT_EQ(bad.status.code(), StatusCode::kInvalidArgument);
}

// Opset 18's antialias widens the filter by 1 / scale when downsampling;
// the values are the ONNX reference evaluator's for x = i^2, scale 0.375.
TEST(TensorOps, Resize18_Antialias) {
  std::vector<float> sq(8);
  for (int i = 0; i < 8; ++i) sq[static_cast<size_t>(i)] = static_cast<float>(i * i);
  const Tensor x = f32(Dims{8}, sq);
  for (const auto& [mode, want] : {std::pair{"linear", std::vector<float>{1.8139535f, 13.452381f, 37.139534f}},
                                   std::pair{"cubic", std::vector<float>{0.65592629f, 12.050786f, 38.623112f}}}) {
    auto r = run_kernel("Resize", {x, RuntimeValue(), f32(Dims{1}, {0.375f})}, 1,
                        {attr_string("mode", mode), testing::attr_int("antialias", 1)}, 18);
    EXPECT_OK(r);
    std::vector<float> got = to_vector<float>(out0(r));
    ASSERT_EQ(got.size(), want.size()) << mode;
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-4) << mode << " " << i;
  }
}

TEST(TensorOps, Upsample_NearestRepeats) {
  Tensor x = f32(Dims{1, 2}, {1, 2});
  auto r = run_kernel("Upsample", {x, f32(Dims{2}, {2, 2})}, 1, {attr_string("mode", "nearest")}, 9);
  EXPECT_OK(r);
  EXPECT_EQ(out0(r).dims(), (Dims{2, 4}));
  EXPECT_EQ(to_vector<float>(out0(r)), (std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2}));
}

// Linear, asymmetric, scale 2 along either axis of [4, 2] and [2, 4], in
// float and double: the last axis through interpolate_row, the other a row
// of elements at a time. A tap of weight zero adds nothing even where its
// element is infinite (0 * inf would be NaN): x0 = 1 stays 1 beside inf.
TEST(TensorOps, Resize_LinearEitherAxis_ZeroWeightTapsSkipInfinity) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<double> col = {1, inf, inf, inf, 3, 3.5, 4, 4};  // {1, inf, 3, 4} resized
  for (bool dbl : {false, true}) {
    SCOPED_TRACE(dbl ? "double" : "float");
    for (int axis : {0, 1}) {
      const Dims in = axis == 0 ? Dims{4, 2} : Dims{2, 4};
      std::vector<double> v(8);
      for (int64_t i = 0; i < 4; ++i)
        for (int64_t j = 0; j < 2; ++j) v[static_cast<size_t>(axis == 0 ? i * 2 + j : j * 4 + i)] = col[static_cast<size_t>(2 * i)] * (j + 1);
      const Tensor x = dbl ? make_tensor<double>(in, v) : f32(in, std::vector<float>(v.begin(), v.end()));
      auto r = run_kernel("Resize", {x, RuntimeValue(), f32(Dims{2}, axis == 0 ? std::vector<float>{2, 1} : std::vector<float>{1, 2})}, 1,
                          {attr_string("mode", "linear"), attr_string("coordinate_transformation_mode", "asymmetric")}, 13);
      EXPECT_OK(r);
      std::vector<double> got;
      if (dbl) got = to_vector<double>(out0(r));
      else for (float f : to_vector<float>(out0(r))) got.push_back(f);
      ASSERT_EQ(got.size(), 16u);
      for (int64_t i = 0; i < 8; ++i)
        for (int64_t j = 0; j < 2; ++j)
          EXPECT_EQ(got[static_cast<size_t>(axis == 0 ? i * 2 + j : j * 8 + i)], col[static_cast<size_t>(i)] * (j + 1))
              << "axis " << axis << " at " << i << "," << j;
    }
  }
}


// Linear and cubic interpolation are separable, so resizing every axis in
// one call must give what resizing one axis per call does. One call runs the
// leading axes as passes of their own and the last two together; one axis
// per call runs each part alone (a leading axis, the height alone, the
// width alone), and each of those parts must match an independent path.
// Integers compute in double and round once at the end.
TEST(TensorOps, Resize_AllAxesAtOnce_MatchesOneAxisAtATime) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> value(-100, 100);
  const Dims dims{2, 3, 5, 7};
  std::vector<double> xd(static_cast<size_t>(dims.numel()));
  for (double& v : xd) v = value(rng);
  for (const char* mode : {"linear", "cubic"})
    for (const std::vector<float>& scales :
         {std::vector<float>{1, 1, 2, 2}, std::vector<float>{1, 2, 1.5f, 0.6f}, std::vector<float>{1.5f, 1, 1, 3},
          std::vector<float>{2, 0.7f, 1, 1}}) {
      SCOPED_TRACE(std::string(mode) + " scales " + std::to_string(scales[0]) + "," + std::to_string(scales[1]) +
                   "," + std::to_string(scales[2]) + "," + std::to_string(scales[3]));
      const std::vector<Attribute> attrs = {attr_string("mode", mode)};
      auto resize = [&](const Tensor& x, const std::vector<float>& s) {
        auto r = run_kernel("Resize", {x, RuntimeValue(), f32(Dims{4}, s)}, 1, attrs, 13);
        EXPECT_TRUE(r.status.ok()) << r.status.to_string();
        return r.status.ok() ? out0(r) : Tensor();
      };
      Tensor step = make_tensor<double>(dims, xd);
      for (size_t axis = 0; axis < 4; ++axis) {
        std::vector<float> one(4, 1.f);
        one[axis] = scales[axis];
        step = resize(step, one);
        ASSERT_TRUE(step.defined());
      }
      const Tensor all = resize(make_tensor<double>(dims, xd), scales);
      ASSERT_TRUE(all.defined());
      ASSERT_EQ(all.dims(), step.dims());
      const std::vector<double> want = to_vector<double>(step), got = to_vector<double>(all);
      for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-9) << "element " << i;
      // float: the same to float rounding; int32: the double result rounded.
      const Tensor f = resize(f32(dims, std::vector<float>(xd.begin(), xd.end())), scales);
      const std::vector<float> gf = to_vector<float>(f);
      for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(gf[i], want[i], 1e-3) << "float element " << i;
      // Each part against an independent path: the last two axes of every
      // plane against that plane resized alone (rank 2, one plane), and a
      // leading axis against the same data with the axes after it merged
      // into one, which the last-two-axes pass then resizes.
      const auto sub = [&](const Tensor& t, const Dims& d, int64_t offset) {
        const std::vector<double> v = to_vector<double>(t);
        return make_tensor<double>(d, std::vector<double>(v.begin() + offset, v.begin() + offset + d.numel()));
      };
      const Tensor x = make_tensor<double>(dims, xd);
      const Tensor hw = resize(x, {1, 1, scales[2], scales[3]});
      for (int64_t plane = 0; plane < 6; ++plane) {
        auto r = run_kernel("Resize", {sub(x, Dims{5, 7}, plane * 35), RuntimeValue(), f32(Dims{2}, {scales[2], scales[3]})},
                            1, attrs, 13);
        EXPECT_OK(r);
        const Dims pd = out0(r).dims();
        const std::vector<double> alone = to_vector<double>(out0(r)), in_all = to_vector<double>(sub(hw, pd, plane * pd.numel()));
        for (size_t i = 0; i < alone.size(); ++i) ASSERT_NEAR(in_all[i], alone[i], 1e-9) << "plane " << plane << " element " << i;
      }
      for (size_t axis = 0; axis < 2; ++axis) {
        std::vector<float> one(4, 1.f);
        one[axis] = scales[axis];
        const std::vector<double> lead = to_vector<double>(resize(x, one));
        const Dims merged = axis == 0 ? Dims{2, 105} : Dims{2, 3, 35};
        auto r = run_kernel("Resize", {make_tensor<double>(merged, xd), RuntimeValue(),
                                       f32(Dims{int64_t(axis + 2)}, axis == 0 ? std::vector<float>{scales[0], 1}
                                                                              : std::vector<float>{1, scales[1], 1})},
                            1, attrs, 13);
        EXPECT_OK(r);
        const std::vector<double> as_h = to_vector<double>(out0(r));
        ASSERT_EQ(lead.size(), as_h.size());
        for (size_t i = 0; i < lead.size(); ++i) ASSERT_NEAR(lead[i], as_h[i], 1e-9) << "axis " << axis << " element " << i;
      }
      std::vector<int32_t> xi;
      for (double v : xd) xi.push_back(static_cast<int32_t>(std::lround(v)));
      const Tensor ti = resize(make_tensor<int32_t>(dims, xi), scales);
      const Tensor td = resize(make_tensor<double>(dims, std::vector<double>(xi.begin(), xi.end())), scales);
      const std::vector<int32_t> gi = to_vector<int32_t>(ti);
      const std::vector<double> wi = to_vector<double>(td);
      for (size_t i = 0; i < wi.size(); ++i) ASSERT_EQ(gi[i], std::nearbyint(wi[i])) << "int32 element " << i;
    }
}

}  // namespace
}  // namespace sy

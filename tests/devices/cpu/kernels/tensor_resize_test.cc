// Unit tests for the CPU Resize and Upsample kernels (tensor_resize.cc).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "tests/devices/kernel_test_util.h"

namespace sy {
namespace {

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

}  // namespace
}  // namespace sy

// Unit tests for the CPU detection kernels (nn_detection.cc): RoiAlign,
// MaxRoiPool and NonMaxSuppression. The ONNX reference cases run in
// nn_test.cc (Reference_Detection).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/devices/kernel_test_util.h"

namespace sy {
namespace {

using testing::attr_float;
using testing::attr_int;
using testing::attr_ints;
using testing::expect_near;
using testing::make_tensor;
using testing::run_kernel;
using testing::to_vector;

TEST(NnDetection, NonMaxSuppression_SuppressesOverlap) {
  auto boxes = make_tensor<float>({1, 3, 4}, {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, 2, 1, 3});
  auto scores = make_tensor<float>({1, 1, 3}, {0.9f, 0.8f, 0.7f});
  auto r = run_kernel("NonMaxSuppression",
                      {boxes, scores, make_tensor<int64_t>({1}, {3}), make_tensor<float>({1}, {0.5f})}, 1);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.outputs[0].tensor().dims(), (Dims{2, 3}));
  EXPECT_EQ(to_vector<int64_t>(r.outputs[0].tensor()), (std::vector<int64_t>{0, 0, 0, 0, 0, 2}));
  auto none = run_kernel("NonMaxSuppression", {boxes, scores}, 1);
  ASSERT_TRUE(none.status.ok());
  EXPECT_EQ(none.outputs[0].tensor().dims(), (Dims{0, 3}));
  auto bad = run_kernel("NonMaxSuppression", {boxes, make_tensor<float>({1, 1, 2}, {1, 2})}, 1);
  EXPECT_EQ(bad.status.code(), StatusCode::kInvalidArgument);
}

TEST(NnDetection, RoiAlign_AvgOneBin) {
  // 2x2 image, ROI covering it with half_pixel: samples at pixel centres.
  auto x = make_tensor<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  auto rois = make_tensor<float>({1, 4}, {0, 0, 2, 2});
  auto bi = make_tensor<int64_t>({1}, {0});
  auto r = run_kernel("RoiAlign", {x, rois, bi}, 1, {attr_int("sampling_ratio", 2)}, 16);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  expect_near(to_vector<float>(r.outputs[0].tensor()), {2.5f});
  auto bad = run_kernel("RoiAlign", {x, rois, make_tensor<int64_t>({1}, {1})}, 1, {}, 16);
  EXPECT_EQ(bad.status.code(), StatusCode::kInvalidArgument);
}

// Half types are sampled in double like the others and rounded once.
TEST(NnDetection, RoiAlign_Float16_MatchesFloat) {
  std::vector<float> xs(2 * 5 * 6);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>((i * 7) % 13) - 6.f;
  const std::vector<float> box = {0.5f, 1.f, 4.f, 3.5f, 1.f, 0.f, 5.f, 4.5f};
  std::vector<Float16> xh, bh;
  for (float v : xs) xh.push_back(Float16(v));
  for (float v : box) bh.push_back(Float16(v));
  auto bi = make_tensor<int64_t>({2}, {0, 1});
  for (const char* mode : {"avg", "max"}) {
    const std::vector<Attribute> attrs = {testing::attr_string("mode", mode), attr_int("output_height", 3),
                                          attr_int("output_width", 2), attr_int("sampling_ratio", 2)};
    auto f = run_kernel("RoiAlign", {make_tensor<float>({2, 1, 5, 6}, xs), make_tensor<float>({2, 4}, box), bi}, 1,
                        attrs, 16);
    auto h = run_kernel("RoiAlign", {make_tensor<Float16>({2, 1, 5, 6}, xh), make_tensor<Float16>({2, 4}, bh), bi}, 1,
                        attrs, 16);
    ASSERT_TRUE(f.status.ok()) << f.status.to_string();
    ASSERT_TRUE(h.status.ok()) << h.status.to_string();
    const std::vector<float> want = to_vector<float>(f.outputs[0].tensor());
    const Tensor& got = h.outputs[0].tensor();
    ASSERT_EQ(got.numel(), static_cast<int64_t>(want.size()));
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_EQ(got.data<Float16>()[i].bits, Float16(want[i]).bits) << mode << " " << i;
  }
}

// A 4x4 image, pooled_shape 2x2. ROI (0, 0)-(3, 3) at scale 1 covers it,
// each bin 2x2, and its all-negative bin gives its max (ONNX Runtime's
// FLT_MIN start would give 1.2e-38); an ROI past the image has empty
// bins, which give 0. At scale 0.5, (1, 1)-(4, 5) rounds to (1, 1)-(2, 3)
// (half away from zero): 2 wide and 3 high, so bins of 1 column and 1.5
// rows (floor and ceil bounds).
TEST(NnDetection, MaxRoiPool_BinsRoundingClippingAndNegatives) {
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[static_cast<size_t>(i)] = static_cast<float>(i);
  x[0] = -5;
  x[1] = -3;
  x[4] = -4;
  x[5] = -2;
  auto rois = make_tensor<float>({2, 5}, {0, 0, 0, 3, 3,  //
                                          0, 20, 20, 30, 30});
  auto r =
      run_kernel("MaxRoiPool", {make_tensor<float>({1, 1, 4, 4}, x), rois}, 1, {attr_ints("pooled_shape", {2, 2})});
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.outputs[0].tensor().dims(), (Dims{2, 1, 2, 2}));
  EXPECT_EQ(to_vector<float>(r.outputs[0].tensor()), (std::vector<float>{-2, 7, 13, 15, 0, 0, 0, 0}));
  auto half =
      run_kernel("MaxRoiPool", {make_tensor<float>({1, 1, 4, 4}, x), make_tensor<float>({1, 5}, {0, 1, 1, 4, 5})}, 1,
                 {attr_ints("pooled_shape", {2, 2}), attr_float("spatial_scale", 0.5f)});
  ASSERT_TRUE(half.status.ok()) << half.status.to_string();
  // Rows [1, 3) and [2, 4) (bins of 1.5 rows: floor/ceil), columns 1 and 2.
  EXPECT_EQ(to_vector<float>(half.outputs[0].tensor()), (std::vector<float>{9, 10, 13, 14}));
}

TEST(NnDetection, MaxRoiPool_BadInputsAreErrors) {
  auto x = make_tensor<float>({1, 1, 4, 4}, std::vector<float>(16, 1.f));
  for (const std::vector<float>& roi : {std::vector<float>{1, 0, 0, 1, 1}, std::vector<float>{0.5f, 0, 0, 1, 1},
                                        std::vector<float>{0, NAN, 0, 1, 1}, std::vector<float>{0, 0, 0, 1e30f, 1}}) {
    auto r = run_kernel("MaxRoiPool", {x, make_tensor<float>({1, 5}, roi)}, 1, {attr_ints("pooled_shape", {1, 1})});
    EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument) << roi[0] << " " << roi[1] << " " << roi[3];
  }
  auto four =
      run_kernel("MaxRoiPool", {x, make_tensor<float>({1, 4}, {0, 0, 1, 1})}, 1, {attr_ints("pooled_shape", {1, 1})});
  EXPECT_EQ(four.status.code(), StatusCode::kInvalidArgument);
  auto shape = run_kernel("MaxRoiPool", {x, make_tensor<float>({1, 5}, {0, 0, 0, 1, 1})}, 1,
                          {attr_ints("pooled_shape", {0, 1})});
  EXPECT_EQ(shape.status.code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sy

#include "devices/value_compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/devices/kernel_test_util.h"

namespace sy {
namespace {

using testing::make_tensor;

TEST(ValueCompare, Floats_WithinTolerance_AreEqual) {
  Tensor want = make_tensor<float>({3}, {0, 1, 100});
  EXPECT_EQ(compare_values(make_tensor<float>({3}, {0.05f, 1.1f, 109}), want, Tolerance{0.1, 0.1}), "");
  const std::string diff = compare_values(make_tensor<float>({3}, {0.05f, 1.1f, 111}), want, Tolerance{0.1, 0.1});
  EXPECT_NE(diff.find("1 of 3 elements differ; first at 2"), std::string::npos) << diff;
}

TEST(ValueCompare, NanMatchesOnlyNan_InfMatchesOnlyItself) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  Tensor want = make_tensor<float>({2}, {nan, inf});
  EXPECT_EQ(compare_values(make_tensor<float>({2}, {nan, inf}), want, Tolerance{}), "");
  EXPECT_NE(compare_values(make_tensor<float>({2}, {0, inf}), want, Tolerance{1, 1}), "");
  EXPECT_NE(compare_values(make_tensor<float>({2}, {nan, -inf}), want, Tolerance{1, 1}), "");
  EXPECT_NE(compare_values(make_tensor<float>({2}, {nan, 1}), make_tensor<float>({2}, {1, 1}), Tolerance{1, 1}), "");
}

TEST(ValueCompare, Integers_AreExact_WhateverTheTolerance) {
  Tensor want = make_tensor<int64_t>({2}, {int64_t{1} << 60, 5});
  EXPECT_EQ(compare_values(make_tensor<int64_t>({2}, {int64_t{1} << 60, 5}), want, Tolerance{1, 1}), "");
  // 2^60 + 1 is the same double as 2^60: the comparison must not go through doubles only.
  EXPECT_NE(compare_values(make_tensor<int64_t>({2}, {(int64_t{1} << 60) + 1, 5}), want, Tolerance{1, 1}), "");
}

TEST(ValueCompare, TypeAndShape_MustMatch) {
  EXPECT_NE(compare_values(make_tensor<float>({2}, {1, 2}), make_tensor<double>({2}, {1, 2}), Tolerance{}).find("type"),
            std::string::npos);
  EXPECT_NE(compare_values(make_tensor<float>({1, 2}, {1, 2}), make_tensor<float>({2}, {1, 2}), Tolerance{}).find("shape"),
            std::string::npos);
}

}  // namespace
}  // namespace sy

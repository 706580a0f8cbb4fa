// Unit tests for the CPU TopK kernel (reduction_softmax.cc): hand-computed
// cases, bad k, and every selection path against a stable sort.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "tests/devices/kernel_test_util.h"

namespace sy {
namespace {

using testing::attr_int;
using testing::make_tensor;
using testing::run_kernel;
using testing::to_vector;

TEST(ReduceTopK, LargestStableTies) {
  Tensor x = make_tensor<float>({2, 4}, {1, 3, 3, 2, 5, 5, 5, 0});
  auto r = run_kernel("TopK", {x, make_tensor<int64_t>({1}, {3})}, 2, {}, 11);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(to_vector<float>(r.outputs[0].tensor()), (std::vector<float>{3, 3, 2, 5, 5, 5}));
  EXPECT_EQ(to_vector<int64_t>(r.outputs[1].tensor()), (std::vector<int64_t>{1, 2, 3, 0, 1, 2}));
}

TEST(ReduceTopK, SmallestAxis0) {
  Tensor x = make_tensor<int32_t>({3, 2}, {4, 1, 2, 1, 9, 0});
  auto r = run_kernel("TopK", {x, make_tensor<int64_t>({1}, {2})}, 2,
                      {attr_int("axis", 0), attr_int("largest", 0)}, 11);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.outputs[0].tensor().dims(), (Dims{2, 2}));
  EXPECT_EQ(to_vector<int32_t>(r.outputs[0].tensor()), (std::vector<int32_t>{2, 0, 4, 1}));
  EXPECT_EQ(to_vector<int64_t>(r.outputs[1].tensor()), (std::vector<int64_t>{1, 2, 0, 0}));
}

TEST(ReduceTopK, Opset1AttributeK) {
  Tensor x = make_tensor<float>({3}, {1, 7, 4});
  auto r = run_kernel("TopK", {x}, 2, {attr_int("k", 1)}, 1);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(to_vector<float>(r.outputs[0].tensor()), (std::vector<float>{7}));
  EXPECT_EQ(to_vector<int64_t>(r.outputs[1].tensor()), (std::vector<int64_t>{1}));
}

TEST(ReduceTopK, KTooLarge) {
  Tensor x = make_tensor<float>({3}, {1, 7, 4});
  auto r = run_kernel("TopK", {x, make_tensor<int64_t>({1}, {4})}, 2, {}, 11);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  r = run_kernel("TopK", {x, make_tensor<int64_t>({1}, {-1})}, 2, {}, 11);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  r = run_kernel("TopK", {x, make_tensor<int64_t>({1}, {1})}, 2, {attr_int("axis", 1)}, 11);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
}

// The reference: every index of a row, stably sorted by value, NaN above
// every number (first when largest, last when smallest), -0 equal to +0.
template <typename T>
std::vector<int64_t> reference_order(const std::vector<T>& row, bool largest) {
  using V = std::conditional_t<std::is_same_v<T, Float16>, float, T>;
  std::vector<int64_t> order(row.size());
  for (size_t j = 0; j < row.size(); ++j) order[j] = static_cast<int64_t>(j);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    const V va = static_cast<V>(row[static_cast<size_t>(a)]), vb = static_cast<V>(row[static_cast<size_t>(b)]);
    const bool an = va != va, bn = vb != vb;
    if (an || bn) return largest ? !bn : !an;
    return largest ? va > vb : va < vb;
  });
  return order;
}

bool same_value(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// Runs TopK on `rows` (each of length d) laid out along the last axis, and
// transposed along the first, for both directions and every k in `ks`, and
// compares the indices with the reference and the values with the input.
template <typename T>
void expect_topk_matches_reference(const std::vector<std::vector<T>>& rows, const std::vector<int64_t>& ks,
                                   const std::string& what) {
  const int64_t n = static_cast<int64_t>(rows.size()), d = static_cast<int64_t>(rows[0].size());
  std::vector<T> by_row, by_column(static_cast<size_t>(n * d));
  for (const auto& row : rows) by_row.insert(by_row.end(), row.begin(), row.end());
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t j = 0; j < rows[r].size(); ++j) by_column[j * rows.size() + r] = rows[r][j];
  for (int64_t axis : {1, 0}) {
    Tensor x = axis == 1 ? make_tensor<T>({n, d}, by_row) : make_tensor<T>({d, n}, by_column);
    for (bool largest : {true, false}) {
      for (int64_t k : ks) {
        const std::string where = what + " axis " + std::to_string(axis) + (largest ? " largest" : " smallest") +
                                  " k " + std::to_string(k);
        auto r = run_kernel("TopK", {x, make_tensor<int64_t>({1}, {k})}, 2,
                            {attr_int("axis", axis), attr_int("largest", largest)}, 11);
        ASSERT_TRUE(r.status.ok()) << where << ": " << r.status.to_string();
        const std::vector<T> got_v = to_vector<T>(r.outputs[0].tensor());
        const std::vector<int64_t> got_i = to_vector<int64_t>(r.outputs[1].tensor());
        for (int64_t row = 0; row < n; ++row) {
          const auto& in = rows[static_cast<size_t>(row)];
          const std::vector<int64_t> want = reference_order(in, largest);
          int64_t wrong = 0;
          for (int64_t j = 0; j < k; ++j) {
            const size_t o = static_cast<size_t>(axis == 1 ? row * k + j : j * n + row);
            const bool ok = got_i[o] == want[static_cast<size_t>(j)] &&
                            same_value(static_cast<double>(got_v[o]),
                                       static_cast<double>(in[static_cast<size_t>(want[static_cast<size_t>(j)])]));
            if (!ok && wrong++ == 0)
              ADD_FAILURE() << where << " row " << row << " rank " << j << ": index " << got_i[o] << ", want "
                            << want[static_cast<size_t>(j)];
          }
        }
      }
    }
  }
}

// Rows of length d: normal floats; the same rounded to a tenth (many ties)
// with +-0 and NaNs of both signs; and a row whose evenly spaced elements hold its
// largest values, so a bar taken from an evenly spaced sample lets fewer
// than k pass and the row must be selected again without it.
std::vector<std::vector<float>> float_rows(int64_t d, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<std::vector<float>> rows(3, std::vector<float>(static_cast<size_t>(d)));
  for (auto& v : rows[0]) v = normal(rng);
  for (auto& v : rows[1]) v = std::round(normal(rng) * 10) / 10;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t j = 0; j < d; j += 97) rows[1][static_cast<size_t>(j)] = j % 2 ? -0.f : 0.f;
  for (int64_t j = 13; j < d; j += 1009) rows[1][static_cast<size_t>(j)] = j % 2 ? -nan : nan;  // either sign bit
  std::uniform_real_distribution<float> small(0, 1);
  for (int64_t j = 0; j < d; ++j)
    rows[2][static_cast<size_t>(j)] = j % 25 == 0 ? 1000.f + static_cast<float>(j) : small(rng);
  return rows;
}

// k up to 32 keeps a sorted selection; above, a bar that rises as
// candidates come, started from a sample when a row is long against k
// (k=100 and 300 of 10000). Float rows along the last axis also skip with
// an SSE scan. Every path must give the reference order.
TEST(ReduceTopK, EveryPathMatchesReference_Float) {
  expect_topk_matches_reference(float_rows(10000, 1), {1, 5, 32, 33, 100, 300, 10000}, "float d=10000");
  expect_topk_matches_reference(float_rows(100, 2), {1, 32, 33, 70, 100}, "float d=100");
}

// Types of up to 32 bits select on one integer of value and index, wider
// ones on (value, index) pairs under a NaN-aware compare.
TEST(ReduceTopK, EveryPathMatchesReference_OtherTypes) {
  const std::vector<int64_t> ks = {1, 7, 33, 100, 400};
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> values(-300, 300);
  std::vector<std::vector<int32_t>> i32(2, std::vector<int32_t>(4000));
  std::vector<std::vector<uint8_t>> u8(2, std::vector<uint8_t>(4000));
  std::vector<std::vector<int64_t>> i64(2, std::vector<int64_t>(4000));
  std::vector<std::vector<double>> f64(2, std::vector<double>(4000));
  std::vector<std::vector<Float16>> f16(2, std::vector<Float16>(4000));
  for (size_t r = 0; r < 2; ++r)
    for (size_t j = 0; j < 4000; ++j) {
      const int v = values(rng);
      i32[r][j] = v * (r ? 1 : 7000000);  // the first row spans most of int32
      u8[r][j] = static_cast<uint8_t>(v);
      i64[r][j] = static_cast<int64_t>(v) * (r ? 1 : (int64_t{1} << 40)) + (r ? 0 : 1);
      f64[r][j] = j % 501 == 0 ? std::numeric_limits<double>::quiet_NaN() : v / 7.0;
      const float nan = (r ? -1 : 1) * std::numeric_limits<float>::quiet_NaN();
      f16[r][j] = Float16(j % 499 == 0 ? nan : static_cast<float>(v) / 8);
    }
  expect_topk_matches_reference(i32, ks, "int32");
  expect_topk_matches_reference(u8, ks, "uint8");
  expect_topk_matches_reference(i64, ks, "int64");
  expect_topk_matches_reference(f64, ks, "double");
  expect_topk_matches_reference(f16, ks, "float16");
}

}  // namespace
}  // namespace sy

// Unit tests for the CPU indexing kernels of tensor_index.cc that gather
// and scatter by element (GatherElements, ScatterElements), NonZero, and
// Gather at sizes that split over the cores; Gather's small cases, GatherND
// and the rest are in tensor_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "tests/devices/kernel_test_util.h"

namespace sy {
namespace {

using testing::attr_int;
using testing::attr_string;
using testing::make_tensor;
using testing::run_kernel;
using testing::to_vector;

Tensor f32(const Dims& d, std::vector<float> v) { return make_tensor<float>(d, v); }
Tensor i64(const Dims& d, std::vector<int64_t> v) { return make_tensor<int64_t>(d, v); }

const Tensor& out0(const testing::KernelRun& r) { return r.outputs[0].tensor(); }

#define EXPECT_OK(run) ASSERT_TRUE((run).status.ok()) << (run).status.to_string()

// Gather on every axis of a tensor large enough that its (outer, index)
// rows split over the cores mid-row of indices: single elements (the last
// axis) and longer rows, 1- and 8-byte elements, both index signs.
TEST(TensorOps, Gather_ParallelRowsEveryAxis_MatchReference) {
  const Dims xd{40, 30, 70};
  const int64_t nidx = 60;
  for (int64_t axis = 0; axis < 3; ++axis) {
    const int64_t len = xd[static_cast<size_t>(axis)];
    std::vector<int64_t> iv(static_cast<size_t>(nidx));
    for (int64_t i = 0; i < nidx; ++i) iv[static_cast<size_t>(i)] = (i * 37) % (2 * len) - len;
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < axis; ++k) outer *= xd[static_cast<size_t>(k)];
    for (int64_t k = axis + 1; k < 3; ++k) inner *= xd[static_cast<size_t>(k)];
    std::vector<int64_t> want;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i : iv)
        for (int64_t j = 0; j < inner; ++j) want.push_back((o * len + (i + len) % len) * inner + j);
    std::vector<int64_t> x64(static_cast<size_t>(xd.numel()));
    std::iota(x64.begin(), x64.end(), int64_t{0});
    auto r = run_kernel("Gather", {make_tensor<int64_t>(xd, x64), i64(Dims{nidx}, iv)}, 1, {attr_int("axis", axis)});
    EXPECT_OK(r);
    EXPECT_EQ(to_vector<int64_t>(out0(r)), want) << "axis " << axis;
    std::vector<int8_t> x8(x64.size()), want8(want.size());
    for (size_t i = 0; i < x8.size(); ++i) x8[i] = static_cast<int8_t>(i * 7);
    for (size_t i = 0; i < want.size(); ++i) want8[i] = x8[static_cast<size_t>(want[i])];
    auto r8 = run_kernel("Gather", {make_tensor<int8_t>(xd, x8), i64(Dims{nidx}, iv)}, 1, {attr_int("axis", axis)});
    EXPECT_OK(r8);
    EXPECT_EQ(to_vector<int8_t>(out0(r8)), want8) << "axis " << axis;
  }
}

TEST(TensorOps, GatherElements_AxisAndRangeCheck) {
  Tensor x = f32(Dims{2, 2}, {1, 2, 3, 4});
  auto r = run_kernel("GatherElements", {x, i64(Dims{2, 2}, {0, 0, 1, 0})}, 1, {attr_int("axis", 1)});
  EXPECT_OK(r);
  EXPECT_EQ(to_vector<float>(out0(r)), (std::vector<float>{1, 1, 4, 3}));
  auto bad = run_kernel("GatherElements", {x, i64(Dims{2, 2}, {0, 0, 2, 0})}, 1, {attr_int("axis", 1)});
  EXPECT_EQ(bad.status.code(), StatusCode::kOutOfRange);
}

// Indices smaller than the data on the other axes, negative ones, both
// index types, every axis of a 3-D tensor: against the spec's formula.
TEST(TensorOps, GatherElements_3DEveryAxis_MatchesReference) {
  const Dims xd{2, 3, 4}, id{2, 2, 3};
  std::vector<float> xv(24);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = float(i);
  for (int64_t axis = 0; axis < 3; ++axis) {
    std::vector<int64_t> iv(12);
    for (size_t i = 0; i < iv.size(); ++i) {
      const int64_t n = xd[static_cast<size_t>(axis)];
      iv[i] = static_cast<int64_t>(i * 5 % n) - (i % 3 == 0 ? n : 0);  // some negative
    }
    std::vector<int32_t> iv32(iv.begin(), iv.end());
    for (bool wide : {true, false}) {
      Tensor ind = wide ? i64(id, iv) : make_tensor<int32_t>(id, iv32);
      auto r = run_kernel("GatherElements", {f32(xd, xv), ind}, 1, {attr_int("axis", axis)});
      ASSERT_TRUE(r.status.ok()) << r.status.to_string();
      const std::vector<float> got = to_vector<float>(out0(r));
      for (int64_t a = 0; a < 2; ++a)
        for (int64_t b = 0; b < 2; ++b)
          for (int64_t c = 0; c < 3; ++c) {
            int64_t at[3] = {a, b, c};
            const int64_t k = (a * 2 + b) * 3 + c, n = xd[static_cast<size_t>(axis)];
            at[axis] = (iv[static_cast<size_t>(k)] + n) % n;
            EXPECT_EQ(got[static_cast<size_t>(k)], xv[static_cast<size_t>((at[0] * 3 + at[1]) * 4 + at[2])])
                << "axis " << axis << " wide " << wide << " at " << k;
          }
    }
  }
}

// Large enough that the rows split over the cores: each range starts its
// row walk mid-tensor (indices smaller than the data on the other axes),
// and of two bad indices in different ranges the first in order is named.
TEST(TensorOps, GatherElements_ParallelRows_MatchReferenceAndNameFirstBadIndex) {
  const Dims xd{64, 40, 50}, id{60, 38, 48};
  std::vector<float> xv(static_cast<size_t>(xd.numel()));
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = float(i);
  const int64_t n = id.numel();
  for (int64_t axis = 0; axis < 3; ++axis) {
    const int64_t len = xd[static_cast<size_t>(axis)];
    std::vector<int64_t> iv(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) iv[static_cast<size_t>(i)] = (i * 7919) % (2 * len) - len;  // both signs
    auto r = run_kernel("GatherElements", {f32(xd, xv), i64(id, iv)}, 1, {attr_int("axis", axis)});
    ASSERT_TRUE(r.status.ok()) << r.status.to_string();
    const std::vector<float> got = to_vector<float>(out0(r));
    int64_t wrong = 0;
    for (int64_t a = 0; a < id[0]; ++a)
      for (int64_t b = 0; b < id[1]; ++b)
        for (int64_t c = 0; c < id[2]; ++c) {
          int64_t at[3] = {a, b, c};
          const int64_t k = (a * id[1] + b) * id[2] + c;
          at[axis] = (iv[static_cast<size_t>(k)] + len) % len;
          wrong += got[static_cast<size_t>(k)] != xv[static_cast<size_t>((at[0] * xd[1] + at[1]) * xd[2] + at[2])];
        }
    EXPECT_EQ(wrong, 0) << "axis " << axis;
    iv[static_cast<size_t>(n - 5)] = len;
    iv[static_cast<size_t>(n / 3)] = -len - 1;
    auto bad = run_kernel("GatherElements", {f32(xd, xv), i64(id, iv)}, 1, {attr_int("axis", axis)});
    EXPECT_EQ(bad.status.code(), StatusCode::kOutOfRange);
    EXPECT_NE(bad.status.to_string().find("position " + std::to_string(n / 3) + " "), std::string::npos)
        << bad.status.to_string();
  }
}

// Along the last axis with indices of the data's shape but that axis (its
// rows gathered without walk_elements): both signs and both index types,
// rows narrower than the data's, and of two bad indices in different
// ranges of rows the first in order named.
TEST(TensorOps, GatherElements_LastAxisRows_MatchReferenceAndNameFirstBadIndex) {
  const Dims xd{64, 40, 50}, id{64, 40, 37};
  std::vector<float> xv(static_cast<size_t>(xd.numel()));
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = float(i);
  const int64_t n = id.numel(), len = xd[2];
  std::vector<int64_t> iv(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) iv[static_cast<size_t>(i)] = (i * 7919) % (2 * len) - len;
  for (bool wide : {true, false}) {
    const std::vector<int32_t> iv32(iv.begin(), iv.end());
    Tensor ind = wide ? i64(id, iv) : make_tensor<int32_t>(id, iv32);
    auto r = run_kernel("GatherElements", {f32(xd, xv), ind}, 1, {attr_int("axis", -1)});
    EXPECT_OK(r);
    const std::vector<float> got = to_vector<float>(out0(r));
    int64_t wrong = 0;
    for (int64_t row = 0; row < n / id[2]; ++row)
      for (int64_t c = 0; c < id[2]; ++c) {
        const int64_t k = row * id[2] + c, at = (iv[static_cast<size_t>(k)] + len) % len;
        wrong += got[static_cast<size_t>(k)] != xv[static_cast<size_t>(row * len + at)];
      }
    EXPECT_EQ(wrong, 0) << "wide " << wide;
  }
  iv[static_cast<size_t>(n - 5)] = len;
  iv[static_cast<size_t>(n / 3)] = -len - 1;
  auto bad = run_kernel("GatherElements", {f32(xd, xv), i64(id, iv)}, 1, {attr_int("axis", 2)});
  EXPECT_EQ(bad.status.code(), StatusCode::kOutOfRange);
  EXPECT_NE(bad.status.to_string().find("position " + std::to_string(n / 3) + " "), std::string::npos)
      << bad.status.to_string();
}

TEST(TensorOps, ScatterElements_AddReductionAndRangeCheck) {
  Tensor x = f32(Dims{1, 5}, {1, 2, 3, 4, 5});
  auto r = run_kernel("ScatterElements", {x, i64(Dims{1, 2}, {1, 1}), f32(Dims{1, 2}, {1.1f, 2.1f})}, 1,
                      {attr_int("axis", 1), attr_string("reduction", "add")}, 16);
  EXPECT_OK(r);
  std::vector<float> got = to_vector<float>(out0(r));
  EXPECT_FLOAT_EQ(got[1], 5.2f);
  EXPECT_FLOAT_EQ(got[0], 1.f);
  auto bad = run_kernel("ScatterElements", {x, i64(Dims{1, 1}, {5}), f32(Dims{1, 1}, {0})}, 1, {attr_int("axis", 1)});
  EXPECT_EQ(bad.status.code(), StatusCode::kOutOfRange);
  auto old = run_kernel("Scatter", {x, i64(Dims{1, 1}, {-1}), f32(Dims{1, 1}, {9})}, 1, {attr_int("axis", 1)}, 9);
  EXPECT_OK(old);
  EXPECT_EQ(to_vector<float>(out0(old)), (std::vector<float>{1, 2, 3, 4, 9}));
}

// max and min: a NaN in the data or in an update gives NaN, in either
// order, as NumPy's maximum and minimum do.
TEST(TensorOps, ScatterElements_MaxMin_PropagateNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const char* red : {"max", "min"}) {
    Tensor x = f32(Dims{4}, {nan, 1, 5, 5});
    auto r = run_kernel("ScatterElements", {x, i64(Dims{4}, {0, 1, 2, 2}), f32(Dims{4}, {3, nan, 7, 2})}, 1,
                        {attr_string("reduction", red)}, 16);
    EXPECT_OK(r);
    const std::vector<float> got = to_vector<float>(out0(r));
    EXPECT_TRUE(std::isnan(got[0])) << red << ": NaN in the data";
    EXPECT_TRUE(std::isnan(got[1])) << red << ": NaN in the update";
    EXPECT_EQ(got[2], std::string(red) == "max" ? 7.f : 2.f) << red;
    EXPECT_EQ(got[3], 5.f) << red;
  }
}

TEST(TensorOps, NonZero_Coordinates) {
  auto r = run_kernel("NonZero", {f32(Dims{2, 2}, {1, 0, 0, 3})}, 1);
  EXPECT_OK(r);
  EXPECT_EQ(out0(r).dims(), (Dims{2, 2}));
  EXPECT_EQ(to_vector<int64_t>(out0(r)), (std::vector<int64_t>{0, 1, 0, 1}));
}

// Every rank to 4, with dimensions of 1 and a zero-sized one: the
// coordinates of each nonzero element in row-major order (NaN counts, -0
// does not), against a walk of the flat index.
TEST(TensorOps, NonZero_EveryRank_MatchesFlatWalk) {
  std::mt19937 rng(6);
  const std::vector<Dims> shapes = {{7}, {3, 1, 5}, {2, 3, 4}, {1, 4, 1, 33}, {2, 0, 3}};
  for (const Dims& d : shapes) {
    std::vector<float> v(static_cast<size_t>(d.numel()));
    for (float& e : v) {
      const int pick = static_cast<int>(rng() % 4);
      e = pick == 0 ? 1.5f : pick == 1 ? -0.f : pick == 2 ? std::numeric_limits<float>::quiet_NaN() : 0.f;
    }
    auto r = run_kernel("NonZero", {f32(d, v)}, 1);
    EXPECT_OK(r);
    const auto rows = static_cast<int64_t>(d.rank());
    std::vector<std::vector<int64_t>> want(static_cast<size_t>(rows));
    for (int64_t i = 0; i < d.numel(); ++i) {
      if (v[static_cast<size_t>(i)] == 0.f) continue;
      int64_t rem = i;
      for (int64_t k = static_cast<int64_t>(d.rank()); k-- > 0;) {
        want[static_cast<size_t>(k)].push_back(rem % d[k]);
        rem /= d[k];
      }
    }
    std::vector<int64_t> flat;
    for (const auto& row : want) flat.insert(flat.end(), row.begin(), row.end());
    EXPECT_EQ(out0(r).dims(), (Dims{rows, static_cast<int64_t>(want[0].size())})) << d.to_string();
    EXPECT_EQ(to_vector<int64_t>(out0(r)), flat) << d.to_string();
  }
}

// A scalar has no coordinates to report: [0, 1] when it is nonzero, [0, 0]
// when not (the spec, unlike numpy and ONNX Runtime, which give [1, N]).
TEST(TensorOps, NonZero_Scalar_HasNoCoordinateRows) {
  auto r = run_kernel("NonZero", {f32(Dims{}, {2.5f})}, 1);
  EXPECT_OK(r);
  EXPECT_EQ(out0(r).dims(), (Dims{0, 1}));
  r = run_kernel("NonZero", {f32(Dims{}, {0.f})}, 1);
  EXPECT_OK(r);
  EXPECT_EQ(out0(r).dims(), (Dims{0, 0}));
}

}  // namespace
}  // namespace sy

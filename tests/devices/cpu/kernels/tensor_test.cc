// Unit tests for the CPU shape / data-movement kernels (tensor_*.cc).
// Expected values are small hand-computed (or numpy-checked) arrays.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/devices/kernel_test_util.h"

namespace sy {
namespace {

using testing::attr_float;
using testing::attr_int;
using testing::attr_ints;
using testing::attr_string;
using testing::make_tensor;
using testing::run_kernel;
using testing::to_vector;

Tensor f32(const Dims& d, std::vector<float> v) { return make_tensor<float>(d, v); }
Tensor i64(const Dims& d, std::vector<int64_t> v) { return make_tensor<int64_t>(d, v); }
Tensor i64v(std::vector<int64_t> v) { return make_tensor<int64_t>(Dims{int64_t(v.size())}, v); }
Tensor strs(const Dims& d, std::vector<std::string> v) { return make_tensor<std::string>(d, v); }

const Tensor& out0(const testing::KernelRun& r) { return r.outputs[0].tensor(); }

#define EXPECT_OK(run) ASSERT_TRUE((run).status.ok()) << (run).status.to_string()

// --- views -------------------------------------------------------------------

TEST(TensorOps, Reshape_ZeroAndMinusOneAreZeroCopy) {
  Tensor x = f32(Dims{2, 3, 4}, std::vector<float>(24, 1.f));
  auto r = run_kernel("Reshape", {x, i64v({0, -1})}, 1);
  EXPECT_OK(r);
  EXPECT_EQ(out0(r).dims(), (Dims{2, 12}));
  EXPECT_EQ(out0(r).raw(), x.raw());
}

TEST(TensorOps, Reshape_RejectsTwoMinusOnes) {
  auto r = run_kernel("Reshape", {f32(Dims{2, 3}, {1, 2, 3, 4, 5, 6}), i64v({-1, -1})}, 1);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
}

TEST(TensorOps, Reshape_RejectsImpossibleElementCount) {
  auto r = run_kernel("Reshape", {f32(Dims{2, 3}, {1, 2, 3, 4, 5, 6}), i64v({4, 2})}, 1);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  auto r2 = run_kernel("Reshape", {f32(Dims{2, 3}, {1, 2, 3, 4, 5, 6}), i64v({4, -1})}, 1);
  EXPECT_EQ(r2.status.code(), StatusCode::kInvalidArgument);
}

TEST(TensorOps, Reshape_AllowZeroKeepsZeroDims) {
  Tensor x = f32(Dims{0, 3}, {});
  auto r = run_kernel("Reshape", {x, i64v({3, 0})}, 1, {attr_int("allowzero", 1)}, 14);
  EXPECT_OK(r);
  EXPECT_EQ(out0(r).dims(), (Dims{3, 0}));
  auto bad = run_kernel("Reshape", {x, i64v({-1, 0})}, 1, {attr_int("allowzero", 1)}, 14);
  EXPECT_EQ(bad.status.code(), StatusCode::kInvalidArgument);
}

TEST(TensorOps, Flatten_NegativeAxis) {
  Tensor x = f32(Dims{2, 3, 4, 5}, std::vector<float>(120, 0.f));
  auto r = run_kernel("Flatten", {x}, 1, {attr_int("axis", -1)});
  EXPECT_OK(r);
  EXPECT_EQ(out0(r).dims(), (Dims{24, 5}));
  EXPECT_EQ(out0(r).raw(), x.raw());
}

TEST(TensorOps, Squeeze_RejectsNonUnitAxis) {
  auto r = run_kernel("Squeeze", {f32(Dims{1, 2}, {1, 2}), i64v({1})}, 1);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  auto ok = run_kernel("Squeeze", {f32(Dims{1, 2, 1}, {1, 2})}, 1);
  EXPECT_OK(ok);
  EXPECT_EQ(out0(ok).dims(), (Dims{2}));
}

TEST(TensorOps, Unsqueeze_AxesFromInputAndAttribute) {
  auto r = run_kernel("Unsqueeze", {f32(Dims{3, 4}, std::vector<float>(12)), i64v({-1, 0})}, 1);
  EXPECT_OK(r);
  EXPECT_EQ(out0(r).dims(), (Dims{1, 3, 4, 1}));
  auto r11 = run_kernel("Unsqueeze", {f32(Dims{3}, {1, 2, 3})}, 1, {attr_ints("axes", {1})}, 11);
  EXPECT_OK(r11);
  EXPECT_EQ(out0(r11).dims(), (Dims{3, 1}));
  auto dup = run_kernel("Unsqueeze", {f32(Dims{3}, {1, 2, 3}), i64v({0, 0})}, 1);
  EXPECT_EQ(dup.status.code(), StatusCode::kInvalidArgument);
}

TEST(TensorOps, Identity_PassesValueThrough) {
  Tensor x = strs(Dims{2}, {"a", "b"});
  auto r = run_kernel("Identity", {x}, 1);
  EXPECT_OK(r);
  EXPECT_EQ(out0(r).raw(), x.raw());
}

// --- constants and shapes ----------------------------------------------------

TEST(TensorOps, Constant_ValueIntsAndStrings) {
  auto r = run_kernel("Constant", {}, 1, {attr_ints("value_ints", {4, 5})});
  EXPECT_OK(r);
  EXPECT_EQ(to_vector<int64_t>(out0(r)), (std::vector<int64_t>{4, 5}));
  Attribute s;
  s.name = "value_strings";
  s.kind = Attribute::Kind::kStrings;
  s.strings = {"x", "yz"};
  auto rs = run_kernel("Constant", {}, 1, {s});
  EXPECT_OK(rs);
  EXPECT_EQ(to_vector<std::string>(out0(rs)), (std::vector<std::string>{"x", "yz"}));
  auto rf = run_kernel("Constant", {}, 1, {attr_float("value_float", 2.5f)});
  EXPECT_OK(rf);
  EXPECT_EQ(out0(rf).rank(), 0u);
  EXPECT_EQ(out0(rf).data<float>()[0], 2.5f);
}

TEST(TensorOps, Constant_ValueTensorIsBorrowed) {
  auto td = std::make_shared<TensorData>();
  td->dtype = DataType::kInt32;
  td->dims = Dims{2};
  td->bytes.resize(8);
  int32_t v[2] = {7, -3};
  std::memcpy(td->bytes.data(), v, 8);
  Attribute a;
  a.name = "value";
  a.kind = Attribute::Kind::kTensor;
  a.t = td;
  auto r = run_kernel("Constant", {}, 1, {a});
  EXPECT_OK(r);
  EXPECT_EQ(out0(r).raw(), static_cast<const void*>(td->bytes.data()));
  EXPECT_EQ(to_vector<int32_t>(out0(r)), (std::vector<int32_t>{7, -3}));
}

TEST(TensorOps, ConstantOfShape_FillsAndRejectsAbsurdShapes) {
  auto r = run_kernel("ConstantOfShape", {i64v({2, 2})}, 1);
  EXPECT_OK(r);
  EXPECT_EQ(to_vector<float>(out0(r)), (std::vector<float>{0, 0, 0, 0}));
  auto big = run_kernel("ConstantOfShape", {i64v({1 << 30, 1 << 30, 1 << 30})}, 1);
  EXPECT_FALSE(big.status.ok());
  auto neg = run_kernel("ConstantOfShape", {i64v({2, -1})}, 1);
  EXPECT_EQ(neg.status.code(), StatusCode::kInvalidArgument);
}

TEST(TensorOps, Shape_StartAndEndClamp) {
  Tensor x = f32(Dims{2, 3, 4}, std::vector<float>(24));
  auto r = run_kernel("Shape", {x}, 1, {attr_int("start", -2), attr_int("end", 100)}, 15);
  EXPECT_OK(r);
  EXPECT_EQ(to_vector<int64_t>(out0(r)), (std::vector<int64_t>{3, 4}));
  auto s = run_kernel("Size", {x}, 1);
  EXPECT_OK(s);
  EXPECT_EQ(out0(s).data<int64_t>()[0], 24);
}

// --- movement ----------------------------------------------------------------

TEST(TensorOps, Transpose_PermAndDefault) {
  Tensor x = f32(Dims{2, 3}, {1, 2, 3, 4, 5, 6});
  auto r = run_kernel("Transpose", {x}, 1);
  EXPECT_OK(r);
  EXPECT_EQ(out0(r).dims(), (Dims{3, 2}));
  EXPECT_EQ(to_vector<float>(out0(r)), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  Tensor y = f32(Dims{2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  auto r3 = run_kernel("Transpose", {y}, 1, {attr_ints("perm", {1, 2, 0})});
  EXPECT_OK(r3);
  EXPECT_EQ(to_vector<float>(out0(r3)), (std::vector<float>{0, 4, 1, 5, 2, 6, 3, 7}));
  auto bad = run_kernel("Transpose", {y}, 1, {attr_ints("perm", {0, 0, 1})});
  EXPECT_EQ(bad.status.code(), StatusCode::kInvalidArgument);
}

// Odd sizes, so that tiles are cut at every edge, and every permutation;
// the second shape is big enough for the parallel tiled path.
TEST(TensorOps, Transpose_EveryPermOfOddShapes_MatchesReference) {
  // The third shape's output rows of 1024 floats (4 KiB) take the banded
  // SSE path of strided_copy_tiled, with a partial 16-row tile of 5 rows.
  // Perms that put a first axis of 2 to 4 last over contiguous rows
  // interleave planes (interleave_planes), in parallel for the big ones.
  for (const Dims& dims :
       {Dims{3, 37, 21, 5}, Dims{2, 300, 130, 1}, Dims{2, 1024, 37, 1}, Dims{4, 33, 17, 5}, Dims{3, 150, 150, 1}}) {
    const int64_t n = dims.numel();
    std::vector<float> v(static_cast<size_t>(n));
    for (size_t i = 0; i < v.size(); ++i) v[i] = float(i);
    std::vector<int64_t> perm = {0, 1, 2, 3};
    do {
      auto r = run_kernel("Transpose", {f32(dims, v)}, 1, {attr_ints("perm", perm)});
      ASSERT_TRUE(r.status.ok()) << r.status.to_string();
      const float* o = out0(r).data<float>();
      int64_t mismatches = 0, idx[4] = {0, 0, 0, 0};  // output index, last axis fastest
      for (int64_t e = 0; e < n; ++e) {
        int64_t src = 0;
        for (size_t k = 0; k < 4; ++k) {
          int64_t stride = 1;
          for (size_t j = static_cast<size_t>(perm[k]) + 1; j < 4; ++j) stride *= dims[j];
          src += idx[k] * stride;
        }
        mismatches += o[e] != v[static_cast<size_t>(src)];
        for (size_t k = 4; k-- > 0;)
          if (++idx[k] < dims[static_cast<size_t>(perm[k])]) break; else idx[k] = 0;
      }
      EXPECT_EQ(mismatches, 0) << dims.to_string() << " perm " << perm[0] << perm[1] << perm[2] << perm[3];
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
}

TEST(TensorOps, Transpose_Strings) {
  auto r = run_kernel("Transpose", {strs(Dims{2, 2}, {"a", "b", "c", "d"})}, 1);
  EXPECT_OK(r);
  EXPECT_EQ(to_vector<std::string>(out0(r)), (std::vector<std::string>{"a", "c", "b", "d"}));
}

TEST(TensorOps, Concat_Axis1AndRejectsMismatch) {
  Tensor a = f32(Dims{2, 1}, {1, 2});
  Tensor b = f32(Dims{2, 2}, {3, 4, 5, 6});
  auto r = run_kernel("Concat", {a, b}, 1, {attr_int("axis", -1)});
  EXPECT_OK(r);
  EXPECT_EQ(out0(r).dims(), (Dims{2, 3}));
  EXPECT_EQ(to_vector<float>(out0(r)), (std::vector<float>{1, 3, 4, 2, 5, 6}));
  auto bad = run_kernel("Concat", {a, f32(Dims{3, 1}, {1, 2, 3})}, 1, {attr_int("axis", 1)});
  EXPECT_EQ(bad.status.code(), StatusCode::kInvalidArgument);
  auto s = run_kernel("Concat", {strs(Dims{1}, {"x"}), strs(Dims{2}, {"y", "z"})}, 1, {attr_int("axis", 0)});
  EXPECT_OK(s);
  EXPECT_EQ(to_vector<std::string>(out0(s)), (std::vector<std::string>{"x", "y", "z"}));
}

TEST(TensorOps, Split_FromInputAndEqualParts) {
  Tensor x = f32(Dims{2, 3}, {1, 2, 3, 4, 5, 6});
  auto r = run_kernel("Split", {x, i64v({1, 2})}, 2, {attr_int("axis", 1)});
  EXPECT_OK(r);
  EXPECT_EQ(to_vector<float>(r.outputs[0].tensor()), (std::vector<float>{1, 4}));
  EXPECT_EQ(to_vector<float>(r.outputs[1].tensor()), (std::vector<float>{2, 3, 5, 6}));
  auto eq = run_kernel("Split", {x}, 2, {attr_int("axis", 0)});
  EXPECT_OK(eq);
  EXPECT_EQ(to_vector<float>(eq.outputs[1].tensor()), (std::vector<float>{4, 5, 6}));
  auto bad = run_kernel("Split", {x, i64v({1, 1})}, 2, {attr_int("axis", 1)});
  EXPECT_EQ(bad.status.code(), StatusCode::kInvalidArgument);
  // Sizes past the axis, one of them so large that a running sum would
  // overflow (found by the fuzzer under UBSan), or summing past it.
  for (const auto& sizes : {std::vector<int64_t>{2, std::numeric_limits<int64_t>::max()}, std::vector<int64_t>{3, 1}}) {
    auto over = run_kernel("Split", {x, i64v(sizes)}, 2, {attr_int("axis", 1)});
    EXPECT_EQ(over.status.code(), StatusCode::kInvalidArgument) << over.status.to_string();
  }
  auto old = run_kernel("Split", {x}, 2, {attr_int("axis", 1), attr_ints("split", {2, 1})}, 11);
  EXPECT_OK(old);
  EXPECT_EQ(to_vector<float>(old.outputs[1].tensor()), (std::vector<float>{3, 6}));
}

TEST(TensorOps, Slice_NegativeStepsAndClamping) {
  Tensor x = f32(Dims{2, 4}, {0, 1, 2, 3, 4, 5, 6, 7});
  // x[:, ::-2] via starts=-1, ends=INT64_MIN, steps=-2 on axis 1.
  auto r = run_kernel("Slice", {x, i64v({-1}), i64v({INT64_MIN}), i64v({1}), i64v({-2})}, 1);
  EXPECT_OK(r);
  EXPECT_EQ(out0(r).dims(), (Dims{2, 2}));
  EXPECT_EQ(to_vector<float>(out0(r)), (std::vector<float>{3, 1, 7, 5}));
  // Out-of-bounds ends clamp: x[1:1000, 1:3].
  auto c = run_kernel("Slice", {x, i64v({1, 1}), i64v({1000, 3})}, 1);
  EXPECT_OK(c);
  EXPECT_EQ(to_vector<float>(c.outputs[0].tensor()), (std::vector<float>{5, 6}));
  auto zero = run_kernel("Slice", {x, i64v({0}), i64v({2}), i64v({0}), i64v({0})}, 1);
  EXPECT_EQ(zero.status.code(), StatusCode::kInvalidArgument);
  auto v1 = run_kernel("Slice", {x}, 1, {attr_ints("starts", {2}), attr_ints("ends", {4}), attr_ints("axes", {1})}, 1);
  EXPECT_OK(v1);
  EXPECT_EQ(to_vector<float>(out0(v1)), (std::vector<float>{2, 3, 6, 7}));
}

TEST(TensorOps, Expand_BroadcastsAndRejectsAbsurdShape) {
  auto r = run_kernel("Expand", {f32(Dims{3, 1}, {1, 2, 3}), i64v({2, 1, 2})}, 1);
  EXPECT_OK(r);
  EXPECT_EQ(out0(r).dims(), (Dims{2, 3, 2}));
  EXPECT_EQ(to_vector<float>(out0(r)), (std::vector<float>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
  auto big = run_kernel("Expand", {f32(Dims{1}, {1}), i64v({1 << 30, 1 << 30, 1 << 30})}, 1);
  EXPECT_FALSE(big.status.ok());
  auto bad = run_kernel("Expand", {f32(Dims{3}, {1, 2, 3}), i64v({2})}, 1);
  EXPECT_EQ(bad.status.code(), StatusCode::kInvalidArgument);
}

TEST(TensorOps, Tile_RepeatsAndRejectsOverflow) {
  auto r = run_kernel("Tile", {f32(Dims{2, 2}, {1, 2, 3, 4}), i64v({1, 2})}, 1);
  EXPECT_OK(r);
  EXPECT_EQ(to_vector<float>(out0(r)), (std::vector<float>{1, 2, 1, 2, 3, 4, 3, 4}));
  auto big = run_kernel("Tile", {f32(Dims{2, 2}, {1, 2, 3, 4}), i64v({INT64_MAX / 2, 4})}, 1);
  EXPECT_FALSE(big.status.ok());
}

// Every mode (wrap from opset 19), pads and crops on each axis, on a tensor
// big enough for the parallel path, then wide pads of a short inner axis
// (a reflection or wrap every few columns: more runs than the kernel keeps
// segments for): against the spec's index rules.
TEST(TensorOps, Pad_EveryMode_MatchesReference) {
  auto source = [](int64_t c, int64_t dim, const std::string& mode) -> int64_t {
    if (c >= 0 && c < dim) return c;
    if (mode == "constant") return -1;
    if (mode == "edge") return c < 0 ? 0 : dim - 1;
    if (mode == "wrap") return ((c % dim) + dim) % dim;
    const int64_t period = 2 * (dim - 1), m = ((c % period) + period) % period;  // reflect
    return m < dim ? m : period - m;
  };
  struct Case {
    Dims xd;
    std::vector<int64_t> pads;  // begins, then ends
  };
  for (const Case& k : {Case{Dims{4, 130, 131}, {1, -2, 3, 0, 5, -4}}, Case{Dims{2, 3, 3}, {0, 1, 1000, 1, 0, 997}}}) {
    const Dims& xd = k.xd;
    std::vector<float> xv(static_cast<size_t>(xd.numel()));
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = float(i);
    const Dims od{xd[0] + k.pads[0] + k.pads[3], xd[1] + k.pads[1] + k.pads[4], xd[2] + k.pads[2] + k.pads[5]};
    for (const std::string mode : {"constant", "edge", "reflect", "wrap"}) {
      auto r = run_kernel("Pad", {f32(xd, xv), i64v(k.pads), f32(Dims{}, {-7})}, 1, {attr_string("mode", mode)}, 19);
      ASSERT_TRUE(r.status.ok()) << mode << ": " << r.status.to_string();
      ASSERT_EQ(out0(r).dims(), od) << mode;
      const std::vector<float> got = to_vector<float>(out0(r));
      int64_t bad = 0;
      for (int64_t a = 0; a < od[0]; ++a)
        for (int64_t b = 0; b < od[1]; ++b)
          for (int64_t c = 0; c < od[2]; ++c) {
            const int64_t sa = source(a - k.pads[0], xd[0], mode), sb = source(b - k.pads[1], xd[1], mode),
                          sc = source(c - k.pads[2], xd[2], mode);
            const float want =
                sa < 0 || sb < 0 || sc < 0 ? -7.f : xv[static_cast<size_t>((sa * xd[1] + sb) * xd[2] + sc)];
            bad += got[static_cast<size_t>((a * od[1] + b) * od[2] + c)] != want;
          }
      EXPECT_EQ(bad, 0) << mode << " on " << xd.to_string();
    }
  }
}

TEST(TensorOps, Pad_ReflectEdgeConstant) {
  Tensor x = f32(Dims{1, 3}, {1, 2, 3});
  auto rf = run_kernel("Pad", {x, i64v({0, 2, 0, 2})}, 1, {attr_string("mode", "reflect")});
  EXPECT_OK(rf);
  EXPECT_EQ(to_vector<float>(out0(rf)), (std::vector<float>{3, 2, 1, 2, 3, 2, 1}));
  auto re = run_kernel("Pad", {x, i64v({0, 1, 0, 2})}, 1, {attr_string("mode", "edge")});
  EXPECT_OK(re);
  EXPECT_EQ(to_vector<float>(out0(re)), (std::vector<float>{1, 1, 2, 3, 3, 3}));
  auto rc = run_kernel("Pad", {x, i64v({1, -1, 0, 0}), f32(Dims{}, {9})}, 1);
  EXPECT_OK(rc);
  EXPECT_EQ(out0(rc).dims(), (Dims{2, 2}));
  EXPECT_EQ(to_vector<float>(out0(rc)), (std::vector<float>{9, 9, 2, 3}));
  auto v2 = run_kernel("Pad", {x}, 1, {attr_ints("pads", {0, 1, 0, 0}), attr_float("value", 5)}, 2);
  EXPECT_OK(v2);
  EXPECT_EQ(to_vector<float>(out0(v2)), (std::vector<float>{5, 1, 2, 3}));
}

TEST(TensorOps, DepthToSpace_DcrCrdAndSpaceToDepthRoundTrip) {
  std::vector<float> v(16);
  for (int i = 0; i < 16; ++i) v[i] = float(i);
  Tensor x = f32(Dims{1, 4, 2, 2}, v);
  auto dcr = run_kernel("DepthToSpace", {x}, 1, {attr_int("blocksize", 2)});
  EXPECT_OK(dcr);
  EXPECT_EQ(out0(dcr).dims(), (Dims{1, 1, 4, 4}));
  // numpy: x.reshape(1,2,2,1,2,2).transpose(0,3,4,1,5,2).reshape(1,1,4,4)
  EXPECT_EQ(to_vector<float>(out0(dcr)),
            (std::vector<float>{0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15}));
  auto crd = run_kernel("DepthToSpace", {x}, 1, {attr_int("blocksize", 2), attr_string("mode", "CRD")});
  EXPECT_OK(crd);
  EXPECT_EQ(to_vector<float>(out0(crd)),
            (std::vector<float>{0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15}));
  auto back = run_kernel("SpaceToDepth", {out0(dcr)}, 1, {attr_int("blocksize", 2)});
  EXPECT_OK(back);
  EXPECT_EQ(to_vector<float>(out0(back)), v);
}

TEST(TensorOps, DepthToSpace_ModesDifferWithSeveralOutputChannels) {
  Tensor x = f32(Dims{1, 8, 1, 1}, {0, 1, 2, 3, 4, 5, 6, 7});
  auto dcr = run_kernel("DepthToSpace", {x}, 1, {attr_int("blocksize", 2)});
  EXPECT_OK(dcr);
  EXPECT_EQ(out0(dcr).dims(), (Dims{1, 2, 2, 2}));
  EXPECT_EQ(to_vector<float>(out0(dcr)), (std::vector<float>{0, 2, 4, 6, 1, 3, 5, 7}));
  auto crd = run_kernel("DepthToSpace", {x}, 1, {attr_int("blocksize", 2), attr_string("mode", "CRD")});
  EXPECT_OK(crd);
  EXPECT_EQ(to_vector<float>(out0(crd)), (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(TensorOps, Trilu_UpperAndLowerWithK) {
  Tensor x = f32(Dims{3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto up = run_kernel("Trilu", {x, i64(Dims{}, {1})}, 1);
  EXPECT_OK(up);
  EXPECT_EQ(to_vector<float>(out0(up)), (std::vector<float>{0, 2, 3, 0, 0, 6, 0, 0, 0}));
  auto lo = run_kernel("Trilu", {x}, 1, {attr_int("upper", 0)});
  EXPECT_OK(lo);
  EXPECT_EQ(to_vector<float>(out0(lo)), (std::vector<float>{1, 0, 0, 4, 5, 0, 7, 8, 9}));
}

// Two 3x4 matrices, both directions, every k that keeps part of a row and
// the extremes of int64 (which clamp without overflow), against the rule
// per element.
TEST(TensorOps, Trilu_EveryKOnBatchedNonSquare_MatchesRule) {
  std::vector<float> v(24);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i + 1);
  const Tensor x = f32(Dims{2, 3, 4}, v);
  std::vector<int64_t> ks = {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  for (int64_t k = -5; k <= 5; ++k) ks.push_back(k);
  for (int64_t k : ks)
    for (int upper : {0, 1}) {
      auto r = run_kernel("Trilu", {x, i64(Dims{}, {k})}, 1, {attr_int("upper", upper)});
      EXPECT_OK(r);
      const std::vector<float> got = to_vector<float>(out0(r));
      for (int64_t at = 0; at < 24; ++at) {
        const int64_t i = at / 4 % 3, j = at % 4;
        const __int128 diff = static_cast<__int128>(j) - i;
        const bool keep = upper ? diff >= k : diff <= k;
        EXPECT_EQ(got[static_cast<size_t>(at)], keep ? v[static_cast<size_t>(at)] : 0.f) << "k " << k << " upper " << upper << " at " << at;
      }
    }
}

TEST(TensorOps, ReverseSequence_ReversesPrefixesAndChecksLens) {
  // time_axis=0, batch_axis=1: x[t, b]
  Tensor x = f32(Dims{3, 2}, {0, 10, 1, 11, 2, 12});
  auto r = run_kernel("ReverseSequence", {x, i64v({3, 2})}, 1);
  EXPECT_OK(r);
  EXPECT_EQ(to_vector<float>(out0(r)), (std::vector<float>{2, 11, 1, 10, 0, 12}));
  auto bad = run_kernel("ReverseSequence", {x, i64v({4, 1})}, 1);
  EXPECT_EQ(bad.status.code(), StatusCode::kOutOfRange);
}

// --- indexing ----------------------------------------------------------------

TEST(TensorOps, Gather_NegativeIndicesOnAxis1) {
  Tensor x = f32(Dims{2, 3}, {1, 2, 3, 4, 5, 6});
  auto r = run_kernel("Gather", {x, i64(Dims{2}, {-1, 0})}, 1, {attr_int("axis", 1)});
  EXPECT_OK(r);
  EXPECT_EQ(out0(r).dims(), (Dims{2, 2}));
  EXPECT_EQ(to_vector<float>(out0(r)), (std::vector<float>{3, 1, 6, 4}));
}

TEST(TensorOps, Gather_RejectsOutOfRangeIndex) {
  Tensor x = f32(Dims{2, 3}, {1, 2, 3, 4, 5, 6});
  auto r = run_kernel("Gather", {x, i64(Dims{2}, {0, 3})}, 1, {attr_int("axis", 1)});
  EXPECT_EQ(r.status.code(), StatusCode::kOutOfRange);
  EXPECT_NE(r.status.message().find("3"), std::string::npos);
  auto neg = run_kernel("Gather", {x, make_tensor<int32_t>(Dims{1}, {-3})}, 1);
  EXPECT_EQ(neg.status.code(), StatusCode::kOutOfRange);
}

TEST(TensorOps, Gather_Strings) {
  auto r = run_kernel("Gather", {strs(Dims{3}, {"a", "b", "c"}), i64(Dims{2, 2}, {2, 0, 1, 2})}, 1);
  EXPECT_OK(r);
  EXPECT_EQ(to_vector<std::string>(out0(r)), (std::vector<std::string>{"c", "a", "b", "c"}));
}

TEST(TensorOps, GatherND_BatchDims) {
  Tensor x = f32(Dims{2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  auto r = run_kernel("GatherND", {x, i64(Dims{2, 1}, {1, 0})}, 1, {attr_int("batch_dims", 1)});
  EXPECT_OK(r);
  EXPECT_EQ(out0(r).dims(), (Dims{2, 2}));
  EXPECT_EQ(to_vector<float>(out0(r)), (std::vector<float>{2, 3, 4, 5}));
  auto bad = run_kernel("GatherND", {x, i64(Dims{1, 2}, {0, 2})}, 1);
  EXPECT_EQ(bad.status.code(), StatusCode::kOutOfRange);
}

TEST(TensorOps, ScatterND_MulAndRangeCheck) {
  Tensor x = f32(Dims{4}, {1, 2, 3, 4});
  auto r = run_kernel("ScatterND", {x, i64(Dims{2, 1}, {1, 3}), f32(Dims{2}, {10, 2})}, 1,
                      {attr_string("reduction", "mul")}, 16);
  EXPECT_OK(r);
  EXPECT_EQ(to_vector<float>(out0(r)), (std::vector<float>{1, 20, 3, 8}));
  auto bad = run_kernel("ScatterND", {x, i64(Dims{1, 1}, {4}), f32(Dims{1}, {0})}, 1);
  EXPECT_EQ(bad.status.code(), StatusCode::kOutOfRange);
  auto s = run_kernel("ScatterND", {strs(Dims{2}, {"a", "b"}), i64(Dims{1, 1}, {0}), strs(Dims{1}, {"z"})}, 1);
  EXPECT_OK(s);
  EXPECT_EQ(to_vector<std::string>(out0(s)), (std::vector<std::string>{"z", "b"}));
}

TEST(TensorOps, OneHot_AxisAndOutOfRangeIsAllOff) {
  auto r = run_kernel("OneHot", {i64(Dims{3}, {0, -1, 5}), f32(Dims{}, {3}), f32(Dims{2}, {0, 1})}, 1,
                      {attr_int("axis", 0)}, 11);
  EXPECT_OK(r);
  EXPECT_EQ(out0(r).dims(), (Dims{3, 3}));
  // column j is the one-hot of indices[j]; 5 is outside [-3, 2] so all off.
  EXPECT_EQ(to_vector<float>(out0(r)), (std::vector<float>{1, 0, 0, 0, 0, 0, 0, 1, 0}));
}

// Fractional indices are cast to int64 first (toward 0), so -5.25 with
// depth 5 is -5, the first class; -6.0 and 5.0 are out of range. The range
// check once compared -5.25 itself with -5 and left its row all off.
TEST(TensorOps, OneHot_FractionalIndicesTruncateBeforeTheRangeCheck) {
  auto r = run_kernel("OneHot",
                      {f32(Dims{6}, {-5.25f, -5.f, -4.75f, 3.25f, -6.f, 5.f}), f32(Dims{}, {5}), f32(Dims{2}, {0, 1})},
                      1, {}, 11);
  EXPECT_OK(r);
  EXPECT_EQ(to_vector<float>(out0(r)), (std::vector<float>{1, 0, 0, 0, 0,  //
                                                           1, 0, 0, 0, 0,  //
                                                           0, 1, 0, 0, 0,  //
                                                           0, 0, 0, 1, 0,  //
                                                           0, 0, 0, 0, 0,  //
                                                           0, 0, 0, 0, 0}));
}

// Empty indices may claim 2^40 rows of nothing; the output is empty at
// once (the loop over the indices' rows took hours).
TEST(TensorOps, OneHot_EmptyIndicesClaimingHugeDims_FinishAtOnce) {
  auto r = run_kernel("OneHot", {i64(Dims{int64_t{1} << 40, 0}, {}), f32(Dims{}, {3}), f32(Dims{2}, {0, 1})}, 1,
                      {attr_int("axis", 1)}, 11);
  EXPECT_OK(r);
  EXPECT_EQ(out0(r).dims(), (Dims{int64_t{1} << 40, 3, 0}));
}

TEST(TensorOps, Compress_AxisAndFlat) {
  Tensor x = f32(Dims{3, 2}, {1, 2, 3, 4, 5, 6});
  auto r = run_kernel("Compress", {x, make_tensor<bool>(Dims{2}, {false, true})}, 1, {attr_int("axis", 0)});
  EXPECT_OK(r);
  EXPECT_EQ(to_vector<float>(out0(r)), (std::vector<float>{3, 4}));
  auto f = run_kernel("Compress", {x, make_tensor<bool>(Dims{5}, {false, true, true, false, true})}, 1);
  EXPECT_OK(f);
  EXPECT_EQ(to_vector<float>(out0(f)), (std::vector<float>{2, 3, 5}));
  auto bad = run_kernel("Compress", {x, make_tensor<bool>(Dims{4}, {false, false, false, true})}, 1,
                        {attr_int("axis", 0)});
  EXPECT_EQ(bad.status.code(), StatusCode::kOutOfRange);
}

TEST(TensorOps, Unique_SortedAndUnsorted) {
  Tensor x = f32(Dims{6}, {2, 1, 1, 3, 4, 3});
  auto r = run_kernel("Unique", {x}, 4);
  EXPECT_OK(r);
  EXPECT_EQ(to_vector<float>(r.outputs[0].tensor()), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(to_vector<int64_t>(r.outputs[1].tensor()), (std::vector<int64_t>{1, 0, 3, 4}));
  EXPECT_EQ(to_vector<int64_t>(r.outputs[2].tensor()), (std::vector<int64_t>{1, 0, 0, 2, 3, 2}));
  EXPECT_EQ(to_vector<int64_t>(r.outputs[3].tensor()), (std::vector<int64_t>{2, 1, 2, 1}));
  auto u = run_kernel("Unique", {x}, 1, {attr_int("sorted", 0)});
  EXPECT_OK(u);
  EXPECT_EQ(to_vector<float>(u.outputs[0].tensor()), (std::vector<float>{2, 1, 3, 4}));
  auto ax = run_kernel("Unique", {f32(Dims{3, 2}, {1, 0, 0, 1, 1, 0})}, 1, {attr_int("axis", 0)});
  EXPECT_OK(ax);
  EXPECT_EQ(to_vector<float>(ax.outputs[0].tensor()), (std::vector<float>{0, 1, 1, 0}));
}

// An empty input whose other dims are huge: 5 empty slices are one group,
// found without walking the 2^60 "rows" of each slice. The comparison used
// to loop over them; an optimised build drops that empty loop, but the
// unoptimised sanitizer build would hang.
TEST(TensorOps, Unique_EmptySlicesWithHugeDims_AreOneGroup) {
  const Dims dims{int64_t{1} << 60, 5, 0};
  auto r = run_kernel("Unique", {f32(dims, {})}, 4, {attr_int("axis", 1)});
  EXPECT_OK(r);
  EXPECT_EQ(r.outputs[0].tensor().dims(), (Dims{int64_t{1} << 60, 1, 0}));
  EXPECT_EQ(to_vector<int64_t>(r.outputs[1].tensor()), (std::vector<int64_t>{0}));
  EXPECT_EQ(to_vector<int64_t>(r.outputs[2].tensor()), (std::vector<int64_t>(5, 0)));
  EXPECT_EQ(to_vector<int64_t>(r.outputs[3].tensor()), (std::vector<int64_t>{5}));
}

// Empty along the axis too: no slices, no groups.
TEST(TensorOps, Unique_NoSlices_AreNoGroups) {
  auto r = run_kernel("Unique", {f32(Dims{2, 0, 3}, {})}, 4, {attr_int("axis", 1)});
  EXPECT_OK(r);
  EXPECT_EQ(r.outputs[0].tensor().dims(), (Dims{2, 0, 3}));
  for (int i = 1; i < 4; ++i) EXPECT_EQ(r.outputs[i].tensor().numel(), 0) << "output " << i;
}

// 2^40 empty slices: the answer is one group, but its inverse indices
// (8 TB) cannot be had. The allocator must say so; the kernel used to build
// a table per slice first, which the host grants under overcommit up to
// its memory and then fills (2^31 slices: the fuzzer's process was killed
// by the OOM killer at 24 GB).
TEST(TensorOps, Unique_EmptyInputClaimingHugeSlices_IsRefusedByTheAllocator) {
  auto r = run_kernel("Unique", {f32(Dims{2, int64_t{1} << 40, 0}, {})}, 4, {attr_int("axis", 1)});
  EXPECT_EQ(r.status.code(), StatusCode::kResourceExhausted) << r.status.to_string();
  EXPECT_NE(r.status.message().find("cannot allocate"), std::string::npos) << r.status.to_string();
}

// --- generators --------------------------------------------------------------

TEST(TensorOps, Range_IntFloatAndErrors) {
  auto r = run_kernel("Range", {make_tensor<int32_t>(Dims{}, {10}), make_tensor<int32_t>(Dims{}, {4}),
                                make_tensor<int32_t>(Dims{}, {-3})}, 1);
  EXPECT_OK(r);
  EXPECT_EQ(to_vector<int32_t>(out0(r)), (std::vector<int32_t>{10, 7}));
  auto f = run_kernel("Range", {f32(Dims{}, {1}), f32(Dims{}, {2}), f32(Dims{}, {0.25f})}, 1);
  EXPECT_OK(f);
  EXPECT_EQ(to_vector<float>(out0(f)), (std::vector<float>{1, 1.25f, 1.5f, 1.75f}));
  auto zero = run_kernel("Range", {i64(Dims{}, {0}), i64(Dims{}, {5}), i64(Dims{}, {0})}, 1);
  EXPECT_EQ(zero.status.code(), StatusCode::kInvalidArgument);
  auto big = run_kernel("Range", {i64(Dims{}, {INT64_MIN}), i64(Dims{}, {INT64_MAX}), i64(Dims{}, {1})}, 1);
  EXPECT_FALSE(big.status.ok());
  auto inf = run_kernel("Range", {f32(Dims{}, {0}), f32(Dims{}, {1e30f}), f32(Dims{}, {1e-30f})}, 1);
  EXPECT_FALSE(inf.status.ok());
}

TEST(TensorOps, EyeLike_OffDiagonalAndDtype) {
  auto r = run_kernel("EyeLike", {f32(Dims{2, 3}, std::vector<float>(6))}, 1,
                      {attr_int("k", 1), attr_int("dtype", int64_t(DataType::kInt32))});
  EXPECT_OK(r);
  EXPECT_EQ(out0(r).dtype(), DataType::kInt32);
  EXPECT_EQ(to_vector<int32_t>(out0(r)), (std::vector<int32_t>{0, 1, 0, 0, 0, 1}));
  auto below = run_kernel("EyeLike", {f32(Dims{3, 2}, std::vector<float>(6))}, 1, {attr_int("k", -2)});
  EXPECT_OK(below);
  EXPECT_EQ(to_vector<float>(out0(below)), (std::vector<float>{0, 0, 0, 0, 1, 0}));
  // Diagonals far outside: all zeros, with no overflow of i + k.
  for (int64_t k : {INT64_MAX, INT64_MIN, int64_t{3}, int64_t{-3}}) {
    auto far = run_kernel("EyeLike", {f32(Dims{3, 2}, std::vector<float>(6))}, 1, {attr_int("k", k)});
    EXPECT_OK(far);
    EXPECT_EQ(to_vector<float>(out0(far)), std::vector<float>(6, 0.f)) << k;
  }
}

// --- robustness --------------------------------------------------------------

// Random shapes, indices, axes and shape inputs (many of them invalid) must
// produce a status, never a crash or an out-of-bounds access (run under ASan).
TEST(TensorOps, RandomBadInputs_NeverCrash) {
  std::mt19937 rng(1234);
  auto rnd = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto rand_dims = [&](int max_rank) {
    Dims d;
    int r = rnd(0, max_rank);
    for (int i = 0; i < r; ++i) d.push_back(rnd(0, 3));
    return d;
  };
  auto rand_f = [&](const Dims& d) {
    std::vector<float> v(static_cast<size_t>(d.numel()));
    for (auto& x : v) x = float(rnd(-3, 3));
    return f32(d, v);
  };
  auto rand_i = [&](const Dims& d, int lo, int hi) {
    std::vector<int64_t> v(static_cast<size_t>(d.numel()));
    for (auto& x : v) x = rnd(lo, hi);
    return i64(d, v);
  };
  auto rand_list = [&](int max_len, int lo, int hi) { return rand_i(Dims{rnd(0, max_len)}, lo, hi); };
  const std::vector<std::string> modes{"constant", "reflect", "edge", "wrap"};
  const std::vector<std::string> rmodes{"nearest", "linear", "cubic"};
  const std::vector<std::string> coords{"half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel",
                                        "tf_half_pixel_for_nn", "tf_crop_and_resize"};
  int ok_count = 0;
  for (int it = 0; it < 3000; ++it) {
    Tensor x = rand_f(rand_dims(4));
    Attribute axis = attr_int("axis", rnd(-5, 5));
    testing::KernelRun r;
    switch (it % 26) {
      case 0: r = run_kernel("Gather", {x, rand_i(rand_dims(2), -4, 4)}, 1, {axis}); break;
      case 1: r = run_kernel("GatherElements", {x, rand_i(rand_dims(4), -4, 4)}, 1, {axis}); break;
      case 2: r = run_kernel("GatherND", {x, rand_i(rand_dims(3), -4, 4)}, 1, {attr_int("batch_dims", rnd(0, 2))}); break;
      case 3: {
        Tensor ind = rand_i(rand_dims(4), -4, 4);
        r = run_kernel("ScatterElements", {x, ind, rand_f(rnd(0, 1) ? ind.dims() : rand_dims(4))}, 1,
                       {axis, attr_string("reduction", rnd(0, 1) ? "add" : "none")}, 16);
        break;
      }
      case 4: r = run_kernel("ScatterND", {x, rand_i(rand_dims(3), -4, 4), rand_f(rand_dims(3))}, 1); break;
      case 5: r = run_kernel("Reshape", {x, rand_list(4, -2, 4)}, 1, {attr_int("allowzero", rnd(0, 1))}, 14); break;
      case 6: r = run_kernel("Expand", {x, rand_list(4, -1, 4)}, 1); break;
      case 7: r = run_kernel("Tile", {x, rand_list(4, -1, 3)}, 1); break;
      case 8: {
        int n = rnd(0, 3);
        r = run_kernel("Slice", {x, rand_i(Dims{n}, -6, 6), rand_i(Dims{n}, -6, 6), rand_i(Dims{n}, -5, 5),
                                 rand_i(Dims{n}, -3, 3)}, 1);
        break;
      }
      case 9: r = run_kernel("Pad", {x, rand_list(8, -3, 4)}, 1, {attr_string("mode", modes[rnd(0, 3)])}, 19); break;
      case 10: r = run_kernel("Squeeze", {x, rand_list(3, -5, 5)}, 1); break;
      case 11: r = run_kernel("Unsqueeze", {x, rand_list(3, -6, 6)}, 1); break;
      case 12: r = run_kernel("Split", {x, rand_list(3, -1, 4)}, rnd(1, 3), {axis}); break;
      case 13: r = run_kernel("Concat", {x, rand_f(rand_dims(4))}, 1, {axis}); break;
      case 14: r = run_kernel("Transpose", {x}, 1, {attr_ints("perm", to_vector<int64_t>(rand_list(4, -1, 4)))}); break;
      case 15: r = run_kernel("OneHot", {rand_i(rand_dims(3), -5, 5), rand_f(Dims{}), f32(Dims{2}, {0, 1})}, 1, {axis}, 11); break;
      case 16: {
        Dims cd{rnd(0, 5)};
        std::vector<bool> c(static_cast<size_t>(cd[0]));
        for (size_t i = 0; i < c.size(); ++i) c[i] = rnd(0, 1);
        Tensor ct = Tensor::host(DataType::kBool, cd).value();
        for (size_t i = 0; i < c.size(); ++i) ct.data<bool>()[i] = c[i];
        r = run_kernel("Compress", {x, ct}, 1, rnd(0, 1) ? std::vector<Attribute>{axis} : std::vector<Attribute>{});
        break;
      }
      case 17: r = run_kernel("Unique", {x}, 4, rnd(0, 1) ? std::vector<Attribute>{axis} : std::vector<Attribute>{}); break;
      case 18: r = run_kernel("Trilu", {x, rand_i(Dims{}, -4, 4)}, 1, {attr_int("upper", rnd(0, 1))}); break;
      case 19: r = run_kernel("DepthToSpace", {x}, 1, {attr_int("blocksize", rnd(1, 2))}); break;
      case 20: r = run_kernel("SpaceToDepth", {x}, 1, {attr_int("blocksize", rnd(1, 2))}); break;
      case 21: r = run_kernel("ReverseSequence", {x, rand_list(3, -1, 4)}, 1, {attr_int("batch_axis", 0), attr_int("time_axis", 1)}); break;
      case 22: r = run_kernel("Flatten", {x}, 1, {axis}); break;
      case 23: {
        std::vector<float> sc(static_cast<size_t>(rnd(0, 4)));
        for (auto& s : sc) s = float(rnd(0, 8)) / 4.f;
        std::vector<float> roi(x.rank() * 2);
        for (auto& v : roi) v = float(rnd(-2, 6)) / 4.f;
        r = run_kernel("Resize", {x, f32(Dims{int64_t(roi.size())}, roi), f32(Dims{int64_t(sc.size())}, sc)}, 1,
                       {attr_string("mode", rmodes[rnd(0, 2)]), attr_string("coordinate_transformation_mode", coords[rnd(0, 5)]),
                        attr_int("exclude_outside", rnd(0, 1))}, 13);
        break;
      }
      case 24: r = run_kernel("Range", {f32(Dims{}, {float(rnd(-5, 5))}), f32(Dims{}, {float(rnd(-5, 5))}), f32(Dims{}, {float(rnd(-2, 2))})}, 1); break;
      case 25: r = run_kernel("NonZero", {x}, 1); break;
    }
    if (r.status.ok()) ++ok_count;
  }
  EXPECT_GT(ok_count, 100);  // a fair share of the random cases are valid and run
}

TEST(TensorOps, StringTensors_MoveThroughEveryCopyPath) {
  Tensor s = strs(Dims{2, 2}, {"aa", "bb", "cc", "dd"});
  auto sl = run_kernel("Slice", {s, i64v({1}), i64v({-3}), i64v({1}), i64v({-1})}, 1);
  EXPECT_OK(sl);
  EXPECT_EQ(to_vector<std::string>(out0(sl)), (std::vector<std::string>{"bb", "aa", "dd", "cc"}));
  auto ex = run_kernel("Expand", {strs(Dims{1}, {"q"}), i64v({3})}, 1);
  EXPECT_OK(ex);
  EXPECT_EQ(to_vector<std::string>(out0(ex)), (std::vector<std::string>{"q", "q", "q"}));
  auto pad = run_kernel("Pad", {strs(Dims{2}, {"a", "b"}), i64v({1, 1}), strs(Dims{}, {"-"})}, 1);
  EXPECT_OK(pad);
  EXPECT_EQ(to_vector<std::string>(out0(pad)), (std::vector<std::string>{"-", "a", "b", "-"}));
  auto tile = run_kernel("Tile", {strs(Dims{2}, {"a", "b"}), i64v({2})}, 1);
  EXPECT_OK(tile);
  EXPECT_EQ(to_vector<std::string>(out0(tile)), (std::vector<std::string>{"a", "b", "a", "b"}));
  auto un = run_kernel("Unique", {strs(Dims{4}, {"b", "a", "b", "c"})}, 1);
  EXPECT_OK(un);
  EXPECT_EQ(to_vector<std::string>(out0(un)), (std::vector<std::string>{"a", "b", "c"}));
  auto sp = run_kernel("Split", {s, i64v({1, 1})}, 2, {attr_int("axis", 1)});
  EXPECT_OK(sp);
  EXPECT_EQ(to_vector<std::string>(sp.outputs[1].tensor()), (std::vector<std::string>{"bb", "dd"}));
}

TEST(TensorOps, LargeTranspose_UsesParallelPathCorrectly) {
  const int64_t n = 300, m = 500;
  std::vector<float> v(static_cast<size_t>(n * m));
  for (size_t i = 0; i < v.size(); ++i) v[i] = float(i);
  auto r = run_kernel("Transpose", {f32(Dims{n, m}, v)}, 1);
  EXPECT_OK(r);
  const float* o = out0(r).data<float>();
  bool all = true;
  for (int64_t i = 0; i < m && all; ++i)
    for (int64_t j = 0; j < n; ++j)
      if (o[i * n + j] != v[static_cast<size_t>(j * m + i)]) {
        all = false;
        break;
      }
  EXPECT_TRUE(all);
}

// CenterCropPad: an odd difference crops (or pads) its extra element at
// the end; padding is zero, or "" for strings; a crop-only case is a slice.
TEST(TensorOps, CenterCropPad_CropsAndPadsAboutTheCentre) {
  Tensor x = make_tensor<float>({2, 5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto r = run_kernel("CenterCropPad", {x, make_tensor<int64_t>({2}, {4, 2})}, 1, {}, 18);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.outputs[0].tensor().dims(), (Dims{4, 2}));
  EXPECT_EQ(to_vector<float>(r.outputs[0].tensor()), (std::vector<float>{0, 0, 1, 2, 6, 7, 0, 0}));
  auto crop = run_kernel("CenterCropPad", {x, make_tensor<int64_t>({1}, {3})}, 1, {attr_ints("axes", {-1})}, 18);
  ASSERT_TRUE(crop.status.ok()) << crop.status.to_string();
  EXPECT_EQ(to_vector<float>(crop.outputs[0].tensor()), (std::vector<float>{1, 2, 3, 6, 7, 8}));
  Tensor s = make_tensor<std::string>({1}, {"a"});
  auto str = run_kernel("CenterCropPad", {s, make_tensor<int64_t>({1}, {3})}, 1, {}, 18);
  ASSERT_TRUE(str.status.ok()) << str.status.to_string();
  EXPECT_EQ(to_vector<std::string>(str.outputs[0].tensor()), (std::vector<std::string>{"", "a", ""}));
  EXPECT_FALSE(run_kernel("CenterCropPad", {x, make_tensor<int64_t>({1}, {3})}, 1, {}, 18).status.ok());
  EXPECT_FALSE(
      run_kernel("CenterCropPad", {x, make_tensor<int64_t>({2}, {1, 1})}, 1, {attr_ints("axes", {1, -1})}, 18).status.ok());
}

}  // namespace
}  // namespace sy

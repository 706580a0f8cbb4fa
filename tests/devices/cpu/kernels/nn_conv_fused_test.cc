// Unit tests for FusedConv on the CPU (nn_conv.cc; ir/op_fusion.h makes
// it at load time): each of the convolution's paths clamps as it writes,
// keeping NaN, and adds a residual before the clamp.
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "devices/cpu/kernels/nn_common.h"
#include "tests/devices/kernel_test_util.h"

namespace sy {
namespace {

using testing::attr_floats;
using testing::attr_int;
using testing::attr_ints;
using testing::attr_string;
using testing::exact_pattern;
using testing::make_tensor;
using testing::run_kernel;
using testing::to_vector;

// FusedConv (ir/op_fusion.h) clamps as each path writes its output: the
// same values as Conv then Clip, a NaN kept (oneDNN's own clip and relu
// post-ops turn it into a bound, which is why they are not used).
TEST(FusedConv, EveryPathClampsAndKeepsNaN) {
  struct Case {
    const char* path;
    Dims x, w;
    int64_t group;
    std::vector<int64_t> strides;
    uint64_t constant;  // bit 1: constant weights
    std::vector<int64_t> pads = {1, 1, 1, 1};
  };
  const std::vector<Case> cases = {
      {"blocked", {1, 8, 9, 9}, {20, 8, 3, 3}, 1, {1, 1}, 0b10},
      {"im2col", {1, 16, 64, 30}, {8, 16, 3, 3}, 1, {1, 1}, 0},
      {"oneDNN 1x1", {1, 24, 5, 6}, {40, 24, 1, 1}, 1, {1, 1}, 0},
      {"pointwise sgemm", {1, 24, 5, 6}, {8, 24, 1, 1}, 1, {1, 1}, 0, {0, 0, 0, 0}},
      {"pointwise tiles", {1, 24, 6, 6}, {40, 24, 1, 1}, 1, {1, 1}, 0, {0, 0, 0, 0}},
      {"depthwise rows", {1, 5, 9, 20}, {5, 1, 3, 3}, 5, {1, 1}, 0, {1, 0, 1, 0}},
      {"depthwise rows, stride 2", {1, 5, 9, 100}, {5, 1, 3, 3}, 5, {1, 2}, 0},
      {"depthwise blocks", {1, 20, 9, 20}, {20, 1, 3, 3}, 20, {2, 2}, 0},
      {"depthwise flat", {1, 20, 7, 7}, {20, 1, 3, 3}, 20, {1, 1}, 0},
      {"depthwise flat, a plane at a time", {1, 3, 12, 12}, {3, 1, 3, 3}, 3, {1, 1}, 0},
      {"depthwise flat, stride 2", {1, 3, 24, 24}, {3, 1, 3, 3}, 3, {2, 2}, 0},
      {"grouped", {1, 6, 9, 9}, {4, 3, 3, 3}, 2, {1, 1}, 0},
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  tbb::task_arena arena(2);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.path);
    std::vector<float> x = exact_pattern(c.x.numel(), 37, 23, 0.5f);
    const std::vector<float> w = exact_pattern(c.w.numel(), 11, 7, 0.25f);
    x[static_cast<size_t>(c.x[2] * c.x[3] + 2 * c.x[3] + 3)] = nan;  // channel 1
    const std::vector<Attribute> conv_attrs = {attr_int("group", c.group), attr_ints("pads", c.pads),
                                               attr_ints("strides", c.strides)};
    const Tensor xt = make_tensor<float>(c.x, x), wt = make_tensor<float>(c.w, w);
    testing::KernelRun plain, fused;
    std::vector<Attribute> fused_attrs = conv_attrs;
    fused_attrs.push_back(attr_string("activation", "Clip"));
    fused_attrs.push_back(attr_floats("activation_params", {-2.5f, 3}));
    arena.execute([&] {
      plain = run_kernel("Conv", {xt, wt}, 1, conv_attrs, 17, "", true, c.constant);
      fused = run_kernel("FusedConv", {xt, wt}, 1, fused_attrs, 1, "com.switchyard", true, c.constant);
    });
    ASSERT_TRUE(plain.status.ok()) << plain.status.to_string();
    ASSERT_TRUE(fused.status.ok()) << fused.status.to_string();
    const std::vector<float> want = to_vector<float>(plain.outputs[0].tensor());
    const std::vector<float> got = to_vector<float>(fused.outputs[0].tensor());
    ASSERT_EQ(got.size(), want.size());
    int nans = 0, clamped = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      if (std::isnan(want[i])) {
        ++nans;
        EXPECT_TRUE(std::isnan(got[i])) << i;
        continue;
      }
      clamped += want[i] < -2.5f || want[i] > 3;
      EXPECT_NEAR(got[i], std::clamp(want[i], -2.5f, 3.f), 1e-4) << i;
    }
    EXPECT_GT(nans, 0);
    EXPECT_GT(clamped, 0);
  }
}

// FusedConv with a residual Z (ir/op_fusion.h's Conv, Add, Relu): every
// path gives what Conv gives, plus Z, then clamped, bit for bit (each path
// runs as for Conv, and Z is added in float before the clamp, as the Add
// node did); without a bias too. A Z of another shape is an error.
TEST(FusedConv, Residual_EveryPathAddsThenClamps) {
  struct Case {
    const char* path;
    Dims x, w;
    int64_t group;
    std::vector<int64_t> pads;
    uint64_t constant;  // bit 1: constant weights
    bool bias = true;
  };
  const std::vector<Case> cases = {
      {"blocked, few input channels", {1, 8, 9, 9}, {20, 8, 3, 3}, 1, {1, 1, 1, 1}, 0b10},
      {"blocked, channels-last", {3, 32, 9, 9}, {24, 32, 3, 3}, 1, {1, 1, 1, 1}, 0b10},
      {"im2col", {1, 16, 64, 30}, {8, 16, 3, 3}, 1, {1, 1, 1, 1}, 0},
      {"oneDNN 1x1", {1, 24, 5, 6}, {40, 24, 1, 1}, 1, {1, 1, 1, 1}, 0},
      {"pointwise sgemm", {1, 24, 5, 6}, {8, 24, 1, 1}, 1, {0, 0, 0, 0}, 0},
      {"pointwise tiles", {1, 24, 6, 7}, {40, 24, 1, 1}, 1, {0, 0, 0, 0}, 0},
      {"pointwise tiles, no bias", {2, 24, 6, 7}, {13, 24, 1, 1}, 1, {0, 0, 0, 0}, 0, false},
      {"depthwise", {1, 20, 7, 7}, {20, 1, 3, 3}, 20, {1, 1, 1, 1}, 0},
      {"grouped", {1, 6, 9, 9}, {4, 3, 3, 3}, 2, {1, 1, 1, 1}, 0},
  };
  tbb::task_arena arena(2);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.path);
    const std::vector<float> x = exact_pattern(c.x.numel(), 37, 23, 0.5f);
    const std::vector<float> w = exact_pattern(c.w.numel(), 11, 7, 0.25f);
    std::vector<float> b(static_cast<size_t>(c.w[0]));
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i) / 3 - 1;
    const std::vector<Attribute> conv_attrs = {attr_int("group", c.group), attr_ints("pads", c.pads)};
    const Tensor xt = make_tensor<float>(c.x, x), wt = make_tensor<float>(c.w, w);
    const RuntimeValue bias = c.bias ? RuntimeValue(make_tensor<float>({c.w[0]}, b)) : RuntimeValue();
    testing::KernelRun plain, fused, wrong;
    arena.execute([&] { plain = run_kernel("Conv", {xt, wt, bias}, 1, conv_attrs, 17, "", true, c.constant); });
    ASSERT_TRUE(plain.status.ok()) << plain.status.to_string();
    const Tensor& conv = plain.outputs[0].tensor();
    const std::vector<float> z = exact_pattern(conv.numel(), 29, 13, 1.f / 3);
    std::vector<Attribute> fused_attrs = conv_attrs;
    fused_attrs.push_back(attr_string("activation", "Clip"));
    fused_attrs.push_back(attr_floats("activation_params", {-2.5f, 3}));
    arena.execute([&] {
      fused = run_kernel("FusedConv", {xt, wt, bias, make_tensor<float>(conv.dims(), z)}, 1, fused_attrs, 1,
                         "com.switchyard", true, c.constant);
      wrong = run_kernel("FusedConv", {xt, wt, bias, make_tensor<float>({conv.numel()}, z)}, 1, fused_attrs, 1,
                         "com.switchyard", true, c.constant);
    });
    ASSERT_TRUE(fused.status.ok()) << fused.status.to_string();
    EXPECT_EQ(wrong.status.code(), StatusCode::kInvalidArgument);
    const std::vector<float> sum = to_vector<float>(conv), got = to_vector<float>(fused.outputs[0].tensor());
    ASSERT_EQ(got.size(), sum.size());
    int clamped = 0, wrong_values = 0;
    for (size_t i = 0; i < got.size() && wrong_values < 5; ++i) {
      const float want = std::clamp(sum[i] + z[i], -2.5f, 3.f);
      clamped += sum[i] + z[i] != want;
      if (got[i] != want) {
        ++wrong_values;
        ADD_FAILURE() << "output " << i << ": " << got[i] << ", want " << want;
      }
    }
    EXPECT_GT(clamped, 0);
  }
}

TEST(FusedConv, UnknownActivation_IsAnError) {
  const Tensor x = make_tensor<float>({1, 1, 3, 3}, std::vector<float>(9, 1)),
               w = make_tensor<float>({1, 1, 1, 1}, {1});
  auto r = run_kernel("FusedConv", {x, w}, 1, {attr_string("activation", "Tanh")}, 1, "com.switchyard");
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  r = run_kernel("FusedConv", {x, w}, 1, {attr_string("activation", "Clip")}, 1, "com.switchyard");
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument) << "Clip without its bounds";
}

}  // namespace
}  // namespace sy

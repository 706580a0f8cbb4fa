// Unit tests for the CPU normalisation (RMSNormalization included), loss,
// Einsum and Det kernels.
// Expected values are from numpy, hard-coded.
#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <cmath>
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

void expect_near(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol * std::max(1.0f, std::abs(want[i]))) << i;
}

Attribute attr_str(const std::string& n, const std::string& v) { return attr_string(n, v); }

// ------------------------------------------------------- LayerNormalization

TEST(ReduceNorm, LayerNorm_LastAxisWithStats) {
  Tensor x = make_tensor<float>({2, 4}, {1, 2, 3, 4, 2, 4, 6, 8});
  Tensor scale = make_tensor<float>({4}, {1, 2, 1, 2});
  Tensor bias = make_tensor<float>({4}, {0, 0, 1, 1});
  auto r = run_kernel("LayerNormalization", {x, scale, bias}, 3, {}, 17);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  expect_near(to_vector<float>(r.outputs[0].tensor()),
              {-1.3416355f, -0.8944237f, 1.4472119f, 3.683271f, -1.3416395f, -0.8944263f, 1.4472132f, 3.683279f});
  EXPECT_EQ(r.outputs[1].tensor().dims(), (Dims{2, 1}));
  expect_near(to_vector<float>(r.outputs[1].tensor()), {2.5f, 5.0f});
  expect_near(to_vector<float>(r.outputs[2].tensor()), {0.8944237f, 0.4472132f});
}

TEST(ReduceNorm, LayerNorm_Axis0NoBiasNoStats) {
  // axis 0 normalises the whole tensor; scale has the full shape.
  Tensor x = make_tensor<float>({2, 2}, {1, 1, 3, 3});
  Tensor scale = make_tensor<float>({2, 2}, {1, 1, 1, 1});
  auto r = run_kernel("LayerNormalization", {x, scale}, 1, {attr_int("axis", 0), attr_float("epsilon", 0.0f)}, 17);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  expect_near(to_vector<float>(r.outputs[0].tensor()), {-1, -1, 1, 1});
}

TEST(ReduceNorm, LayerNorm_AxisOutOfRange) {
  Tensor x = make_tensor<float>({2, 2}, {1, 1, 3, 3});
  Tensor scale = make_tensor<float>({2}, {1, 1});
  auto r = run_kernel("LayerNormalization", {x, scale}, 1, {attr_int("axis", 2)}, 17);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
}

TEST(ReduceNorm, LayerNorm_BadScaleShape) {
  Tensor x = make_tensor<float>({2, 2}, {1, 1, 3, 3});
  Tensor scale = make_tensor<float>({3}, {1, 1, 1});
  auto r = run_kernel("LayerNormalization", {x, scale}, 1, {}, 17);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
}

// --------------------------------------------------------- RMSNormalization

TEST(ReduceNorm, RmsNorm_LastAxisAndWholeTensor) {
  Tensor x = make_tensor<float>({2, 2}, {3, 4, 1, -1});
  Tensor scale = make_tensor<float>({2}, {1, 2});
  auto r = run_kernel("RMSNormalization", {x, scale}, 1, {attr_float("epsilon", 0.0f)}, 23);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  // numpy: x / sqrt(mean(x**2, axis=-1, keepdims=True)) * scale
  expect_near(to_vector<float>(r.outputs[0].tensor()), {0.8485281f, 2.2627417f, 1, -2});
  // axis 0: one RMS over all four; scale broadcasts over the rows.
  auto all = run_kernel("RMSNormalization", {x, scale}, 1, {attr_int("axis", 0), attr_float("epsilon", 0.0f)}, 23);
  ASSERT_TRUE(all.status.ok()) << all.status.to_string();
  expect_near(to_vector<float>(all.outputs[0].tensor()), {1.1547005f, 3.0792014f, 0.3849002f, -0.7698004f});
  // epsilon is added to the mean square: a zero row stays zero.
  auto zero = run_kernel("RMSNormalization", {make_tensor<float>({1, 2}, {0, 0}), scale}, 1, {}, 23);
  expect_near(to_vector<float>(zero.outputs[0].tensor()), {0, 0});
}

// Y takes scale's type, which may differ from X's.
TEST(ReduceNorm, RmsNorm_OutputTakesScalesType) {
  Tensor x = make_tensor<float>({1, 2}, {3, 4});
  Tensor scale = make_tensor<Float16>({2}, {Float16(1.f), Float16(2.f)});
  auto r = run_kernel("RMSNormalization", {x, scale}, 1, {attr_float("epsilon", 0.0f)}, 23);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  ASSERT_EQ(r.outputs[0].tensor().dtype(), DataType::kFloat16);
  const std::vector<Float16> y = to_vector<Float16>(r.outputs[0].tensor());
  EXPECT_NEAR(static_cast<float>(y[0]), 0.8485281f, 1e-3f);
  EXPECT_NEAR(static_cast<float>(y[1]), 2.2627417f, 2e-3f);
  auto bad = run_kernel("RMSNormalization", {x, make_tensor<float>({3}, {1, 1, 1})}, 1, {}, 23);
  EXPECT_EQ(bad.status.code(), StatusCode::kInvalidArgument);
  auto int_scale = run_kernel("RMSNormalization", {x, make_tensor<int32_t>({2}, {1, 1})}, 1, {}, 23);
  EXPECT_EQ(int_scale.status.code(), StatusCode::kInvalidArgument);
}

// ------------------------------------------------------- BatchNormalization

Tensor bn_x() { return make_tensor<float>({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 9}); }

TEST(ReduceNorm, BatchNorm_Inference) {
  auto r = run_kernel("BatchNormalization",
                      {bn_x(), make_tensor<float>({2}, {1, 2}), make_tensor<float>({2}, {0.5f, -1}),
                       make_tensor<float>({2}, {1, 2}), make_tensor<float>({2}, {4, 1})},
                      1, {}, 15);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  expect_near(to_vector<float>(r.outputs[0].tensor()), {0.5f, 0.9999994f, 0.99999f, 2.99998f, 2.4999976f, 2.999997f,
                                                        8.99995f, 12.99993f});
}

TEST(ReduceNorm, BatchNorm_TrainingMode) {
  auto r = run_kernel("BatchNormalization",
                      {bn_x(), make_tensor<float>({2}, {1, 2}), make_tensor<float>({2}, {0.5f, -1}),
                       make_tensor<float>({2}, {1, 2}), make_tensor<float>({2}, {4, 1})},
                      3, {attr_int("training_mode", 1)}, 15);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  expect_near(to_vector<float>(r.outputs[0].tensor()), {-0.71267676f, -0.22760606f, -3.3062246f, -2.4675975f,
                                                        1.227606f, 1.7126768f, 0.04828393f, 1.7255383f});
  expect_near(to_vector<float>(r.outputs[1].tensor()), {1.25f, 2.375f});
  expect_near(to_vector<float>(r.outputs[2].tensor()), {4.025f, 1.46875f});
}

// [N, C] (no spatial axes) runs a row of channels per sample: each
// element against its channel's statistics, by the formula.
TEST(ReduceNorm, BatchNorm_TwoDimensional_UsesEachChannelsStatistics) {
  const int64_t n = 3, c = 37;
  std::vector<float> x(n * c), scale(c), bias(c), mean(c), var(c);
  for (int64_t i = 0; i < n * c; ++i) x[i] = static_cast<float>(i % 11) - 5;
  for (int64_t ch = 0; ch < c; ++ch) {
    scale[ch] = 0.5f + ch;
    bias[ch] = -1.f * ch;
    mean[ch] = 0.25f * ch;
    var[ch] = 1.f + ch;
  }
  auto r = run_kernel("BatchNormalization",
                      {make_tensor<float>({n, c}, x), make_tensor<float>({c}, scale), make_tensor<float>({c}, bias),
                       make_tensor<float>({c}, mean), make_tensor<float>({c}, var)},
                      1, {}, 15);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  std::vector<float> want(n * c);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t ch = 0; ch < c; ++ch)
      want[i * c + ch] = static_cast<float>((x[i * c + ch] - mean[ch]) / std::sqrt(var[ch] + 1e-5) * scale[ch] + bias[ch]);
  expect_near(to_vector<float>(r.outputs[0].tensor()), want, 1e-4f);
}

TEST(ReduceNorm, BatchNorm_WrongChannelCount) {
  auto r = run_kernel("BatchNormalization",
                      {bn_x(), make_tensor<float>({3}, {1, 2, 3}), make_tensor<float>({2}, {0.5f, -1}),
                       make_tensor<float>({2}, {1, 2}), make_tensor<float>({2}, {4, 1})},
                      1, {}, 15);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
}

TEST(ReduceNorm, InstanceNorm_Basic) {
  auto r = run_kernel("InstanceNormalization",
                      {bn_x(), make_tensor<float>({2}, {1, 2}), make_tensor<float>({2}, {0.5f, -1})}, 1, {}, 6);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  expect_near(to_vector<float>(r.outputs[0].tensor()),
              {-0.49998f, 1.49998f, -2.99996f, 0.99996f, -0.49998f, 1.49998f, -2.99999f, 0.99999f}, 1e-4f);
}

// A group a channel with no channels is an empty output, not a division
// by zero groups.
TEST(ReduceNorm, InstanceNorm_NoChannels) {
  auto r = run_kernel("InstanceNormalization",
                      {make_tensor<float>({2, 0, 3}, {}), make_tensor<float>({0}, {}), make_tensor<float>({0}, {})}, 1,
                      {}, 6);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.outputs[0].tensor().dims(), Dims({2, 0, 3}));
}

// Two groups of two channels: each normalised over its 4 values, then
// scaled and shifted a group at a time (opset 18) or a channel at a time
// (opset 21), here to the same effect.
TEST(ReduceNorm, GroupNorm_Opset18And21) {
  Tensor x = make_tensor<float>({1, 4, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  std::vector<float> want;
  for (int g = 0; g < 2; ++g)
    for (int i = 0; i < 4; ++i) want.push_back((g ? 2.f : 1.f) * (i - 1.5f) / std::sqrt(1.25f + 1e-5f) + (g ? 1.f : 0.f));
  auto r18 = run_kernel("GroupNormalization",
                        {x, make_tensor<float>({2}, {1, 2}), make_tensor<float>({2}, {0, 1})}, 1,
                        {attr_int("num_groups", 2)}, 18);
  ASSERT_TRUE(r18.status.ok()) << r18.status.to_string();
  expect_near(to_vector<float>(r18.outputs[0].tensor()), want, 1e-5f);
  auto r21 = run_kernel("GroupNormalization",
                        {x, make_tensor<float>({4}, {1, 1, 2, 2}), make_tensor<float>({4}, {0, 0, 1, 1})}, 1,
                        {attr_int("num_groups", 2)}, 21);
  ASSERT_TRUE(r21.status.ok()) << r21.status.to_string();
  expect_near(to_vector<float>(r21.outputs[0].tensor()), want, 1e-5f);
}

TEST(ReduceNorm, GroupNorm_BadGroupsAndParams) {
  Tensor x = make_tensor<float>({1, 4, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  Tensor two = make_tensor<float>({2}, {1, 1});
  auto uneven = run_kernel("GroupNormalization", {x, make_tensor<float>({3}, {1, 1, 1}), make_tensor<float>({3}, {0, 0, 0})},
                           1, {attr_int("num_groups", 3)}, 18);
  EXPECT_EQ(uneven.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(uneven.status.message().find("do not divide"), std::string::npos) << uneven.status.message();
  auto per_group_at_21 = run_kernel("GroupNormalization", {x, two, two}, 1, {attr_int("num_groups", 2)}, 21);
  EXPECT_EQ(per_group_at_21.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(per_group_at_21.status.message().find("one a channel"), std::string::npos)
      << per_group_at_21.status.message();
  EXPECT_FALSE(run_kernel("GroupNormalization", {x, two, two}, 1, {attr_int("num_groups", 0)}, 18).status.ok());
  EXPECT_FALSE(run_kernel("GroupNormalization", {x, two, two}, 1, {}, 18).status.ok());
}

TEST(ReduceNorm, Lrn_Size3) {
  std::vector<float> v{1, 2, 3, 4, 5, 6, 7, 8};
  auto r = run_kernel("LRN", {make_tensor<float>({1, 4, 2, 1}, v)}, 1, {attr_int("size", 3)}, 13);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  expect_near(to_vector<float>(r.outputs[0].tensor()),
              {0.99975008f, 1.9990005f, 2.9973776f, 3.9944088f, 4.9896502f, 5.9826589f, 6.9870782f, 7.9800582f});
}

TEST(ReduceNorm, Mvn_DefaultAxes) {
  std::vector<float> v;
  for (int i = 1; i <= 8; ++i) v.push_back(std::pow(static_cast<float>(i), 1.5f));
  auto r = run_kernel("MeanVarianceNormalization", {make_tensor<float>({2, 2, 2, 1}, v)}, 1, {}, 13);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  expect_near(to_vector<float>(r.outputs[0].tensor()),
              {-1.1299115f, -0.8084325f, -1.1643326f, -0.775216f, 0.66002327f, 1.2783211f, 0.68477994f, 1.254769f},
              1e-4f);
}

TEST(ReduceNorm, LpNorm_L2AndZeroVector) {
  auto r = run_kernel("LpNormalization", {make_tensor<float>({2, 2}, {3, 4, 0, 0})}, 1, {}, 1);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  expect_near(to_vector<float>(r.outputs[0].tensor()), {0.6f, 0.8f, 0, 0});
  auto l1 = run_kernel("LpNormalization", {make_tensor<float>({2, 2}, {1, 3, -2, 2})}, 1,
                       {attr_int("p", 1), attr_int("axis", 0)}, 1);
  ASSERT_TRUE(l1.status.ok());
  expect_near(to_vector<float>(l1.outputs[0].tensor()), {1.f / 3, 0.6f, -2.f / 3, 0.4f});
}

// An empty X may claim 2^40 images (or rows, or vectors) of nothing, at no
// cost in memory. Each kernel gives its empty Y, and BatchNormalization its
// statistics of nothing, at once: each stepped through the claimed images
// one by one, which took hours.
TEST(ReduceNorm, EmptyInputClaimingHugeDims_FinishesAtOnce) {
  constexpr int64_t kHuge = int64_t{1} << 40;
  const Tensor x = make_tensor<float>({kHuge, 2, 3, 0}, {});
  const Tensor two = make_tensor<float>({2}, {1, 2}), zero = make_tensor<float>({0}, {});
  struct Case {
    const char* op;
    std::vector<RuntimeValue> inputs;
    std::vector<Attribute> attrs;
    int opset;
  };
  const std::vector<Case> cases = {
      {"LayerNormalization", {x, zero}, {attr_int("axis", -1)}, 17},
      {"RMSNormalization", {x, zero}, {attr_int("axis", -1)}, 23},
      {"InstanceNormalization", {x, two, two}, {}, 6},
      {"GroupNormalization", {x, two, two}, {attr_int("num_groups", 2)}, 21},
      {"LRN", {x}, {attr_int("size", 3)}, 13},
      {"LpNormalization", {x}, {attr_int("axis", 2)}, 1},
      {"MeanVarianceNormalization", {x}, {}, 13},
  };
  for (const Case& c : cases) {
    auto r = run_kernel(c.op, c.inputs, 1, c.attrs, c.opset);
    ASSERT_TRUE(r.status.ok()) << c.op << ": " << r.status.to_string();
    EXPECT_EQ(r.outputs[0].tensor().dims(), x.dims()) << c.op;
  }
  // Training mode: the batch mean and variance of nothing are 0, so the
  // running statistics move towards 0 by 1 - momentum.
  auto bn = run_kernel("BatchNormalization", {x, two, two, two, two}, 3,
                       {attr_int("training_mode", 1), attr_float("momentum", 0.5f)}, 15);
  ASSERT_TRUE(bn.status.ok()) << bn.status.to_string();
  EXPECT_EQ(bn.outputs[0].tensor().dims(), x.dims());
  expect_near(to_vector<float>(bn.outputs[1].tensor()), {0.5f, 1.f});
  expect_near(to_vector<float>(bn.outputs[2].tensor()), {0.5f, 1.f});
}

// ------------------------------------------------------------------ Losses

Tensor nll_input() {
  return make_tensor<float>({2, 3, 2}, {-1, -2, -3, -4, -5, -6, -0.5f, -1.5f, -2.5f, -3.5f, -4.5f, -5.5f});
}
Tensor nll_target() { return make_tensor<int64_t>({2, 2}, {0, 2, 1, 1}); }

TEST(ReduceLoss, Nll_Reductions) {
  auto none = run_kernel("NegativeLogLikelihoodLoss", {nll_input(), nll_target()}, 1, {attr_str("reduction", "none")}, 13);
  auto sum = run_kernel("NegativeLogLikelihoodLoss", {nll_input(), nll_target()}, 1, {attr_str("reduction", "sum")}, 13);
  auto mean = run_kernel("NegativeLogLikelihoodLoss", {nll_input(), nll_target()}, 1, {}, 13);
  ASSERT_TRUE(none.status.ok() && sum.status.ok() && mean.status.ok()) << none.status.to_string();
  EXPECT_EQ(none.outputs[0].tensor().dims(), (Dims{2, 2}));
  expect_near(to_vector<float>(none.outputs[0].tensor()), {1, 6, 2.5f, 3.5f});
  EXPECT_EQ(sum.outputs[0].tensor().rank(), 0u);
  expect_near(to_vector<float>(sum.outputs[0].tensor()), {13});
  expect_near(to_vector<float>(mean.outputs[0].tensor()), {3.25f});
}

TEST(ReduceLoss, Nll_WeightedMean) {
  auto r = run_kernel("NegativeLogLikelihoodLoss",
                      {nll_input(), nll_target(), make_tensor<float>({3}, {0.2f, 0.3f, 0.5f})}, 1, {}, 13);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  expect_near(to_vector<float>(r.outputs[0].tensor()), {3.846154f});
}

TEST(ReduceLoss, Nll_IgnoreIndex) {
  auto mean = run_kernel("NegativeLogLikelihoodLoss", {nll_input(), nll_target()}, 1, {attr_int("ignore_index", 1)}, 13);
  auto none = run_kernel("NegativeLogLikelihoodLoss", {nll_input(), nll_target()}, 1,
                         {attr_int("ignore_index", 1), attr_str("reduction", "none")}, 13);
  ASSERT_TRUE(mean.status.ok() && none.status.ok());
  expect_near(to_vector<float>(mean.outputs[0].tensor()), {3.5f});
  expect_near(to_vector<float>(none.outputs[0].tensor()), {1, 6, 0, 0});
}

TEST(ReduceLoss, Nll_LabelOutOfRange) {
  Tensor bad = make_tensor<int64_t>({2, 2}, {0, 3, 1, 1});
  auto r = run_kernel("NegativeLogLikelihoodLoss", {nll_input(), bad}, 1, {}, 13);
  EXPECT_EQ(r.status.code(), StatusCode::kOutOfRange);
  Tensor neg = make_tensor<int64_t>({2, 2}, {0, -1, 1, 1});
  r = run_kernel("NegativeLogLikelihoodLoss", {nll_input(), neg}, 1, {}, 13);
  EXPECT_EQ(r.status.code(), StatusCode::kOutOfRange);
  // An out-of-range value equal to ignore_index is fine.
  r = run_kernel("NegativeLogLikelihoodLoss", {nll_input(), neg}, 1, {attr_int("ignore_index", -1)}, 13);
  EXPECT_TRUE(r.status.ok()) << r.status.to_string();
}

TEST(ReduceLoss, Sce_MeanWithLogProb) {
  Tensor s = make_tensor<float>({2, 3}, {1, 2, 3, 1, 1, 1});
  Tensor lab = make_tensor<int32_t>({2}, {2, 0});
  auto r = run_kernel("SoftmaxCrossEntropyLoss", {s, lab}, 2, {}, 13);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  expect_near(to_vector<float>(r.outputs[0].tensor()), {0.7531091f});
  expect_near(to_vector<float>(r.outputs[1].tensor()),
              {-2.4076059f, -1.4076059f, -0.4076059f, -1.0986123f, -1.0986123f, -1.0986123f});
  auto w = run_kernel("SoftmaxCrossEntropyLoss", {s, lab, make_tensor<float>({3}, {1, 2, 3})}, 1, {}, 13);
  ASSERT_TRUE(w.status.ok());
  expect_near(to_vector<float>(w.outputs[0].tensor()), {0.5803575f});
  auto none = run_kernel("SoftmaxCrossEntropyLoss", {s, lab}, 1, {attr_str("reduction", "none")}, 13);
  ASSERT_TRUE(none.status.ok());
  expect_near(to_vector<float>(none.outputs[0].tensor()), {0.4076059f, 1.0986123f});
}

TEST(ReduceLoss, Sce_LabelOutOfRange) {
  Tensor s = make_tensor<float>({2, 3}, {1, 2, 3, 1, 1, 1});
  auto r = run_kernel("SoftmaxCrossEntropyLoss", {s, make_tensor<int64_t>({2}, {2, 5})}, 1, {}, 13);
  EXPECT_EQ(r.status.code(), StatusCode::kOutOfRange);
  r = run_kernel("SoftmaxCrossEntropyLoss", {s, make_tensor<int64_t>({3}, {2, 0, 1})}, 1, {}, 13);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
}

// ------------------------------------------------------------ Einsum / Det

TEST(ReduceEinsum, MatMulAndImplicit) {
  Tensor a = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = make_tensor<float>({3, 2}, {1, 0, 0, 1, 1, 1});
  auto r = run_kernel("Einsum", {a, b}, 1, {attr_str("equation", "ij, jk -> ik")}, 12);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  expect_near(to_vector<float>(r.outputs[0].tensor()), {4, 5, 10, 11});
  auto imp = run_kernel("Einsum", {a, b}, 1, {attr_str("equation", "ij,jk")}, 12);
  ASSERT_TRUE(imp.status.ok());
  expect_near(to_vector<float>(imp.outputs[0].tensor()), {4, 5, 10, 11});
}

TEST(ReduceEinsum, TransposeSumInnerDiagonal) {
  Tensor a = make_tensor<double>({2, 2}, {1, 2, 3, 4});
  auto t = run_kernel("Einsum", {a}, 1, {attr_str("equation", "ij->ji")}, 12);
  auto s = run_kernel("Einsum", {a}, 1, {attr_str("equation", "ij->i")}, 12);
  auto d = run_kernel("Einsum", {a}, 1, {attr_str("equation", "ii->i")}, 12);
  auto tr = run_kernel("Einsum", {a}, 1, {attr_str("equation", "ii")}, 12);
  Tensor v = make_tensor<double>({3}, {1, 2, 3});
  auto ip = run_kernel("Einsum", {v, v}, 1, {attr_str("equation", "i,i")}, 12);
  ASSERT_TRUE(t.status.ok() && s.status.ok() && d.status.ok() && tr.status.ok() && ip.status.ok());
  EXPECT_EQ(to_vector<double>(t.outputs[0].tensor()), (std::vector<double>{1, 3, 2, 4}));
  EXPECT_EQ(to_vector<double>(s.outputs[0].tensor()), (std::vector<double>{3, 7}));
  EXPECT_EQ(to_vector<double>(d.outputs[0].tensor()), (std::vector<double>{1, 4}));
  EXPECT_EQ(to_vector<double>(tr.outputs[0].tensor()), (std::vector<double>{5}));
  EXPECT_EQ(ip.outputs[0].tensor().rank(), 0u);
  EXPECT_EQ(to_vector<double>(ip.outputs[0].tensor()), (std::vector<double>{14}));
}

TEST(ReduceEinsum, EllipsisBatchDiagonal) {
  Tensor a = make_tensor<double>({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  auto r = run_kernel("Einsum", {a}, 1, {attr_str("equation", "...ii ->...i")}, 12);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.outputs[0].tensor().dims(), (Dims{2, 2}));
  EXPECT_EQ(to_vector<double>(r.outputs[0].tensor()), (std::vector<double>{1, 4, 5, 8}));
}

// Two-input float Einsums that are batched matrix products go to sgemm:
// each against the same equation on doubles, which the general loop
// computes. Inputs laid out as the product wants and not (a transposed
// operand, a diagonal), outputs in its order and not, ellipses that
// broadcast, an outer product and a dot product; 12 batches in a
// 4-thread arena run side by side.
TEST(ReduceEinsum, BatchedMatrixProducts_MatchGeneralLoop) {
  struct Case {
    const char* eq;
    std::vector<Dims> shapes;
  };
  const std::vector<Case> cases = {
      {"bij,bjk->bik", {{12, 40, 40}, {12, 40, 40}}},
      {"ij,kj->ik", {{20, 30}, {25, 30}}},
      {"bij,bjk->kbi", {{3, 10, 12}, {3, 12, 9}}},
      {"...ij,...jk->...ik", {{2, 1, 10, 12}, {3, 12, 9}}},
      {"bhqd,bhkd->bhqk", {{2, 3, 16, 8}, {2, 3, 16, 8}}},
      {"ii,ij->j", {{30, 30}, {30, 20}}},
      {"i,j->ij", {{32}, {20}}},
      {"i,i->", {{600}, {600}}},
      {"ij,jk", {{16, 12}, {12, 8}}},
  };
  tbb::task_arena arena(4);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.eq);
    std::vector<Tensor> f, d;
    for (size_t i = 0; i < c.shapes.size(); ++i) {
      const int64_t n = c.shapes[i].numel();
      std::vector<float> v(static_cast<size_t>(n));
      for (int64_t j = 0; j < n; ++j) v[static_cast<size_t>(j)] = static_cast<float>((j * 7 + static_cast<int64_t>(i) * 3) % 17) / 8 - 1;
      f.push_back(make_tensor<float>(c.shapes[i], v));
      d.push_back(make_tensor<double>(c.shapes[i], std::vector<double>(v.begin(), v.end())));
    }
    testing::KernelRun rf, rd;
    arena.execute([&] {
      rf = run_kernel("Einsum", {f[0], f[1]}, 1, {attr_str("equation", c.eq)}, 12);
      rd = run_kernel("Einsum", {d[0], d[1]}, 1, {attr_str("equation", c.eq)}, 12);
    });
    ASSERT_TRUE(rf.status.ok()) << rf.status.to_string();
    ASSERT_TRUE(rd.status.ok()) << rd.status.to_string();
    ASSERT_EQ(rf.outputs[0].tensor().dims(), rd.outputs[0].tensor().dims());
    const std::vector<float> got = to_vector<float>(rf.outputs[0].tensor());
    const std::vector<double> want = to_vector<double>(rd.outputs[0].tensor());
    for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::abs(want[i]))) << i;
  }
}

TEST(ReduceEinsum, ShapeMismatch) {
  Tensor a = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto r = run_kernel("Einsum", {a, a}, 1, {attr_str("equation", "ij,jk->ik")}, 12);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  r = run_kernel("Einsum", {a}, 1, {attr_str("equation", "ijk->i")}, 12);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
}

TEST(ReduceDet, TwoByTwoAndBatched) {
  auto r = run_kernel("Det", {make_tensor<float>({2, 2}, {2, 1, 1, 3})}, 1, {}, 11);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.outputs[0].tensor().rank(), 0u);
  expect_near(to_vector<float>(r.outputs[0].tensor()), {5});
  auto b = run_kernel("Det", {make_tensor<float>({2, 3, 3}, {0, 2, 1, 1, 0, 3, 4, 1, 0, 1, 2, 3, 2, 4, 6, 0, 1, 1})},
                      1, {}, 11);
  ASSERT_TRUE(b.status.ok());
  expect_near(to_vector<float>(b.outputs[0].tensor()), {25, 0});
}

TEST(ReduceDet, NotSquare) {
  auto r = run_kernel("Det", {make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6})}, 1, {}, 11);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sy

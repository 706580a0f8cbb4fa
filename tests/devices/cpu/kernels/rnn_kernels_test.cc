// Unit tests for the CPU RNN, GRU and LSTM kernels (rnn_kernels.cc); the
// ONNX reference cases for them run in nn_test.cc.
#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/devices/kernel_test_util.h"

namespace sy {
namespace {

using testing::attr_float;
using testing::attr_floats;
using testing::attr_int;
using testing::attr_string;
using testing::attr_strings;
using testing::expect_near;
using testing::make_tensor;
using testing::run_kernel;
using testing::to_vector;

TEST(Nn, RNN_DefaultTanh) {
  auto r = run_kernel("RNN", {make_tensor<float>({2, 1, 1}, {1, 2}), make_tensor<float>({1, 1, 1}, {0.5f}),
                              make_tensor<float>({1, 1, 1}, {0.5f})},
                      2, {attr_int("hidden_size", 1)});
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  expect_near(to_vector<float>(r.outputs[0].tensor()), {0.4621172f, 0.8428861f});
  expect_near(to_vector<float>(r.outputs[1].tensor()), {0.8428861f});
}

TEST(Nn, RNN_SequenceLensReverse) {
  // Batch 1 has length 1, so its step-1 input (99) is never read.
  auto X = make_tensor<float>({2, 2, 1}, {1, 1, 2, 99});
  auto W = make_tensor<float>({1, 1, 1}, {0.5f});
  auto R = make_tensor<float>({1, 1, 1}, {0.5f});
  auto lens = make_tensor<int32_t>({2}, {2, 1});
  auto f = run_kernel("RNN", {X, W, R, RuntimeValue(), lens}, 2, {attr_int("hidden_size", 1)});
  ASSERT_TRUE(f.status.ok()) << f.status.to_string();
  expect_near(to_vector<float>(f.outputs[0].tensor()), {0.4621172f, 0.4621172f, 0.8428861f, 0});
  expect_near(to_vector<float>(f.outputs[1].tensor()), {0.8428861f, 0.4621172f});
  auto rv = run_kernel("RNN", {X, W, R, RuntimeValue(), lens}, 2, {attr_int("hidden_size", 1), attr_string("direction", "reverse")});
  ASSERT_TRUE(rv.status.ok());
  expect_near(to_vector<float>(rv.outputs[0].tensor()), {0.7068184f, 0.4621172f, 0.7615942f, 0});
  expect_near(to_vector<float>(rv.outputs[1].tensor()), {0.7068184f, 0.4621172f});
  auto bad = run_kernel("RNN", {X, W, R, RuntimeValue(), make_tensor<int32_t>({2}, {3, 1})}, 2, {attr_int("hidden_size", 1)});
  EXPECT_EQ(bad.status.code(), StatusCode::kInvalidArgument);
}

TEST(Nn, GRU_LinearBeforeReset) {
  auto X = make_tensor<float>({2, 1, 1}, {1.f, -0.5f});
  auto W = make_tensor<float>({1, 6, 1}, {0.1f, 0.2f, 0.3f, -0.1f, 0.5f, 0.4f});
  std::vector<float> rv(12), bv(12);
  for (int i = 0; i < 12; ++i) {
    rv[i] = i * 0.05f - 0.2f;
    bv[i] = i * 0.03f;
  }
  auto R = make_tensor<float>({1, 6, 2}, rv);
  auto B = make_tensor<float>({1, 12}, bv);
  auto a = run_kernel("GRU", {X, W, R, B}, 2, {attr_int("hidden_size", 2), attr_int("linear_before_reset", 1)});
  ASSERT_TRUE(a.status.ok()) << a.status.to_string();
  expect_near(to_vector<float>(a.outputs[0].tensor()), {0.2891034f, 0.2455913f, 0.1943954f, 0.2497417f});
  auto b = run_kernel("GRU", {X, W, R, B}, 2, {attr_int("hidden_size", 2)});
  ASSERT_TRUE(b.status.ok());
  expect_near(to_vector<float>(b.outputs[0].tensor()), {0.3124653f, 0.2767334f, 0.2775446f, 0.322048f});
  expect_near(to_vector<float>(b.outputs[1].tensor()), {0.2775446f, 0.322048f});
}

// A hidden_size W cannot hold (here near INT64_MAX, where G * H overflowed:
// fuzzing seed 1132) is a clear error.
TEST(Nn, GRU_HiddenSizeBeyondW_IsAnError) {
  auto X = make_tensor<float>({2, 1, 1}, {1.f, -0.5f});
  auto W = make_tensor<float>({1, 6, 1}, std::vector<float>(6, 0.1f));
  auto R = make_tensor<float>({1, 6, 2}, std::vector<float>(12, 0.1f));
  for (int64_t h : {int64_t{3}, std::numeric_limits<int64_t>::max()}) {
    auto r = run_kernel("GRU", {X, W, R}, 2, {attr_int("hidden_size", h)});
    EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument) << h;
  }
}

TEST(Nn, LSTM_BidirectionalPeepholes) {
  auto X = make_tensor<float>({2, 2, 1}, {1.f, 0.5f, -1.f, 2.f});
  auto W = make_tensor<float>({2, 4, 1}, {0.1f, 0.2f, 0.3f, 0.4f, -0.1f, 0.2f, -0.3f, 0.4f});
  auto R = make_tensor<float>({2, 4, 1}, {0.5f, 0.1f, -0.2f, 0.3f, 0.2f, 0.2f, 0.2f, 0.2f});
  std::vector<float> bv(16, 0.f);
  bv[0] = bv[8] = 0.1f;
  bv[7] = bv[15] = -0.1f;
  auto B = make_tensor<float>({2, 8}, bv);
  auto h0 = make_tensor<float>({2, 2, 1}, {0, 0, 0, 0});
  auto c0 = make_tensor<float>({2, 2, 1}, {0.5f, 0.5f, 0.5f, 0.5f});
  auto P = make_tensor<float>({2, 3}, {0.1f, 0.2f, 0.3f, -0.1f, -0.2f, -0.3f});
  auto r = run_kernel("LSTM", {X, W, R, B, RuntimeValue(), h0, c0, P}, 3,
                      {attr_int("hidden_size", 1), attr_string("direction", "bidirectional")});
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  expect_near(to_vector<float>(r.outputs[0].tensor()),
              {0.2506357f, 0.1784712f, 0.0834992f, 0.1378263f, -0.0034803f, 0.3442885f, 0.0091433f, 0.238815f});
  expect_near(to_vector<float>(r.outputs[1].tensor()), {-0.0034803f, 0.3442885f, 0.0834992f, 0.1378263f});
  expect_near(to_vector<float>(r.outputs[2].tensor()), {-0.0076323f, 0.6111101f, 0.1551202f, 0.2696599f});
  auto bad = run_kernel("LSTM", {X, W, R, make_tensor<float>({2, 4}, std::vector<float>(8))}, 3,
                        {attr_int("hidden_size", 1), attr_string("direction", "bidirectional")});
  EXPECT_EQ(bad.status.code(), StatusCode::kInvalidArgument);
}

// Clip, input_forget, sequence_lens, initial states, peepholes and
// non-default activations (a scalar loop; the defaults go through
// vector_math), in float and in double, against ONNX Runtime 1.31's outputs
// for the same inputs. Tensor values: ((k * 7) % 13) / 6 - 1 for element k,
// times a scale.
TEST(Nn, Recurrent_AttributesMatchOnnxRuntime) {
  auto vals = [](int64_t n, double scale) {
    std::vector<double> v(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) v[static_cast<size_t>(k)] = ((k * 7) % 13 / 6.0 - 1) * scale;
    return v;
  };
  const int64_t S = 3, B = 2, I = 2, H = 3;
  const Tensor lens = make_tensor<int32_t>({B}, {3, 2});
  for (bool dbl : {false, true}) {
    SCOPED_TRACE(dbl ? "double" : "float");
    auto t = [&](const Dims& d, double scale) {
      const std::vector<double> v = vals(d.numel(), scale);
      return dbl ? make_tensor<double>(d, v) : make_tensor<float>(d, std::vector<float>(v.begin(), v.end()));
    };
    auto y = [&](const testing::KernelRun& r, size_t i) {
      return dbl ? [&] {
        const std::vector<double> d = to_vector<double>(r.outputs[i].tensor());
        return std::vector<float>(d.begin(), d.end());
      }() : to_vector<float>(r.outputs[i].tensor());
    };
    const Tensor X = t({S, B, I}, 2), h0 = t({1, B, H}, 0.3);
    auto lstm = run_kernel("LSTM", {X, t({1, 4 * H, I}, 1), t({1, 4 * H, H}, -0.5), t({1, 8 * H}, 0.5), lens, h0,
                                    t({1, B, H}, -1), t({1, 3 * H}, 1)},
                           3, {attr_int("hidden_size", H), attr_float("clip", 0.7f), attr_int("input_forget", 1)});
    ASSERT_TRUE(lstm.status.ok()) << lstm.status.to_string();
    expect_near(y(lstm, 0), {0.05299112f, -0.2869048f, -0.003639666f, -0.3163159f, -0.1206877f, -0.3442278f,
                             -0.2408821f, -0.3375254f, -0.2572306f, -0.3465731f, -0.2897837f, -0.2811911f,
                             -0.3218296f, -0.3527328f, -0.2070449f, 0, 0, 0});
    expect_near(y(lstm, 2), {-0.5251245f, -0.5872222f, -0.3203911f, -0.5745271f, -0.4644277f, -0.448696f});
    lstm = run_kernel("LSTM", {X, t({1, 4 * H, I}, 1), t({1, 4 * H, H}, -0.5), t({1, 8 * H}, 0.5), lens, h0,
                               t({1, B, H}, -1), t({1, 3 * H}, 1)},
                      3, {attr_int("hidden_size", H), attr_float("clip", 0.7f)});
    ASSERT_TRUE(lstm.status.ok()) << lstm.status.to_string();
    expect_near(y(lstm, 0), {-0.004400491f, -0.2869048f, -0.04432747f, -0.3192171f, -0.06829942f, -0.3471886f,
                             -0.2573091f, -0.3375254f, -0.2703722f, -0.3474815f, -0.2752095f, -0.2789541f,
                             -0.3243569f, -0.3466679f, -0.207624f, 0, 0, 0});
    const Tensor W = t({1, 3 * H, I}, 1), R = t({1, 3 * H, H}, -0.5), Bias = t({1, 6 * H}, 0.5);
    auto gru = run_kernel("GRU", {X, W, R, Bias, lens, h0}, 2, {attr_int("hidden_size", H), attr_float("clip", 0.6f)});
    ASSERT_TRUE(gru.status.ok()) << gru.status.to_string();
    expect_near(y(gru, 0), {-0.3839971f, -0.02671983f, -0.3517143f, -0.1257345f, -0.2223471f, -0.09345172f,
                            -0.4382303f, -0.207552f, -0.4173867f, -0.2714815f, -0.33386f, -0.2506379f, -0.4758787f,
                            -0.3243074f, -0.4597885f, 0, 0, 0});
    auto lbr = run_kernel("GRU", {X, W, R, Bias, lens, h0}, 2,
                          {attr_int("hidden_size", H), attr_int("linear_before_reset", 1),
                           attr_strings("activations", {"HardSigmoid", "Relu"}), attr_floats("activation_alpha", {0.3f}),
                           attr_floats("activation_beta", {0.4f})});
    ASSERT_TRUE(lbr.status.ok()) << lbr.status.to_string();
    expect_near(y(lbr, 0), {-0.27425f, 0.04860417f, -0.20875f, 0.09470835f, -0.1694167f, 0.134f, -0.2074849f,
                            0.04216716f, -0.1682108f, 0.07357497f, -0.1273346f, 0.1146698f, -0.1255553f, 0.03206981f,
                            -0.1312288f, 0, 0, 0});
  }
}

// Big enough that the batch rows go in shares, one a core, each running
// its whole sequence (hidden 96), or that R's panels go in shares every
// step (LSTM with hidden 192, whose R passes 512 KiB): under four threads
// the result must be the one thread's, bit for bit, and close to double's
// (float packs R once, PackedGemmNT). Rows of different lengths, both
// directions, initial states and biases.
TEST(Nn, Recurrent_SharesOverCoresMatchOneCoreAndDouble) {
  const int64_t S = 9, B = 6, I = 16;
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> value(-0.5, 0.5);
  auto vals = [&](int64_t n) {
    std::vector<double> v(static_cast<size_t>(n));
    for (double& x : v) x = value(rng);
    return v;
  };
  // A share's first row is never its longest, whether the rows go in two
  // shares or in four.
  const Tensor lens = make_tensor<int32_t>({B}, {2, 9, 1, 8, 0, 7});
  tbb::task_arena one(1), four(4);
  struct Case {
    const char* op;
    int lbr;  // GRU's linear_before_reset
    int64_t H;
  };
  for (const Case& c :
       {Case{"LSTM", 0, 96}, Case{"LSTM", 0, 192}, Case{"GRU", 0, 96}, Case{"GRU", 1, 96}, Case{"RNN", 0, 96}}) {
    const int64_t H = c.H;
    const std::string name = c.op;
    SCOPED_TRACE(name + (c.lbr ? " linear_before_reset" : "") + " hidden " + std::to_string(H));
    const int64_t G = name == "LSTM" ? 4 : name == "GRU" ? 3 : 1;
    const std::vector<double> x = vals(S * B * I), w = vals(2 * G * H * I), r = vals(2 * G * H * H),
                              bias = vals(2 * 2 * G * H), h0 = vals(2 * B * H), c0 = vals(2 * B * H);
    std::vector<Attribute> attrs = {attr_int("hidden_size", H), attr_string("direction", "bidirectional")};
    if (c.lbr) attrs.push_back(attr_int("linear_before_reset", 1));
    auto inputs = [&](auto tag) {
      using T = decltype(tag);
      auto t = [](const Dims& d, const std::vector<double>& v) {
        return make_tensor<T>(d, std::vector<T>(v.begin(), v.end()));
      };
      std::vector<RuntimeValue> in = {
          t({S, B, I}, x), t({2, G * H, I}, w), t({2, G * H, H}, r), t({2, 2 * G * H}, bias), lens, t({2, B, H}, h0)};
      if (G == 4) in.push_back(t({2, B, H}, c0));
      return in;
    };
    const size_t outs = G == 4 ? 3 : 2;
    testing::KernelRun f1, f4, d;
    one.execute([&] {
      f1 = run_kernel(c.op, inputs(float{}), outs, attrs);
      d = run_kernel(c.op, inputs(double{}), outs, attrs);
    });
    four.execute([&] { f4 = run_kernel(c.op, inputs(float{}), outs, attrs); });
    ASSERT_TRUE(f1.status.ok()) << f1.status.to_string();
    ASSERT_TRUE(f4.status.ok()) << f4.status.to_string();
    ASSERT_TRUE(d.status.ok()) << d.status.to_string();
    for (size_t o = 0; o < outs; ++o) {
      const std::vector<float> got = to_vector<float>(f4.outputs[o].tensor());
      EXPECT_EQ(got, to_vector<float>(f1.outputs[o].tensor())) << "output " << o;
      const std::vector<double> want = to_vector<double>(d.outputs[o].tensor());
      ASSERT_EQ(got.size(), want.size()) << "output " << o;
      for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 2e-5) << "output " << o << " at " << i;
    }
  }
}

}  // namespace
}  // namespace sy

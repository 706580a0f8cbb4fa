// BlockedConv against the generic direct loop (Conv in double), across
// geometries and arenas of 1 to 4 threads, so that each way of splitting
// runs: by images, by channels with a short last part, one part; and each
// way of reordering: planar input for a few channels, channels-last
// transposes, oneDNN's channel blocks.
#include "devices/cpu/kernels/blocked_conv.h"

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <vector>

#include "tests/devices/kernel_test_util.h"

namespace sy::nn {
namespace {

using testing::attr_int;
using testing::attr_ints;
using testing::make_tensor;
using testing::run_kernel;
using testing::to_vector;

struct Case {
  Dims x, w;
  std::vector<int64_t> pads, strides, dilations;
};

std::vector<Attribute> attrs_of(const Case& c) {
  return {attr_ints("pads", c.pads), attr_ints("strides", c.strides), attr_ints("dilations", c.dilations)};
}

// Values that differ per element and per `seed`, exact in float.
std::vector<float> values(int64_t n, int seed) {
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(static_cast<int64_t>((i + seed) * 37 % 23) - 11) / 8;
  return v;
}

// Conv in double through the built-in kernel: its generic direct loop.
std::vector<float> reference(const Case& c, const std::vector<float>& x, const std::vector<float>& w,
                             const std::vector<float>* b) {
  std::vector<RuntimeValue> in = {make_tensor<double>(c.x, std::vector<double>(x.begin(), x.end())),
                                  make_tensor<double>(c.w, std::vector<double>(w.begin(), w.end()))};
  if (b) in.push_back(make_tensor<double>({c.w[0]}, std::vector<double>(b->begin(), b->end())));
  auto r = run_kernel("Conv", in, 1, attrs_of(c));
  EXPECT_TRUE(r.status.ok()) << r.status.to_string();
  if (!r.status.ok()) return {};
  const std::vector<double> y = to_vector<double>(r.outputs[0].tensor());
  return {y.begin(), y.end()};
}

// Runs `conv` on c's shapes; false if it declined.
bool run_blocked(const BlockedConv& conv, const Case& c, const std::vector<float>& x, const std::vector<float>& w,
                 const std::vector<float>* b, std::vector<float>* y, const ConvActivation& act = {}) {
  Node node;
  node.op_type = "Conv";
  node.attributes = attrs_of(c);
  WindowAttrs a;
  EXPECT_TRUE(a.parse(node).ok());
  const Tensor xt = make_tensor<float>(c.x, x), wt = make_tensor<float>(c.w, w);
  auto s = conv_shape(a, 1, xt, wt, "Conv");
  EXPECT_TRUE(s.ok()) << s.status().to_string();
  if (!s.ok()) return false;
  y->assign(static_cast<size_t>(s->out.numel()), -999.f);
  return conv.run(x.data(), w.data(), b ? b->data() : nullptr, nullptr, y->data(), *s, act);
}

void expect_close(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-3 * (1 + std::abs(want[i]))) << "at " << i;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {{1, 16, 9, 11}, {24, 16, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}},  // channels 16 + 8
      {{1, 3, 20, 20}, {8, 3, 7, 7}, {3, 3, 3, 3}, {2, 2}, {1, 1}},    // 3 input channels, stride 2
      {{2, 8, 10, 10}, {40, 8, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}},   // 2 images
      {{3, 5, 7, 6}, {8, 5, 3, 3}, {1, 0, 2, 1}, {1, 1}, {2, 2}},      // 3 images, asymmetric pads, dilation
      {{1, 6, 30}, {20, 6, 5}, {2, 1}, {3}, {1}},                      // 1-D
      {{1, 4, 5, 6, 7}, {18, 4, 3, 3, 3}, {1, 1, 1, 1, 1, 1}, {1, 1, 1}, {1, 1, 1}},    // 3-D
      {{1, 16, 30}, {20, 16, 3}, {1, 1}, {1}, {1}},                                     // 1-D, 16 channels
      {{2, 32, 4, 5, 6}, {18, 32, 3, 3, 3}, {1, 1, 1, 1, 1, 1}, {1, 1, 1}, {1, 1, 1}},  // 3-D, 32 channels
      {{1, 40, 6, 6}, {64, 40, 1, 1}, {0, 0, 0, 0}, {2, 2}, {1, 1}},                    // 1x1, stride 2
      // One-pixel images, whose channels-last and planar layouts are the
      // same bytes (oneDNN then writes y in place; taking that for a
      // transpose crashed on a null buffer, found by sy_model_fuzz).
      {{1, 16, 1, 1}, {16, 16, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}},
      {{2, 32, 1, 1}, {24, 32, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}},
  };
  return all;
}

TEST(BlockedConv, MatchesDirectLoop_AcrossSplits) {
  for (int threads : {1, 2, 3, 4}) {
    tbb::task_arena arena(threads);
    for (const Case& c : cases())
      for (bool bias : {true, false}) {
        SCOPED_TRACE(c.x.to_string() + " threads " + std::to_string(threads) + (bias ? " bias" : ""));
        const std::vector<float> x = values(c.x.numel(), 1), w = values(c.w.numel(), 2), b = values(c.w[0], 3);
        const std::vector<float> want = reference(c, x, w, bias ? &b : nullptr);
        BlockedConv conv;
        std::vector<float> got;
        bool ran = false;
        arena.execute([&] { ran = run_blocked(conv, c, x, w, bias ? &b : nullptr, &got); });
        ASSERT_TRUE(ran);
        expect_close(got, want);
      }
  }
}

// FusedConv's clamp, applied by whichever way the output comes back to
// planar order: transposed from channels-last, reordered by oneDNN from
// its channel blocks (a few input channels), or written in place.
TEST(BlockedConv, Activation_ClampsEveryPath) {
  ConvActivation act;
  act.on = true;
  act.lo = -0.5f;
  act.hi = 0.75f;
  for (int threads : {1, 2, 3}) {
    tbb::task_arena arena(threads);
    for (const Case& c : cases()) {
      SCOPED_TRACE(c.x.to_string() + " threads " + std::to_string(threads));
      const std::vector<float> x = values(c.x.numel(), 1), w = values(c.w.numel(), 2), b = values(c.w[0], 3);
      std::vector<float> want = reference(c, x, w, &b);
      for (float& v : want) v = std::clamp(v, act.lo, act.hi);
      BlockedConv conv;
      std::vector<float> got;
      bool ran = false;
      arena.execute([&] { ran = run_blocked(conv, c, x, w, &b, &got, act); });
      ASSERT_TRUE(ran);
      expect_close(got, want);
    }
  }
}

// The weights are reordered on the first call and kept: later calls with
// new inputs, and with inputs of another size, still match.
TEST(BlockedConv, LaterCalls_ReuseTheWeightsOnNewInputs) {
  tbb::task_arena arena(2);
  const Case small = {{1, 16, 9, 11}, {24, 16, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}};
  Case batch = small;
  batch.x = {3, 16, 12, 5};
  const std::vector<float> w = values(small.w.numel(), 2), b = values(24, 3);
  BlockedConv conv;
  int call = 0;
  for (const Case* c : std::vector<const Case*>{&small, &small, &batch, &small, &batch}) {
    SCOPED_TRACE(call);
    const std::vector<float> x = values(c->x.numel(), 10 + call++);
    std::vector<float> got;
    bool ran = false;
    arena.execute([&] { ran = run_blocked(conv, *c, x, w, &b, &got); });
    ASSERT_TRUE(ran);
    expect_close(got, reference(*c, x, w, &b));
  }
}

// One kernel may run on devices of different core counts (cpu:0 and cpu:1
// of unequal shares), which split the output channels differently: parts
// that start at the same channel but span others must not be confused.
TEST(BlockedConv, OtherCoreCounts_GetTheirOwnParts) {
  const Case c = {{1, 16, 9, 11}, {40, 16, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}};
  const std::vector<float> x = values(c.x.numel(), 1), w = values(c.w.numel(), 2), b = values(40, 3);
  const std::vector<float> want = reference(c, x, w, &b);
  BlockedConv conv;
  for (int threads : {2, 3, 2, 1, 3}) {
    SCOPED_TRACE(threads);
    tbb::task_arena arena(threads);
    std::vector<float> got;
    bool ran = false;
    arena.execute([&] { ran = run_blocked(conv, c, x, w, &b, &got); });
    ASSERT_TRUE(ran);
    expect_close(got, want);
  }
}

// Through the Conv kernel: constant weights take the blocked path, others
// the paths that read them afresh; both agree.
TEST(BlockedConv, ConvKernel_ConstantAndFedWeightsAgree) {
  const Case c = {{1, 16, 9, 11}, {24, 16, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}};
  const Tensor x = make_tensor<float>(c.x, values(c.x.numel(), 1)), w = make_tensor<float>(c.w, values(c.w.numel(), 2));
  std::vector<std::vector<float>> results;
  for (uint64_t constant : {uint64_t{0}, uint64_t{0b10}}) {
    auto r = run_kernel("Conv", {x, w}, 1, attrs_of(c), 17, "", true, constant);
    ASSERT_TRUE(r.status.ok()) << r.status.to_string();
    results.push_back(to_vector<float>(r.outputs[0].tensor()));
  }
  expect_close(results[1], results[0]);
}

}  // namespace
}  // namespace sy::nn

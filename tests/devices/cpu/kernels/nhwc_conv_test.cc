// Unit tests for NhwcConv on the CPU (nhwc_conv.cc; ir/channels_last.h
// makes it at load time): on channels-last tensors it gives what FusedConv
// gives on the same tensors in NCHW, bit for bit, however its bands fall.
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ir/op_fusion.h"
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

// v of dims [a, b, c, d] with its axes in the order `perm` gives.
std::vector<float> permute(const std::vector<float>& v, const Dims& dims, const std::vector<int>& perm) {
  std::vector<float> out(v.size());
  Dims od;
  for (int p : perm) od.push_back(dims[p]);
  for (int64_t i = 0; i < od.numel(); ++i) {
    int64_t idx[4], rest = i;
    for (int k = 3; k >= 0; --k) idx[k] = rest % od[k], rest /= od[k];
    int64_t src[4];
    for (int k = 0; k < 4; ++k) src[perm[k]] = idx[k];
    out[static_cast<size_t>(i)] =
        v[static_cast<size_t>(((src[0] * dims[1] + src[1]) * dims[2] + src[2]) * dims[3] + src[3])];
  }
  return out;
}
const std::vector<int> kToNhwc = {0, 2, 3, 1}, kToNchw = {0, 3, 1, 2};

struct Case {
  const char* what;
  Dims x, w;  // x NCHW
  int64_t group = 1;
  std::vector<int64_t> pads = {1, 1, 1, 1}, strides = {1, 1}, dilations = {1, 1};
  std::string activation = {};  // "", "Relu" or "Clip" (-2.5, 3)
  bool residual = false;
  float x_scale = 0.5f;  // 0x1p118f: past the bound under which post-ops are safe
  bool nan = false;      // a NaN in channel 1 of X
};

// Runs c as FusedConv on NCHW tensors and as NhwcConv on the same tensors
// transposed, in arenas of 1 to 3 threads and with W constant or not, and
// expects the same bits (a NaN where FusedConv has one).
void expect_same_as_fused_conv(const Case& c) {
  SCOPED_TRACE(c.what);
  std::vector<float> x = exact_pattern(c.x.numel(), 37, 23, c.x_scale);
  if (c.nan) x[static_cast<size_t>(c.x[2] * c.x[3] + 2 * c.x[3] + 1)] = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> w = exact_pattern(c.w.numel(), 11, 7, 0.25f), b = exact_pattern(c.w[0], 5, 9, 0.5f);
  std::vector<Attribute> attrs = {attr_int("group", c.group), attr_ints("pads", c.pads),
                                  attr_ints("strides", c.strides), attr_ints("dilations", c.dilations)};
  if (!c.activation.empty()) attrs.push_back(attr_string("activation", c.activation));
  if (c.activation == "Clip") attrs.push_back(attr_floats("activation_params", {-2.5f, 3}));
  const Tensor xt = make_tensor<float>(c.x, x), wt = make_tensor<float>(c.w, w), bt = make_tensor<float>({c.w[0]}, b);
  // The output's shape, from a first run without the residual.
  testing::KernelRun plain = run_kernel(kFusedConv, {xt, wt, bt}, 1, attrs, 1, kSwitchyardDomain, true, 0b10);
  ASSERT_TRUE(plain.status.ok()) << plain.status.to_string();
  const Dims out = plain.outputs[0].tensor().dims();
  const std::vector<float> z = exact_pattern(out.numel(), 13, 17, 0.5f);
  std::vector<RuntimeValue> nchw = {xt, wt, bt},
                            nhwc = {make_tensor<float>({c.x[0], c.x[2], c.x[3], c.x[1]}, permute(x, c.x, kToNhwc)), wt,
                                    bt};
  if (c.residual) {
    nchw.emplace_back(make_tensor<float>(out, z));
    nhwc.emplace_back(make_tensor<float>({out[0], out[2], out[3], out[1]}, permute(z, out, kToNhwc)));
  }
  testing::KernelRun want = run_kernel(kFusedConv, nchw, 1, attrs, 1, kSwitchyardDomain, true, 0b10);
  ASSERT_TRUE(want.status.ok()) << want.status.to_string();
  const std::vector<float> expected = to_vector<float>(want.outputs[0].tensor());
  int nans = 0;
  for (float v : expected) nans += std::isnan(v);
  if (c.nan) {
    EXPECT_GT(nans, 0);
  }
  // With Z given up, Y is written over it: a fresh copy of Z each time.
  const std::vector<bool> donations = c.residual ? std::vector<bool>{false, true} : std::vector<bool>{false};
  for (int threads : {1, 2, 3})
    for (uint64_t constant : {uint64_t{0b10}, uint64_t{0}})
      for (bool donate : donations) {
        SCOPED_TRACE(std::to_string(threads) + " threads, weights " + (constant ? "constant" : "fed") +
                     (donate ? ", Z donated" : ""));
        if (c.residual) nhwc[3] = make_tensor<float>({out[0], out[2], out[3], out[1]}, permute(z, out, kToNhwc));
        testing::KernelRun got;
        tbb::task_arena(threads).execute([&] {
          got = run_kernel(kNhwcConv, nhwc, 1, attrs, 1, kSwitchyardDomain, true, constant, donate ? 0b1000 : 0);
        });
        ASSERT_TRUE(got.status.ok()) << got.status.to_string();
        const Tensor& y = got.outputs[0].tensor();
        ASSERT_EQ(y.dims(), (Dims{out[0], out[2], out[3], out[1]}));
        EXPECT_EQ(y.raw() == nhwc.back().tensor().raw(), donate);
        const std::vector<float> back = permute(to_vector<float>(y), y.dims(), kToNchw);
        for (size_t i = 0; i < back.size(); ++i) {
          if (std::isnan(expected[i])) {
            EXPECT_TRUE(std::isnan(back[i])) << i;
          } else {
            ASSERT_EQ(back[i], expected[i]) << i;
          }
        }
      }
}

TEST(NhwcConv, MatchesFusedConvBitForBit) {
  const std::vector<Case> cases = {
      {"3x3", {1, 8, 9, 9}, {20, 8, 3, 3}},
      {"3x3, Clip, residual", {1, 16, 10, 7}, {16, 16, 3, 3}, 1, {1, 1, 1, 1}, {1, 1}, {1, 1}, "Clip", true},
      {"3x3/2, three images, Relu", {3, 8, 11, 9}, {24, 8, 3, 3}, 1, {1, 1, 1, 1}, {2, 2}, {1, 1}, "Relu"},
      {"1x1, two images, residual", {2, 24, 5, 6}, {40, 24, 1, 1}, 1, {0, 0, 0, 0}, {1, 1}, {1, 1}, "", true},
      {"depthwise 3x3/2, Clip", {1, 20, 9, 12}, {20, 1, 3, 3}, 20, {1, 1, 1, 1}, {2, 2}, {1, 1}, "Clip"},
      {"depthwise 5x5, dilated", {2, 16, 12, 12}, {16, 1, 5, 5}, 16, {4, 4, 4, 4}, {1, 1}, {2, 2}},
      {"uneven pads", {1, 8, 7, 8}, {8, 8, 3, 3}, 1, {0, 2, 2, 1}, {1, 2}},
      {"one row", {1, 8, 1, 9}, {8, 8, 3, 3}},
      {"rows of pads only", {1, 8, 1, 5}, {8, 8, 1, 1}, 1, {3, 0, 3, 0}},
      // Rows or columns whose window is wholly in the pads, where oneDNN's
      // post-ops go wrong: the residual and activation are added after.
      {"rows of pads only, Relu, residual", {1, 8, 1, 5}, {8, 8, 1, 1}, 1, {3, 0, 3, 0}, {1, 1}, {1, 1}, "Relu", true},
      {"rows of pads only, residual", {1, 8, 1, 5}, {8, 8, 1, 1}, 1, {3, 0, 3, 0}, {1, 1}, {1, 1}, "", true},
      {"columns of pads only, Clip, residual",
       {1, 8, 6, 2},
       {8, 8, 3, 3},
       1,
       {1, 3, 1, 3},
       {1, 1},
       {1, 1},
       "Clip",
       true},
      {"columns of pads only, residual", {1, 8, 6, 2}, {8, 8, 1, 1}, 1, {0, 3, 0, 3}, {1, 1}, {1, 1}, "", true},
      {"columns of pads only, Relu, residual",
       {2, 8, 3, 1},
       {8, 8, 1, 1},
       1,
       {0, 4, 0, 2},
       {1, 1},
       {1, 1},
       "Relu",
       true},
      {"columns of pads only past a stride, residual",
       {2, 11, 5, 2},
       {12, 11, 1, 2},
       1,
       {0, 2, 1, 0},
       {3, 3},
       {1, 1},
       "",
       true},
      {"no input channels, Relu, residual (the reference loop)",
       {1, 0, 4, 5},
       {8, 0, 3, 3},
       1,
       {1, 1, 1, 1},
       {1, 1},
       {1, 1},
       "Relu",
       true},
      {"dilated window past the pads, residual", {1, 8, 6, 6}, {8, 8, 3, 3}, 1, {5, 0, 5, 0}, {1, 1}, {2, 1}, "", true},
      {"NaN, Clip, residual", {1, 8, 9, 9}, {16, 8, 3, 3}, 1, {1, 1, 1, 1}, {1, 1}, {1, 1}, "Clip", true, 0.5f, true},
      {"NaN, residual, no activation (post-ops for every band)",
       {1, 8, 9, 9},
       {16, 8, 3, 3},
       1,
       {1, 1, 1, 1},
       {1, 1},
       {1, 1},
       "",
       true,
       0.5f,
       true},
      {"NaN, depthwise, Relu",
       {1, 16, 9, 9},
       {16, 1, 3, 3},
       16,
       {1, 1, 1, 1},
       {1, 1},
       {1, 1},
       "Relu",
       false,
       0.5f,
       true},
      // Weights of 4 MB or more, or of 64 KB or more over fewer rows than
      // cores: output channels split between the cores.
      {"channel split, Clip, residual",
       {1, 1464, 5, 6},
       {80, 1464, 3, 3},
       1,
       {1, 1, 1, 1},
       {1, 1},
       {1, 1},
       "Clip",
       true},
      {"channel split, a 1x1 image", {1, 512, 1, 1}, {48, 512, 1, 1}, 1, {0, 0, 0, 0}, {1, 1}, {1, 1}, "Relu"},
      {"channel split, three images, NaN, Relu, residual",
       {3, 1464, 4, 4},
       {80, 1464, 3, 3},
       1,
       {1, 1, 1, 1},
       {1, 1},
       {1, 1},
       "Relu",
       true,
       0.5f,
       true},
      // Sums beyond the bound (kSafe): the bands run without the post-ops.
      {"huge values, Clip, residual",
       {1, 8, 9, 9},
       {16, 8, 3, 3},
       1,
       {1, 1, 1, 1},
       {1, 1},
       {1, 1},
       "Clip",
       true,
       0x1p118f},
  };
  for (const Case& c : cases) expect_same_as_fused_conv(c);
}

// Random geometries from a fixed seed: pads up to the window's extent
// (rows and columns of pads only), strides, dilations, depthwise, two
// images, residuals, activations and NaNs, each against FusedConv bit for
// bit (in 1 to 3 threads, weights constant or fed, the residual donated or
// not). What found oneDNN's post-ops going wrong on rows of pads only.
TEST(NhwcConv, RandomGeometries_MatchFusedConvBitForBit) {
  std::mt19937 rng(20261129);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  const char* activations[] = {"", "Relu", "Clip"};
  int cases = 0;
  while (cases < 400) {
    const bool depthwise = pick(0, 3) == 0;
    const int64_t n = pick(1, 2), c = pick(1, 12), h = pick(1, 9), w = pick(1, 9), m = depthwise ? c : pick(1, 20);
    const int64_t kh = pick(1, 4), kw = pick(1, 4), dh = pick(1, 2), dw = pick(1, 2);
    const int64_t ext_h = (kh - 1) * dh + 1, ext_w = (kw - 1) * dw + 1;
    const std::vector<int64_t> pads = {pick(0, ext_h), pick(0, ext_w), pick(0, ext_h), pick(0, ext_w)};
    if (h + pads[0] + pads[2] < ext_h || w + pads[1] + pads[3] < ext_w) continue;  // no output
    Case cs;
    cs.x = {n, c, h, w};
    cs.w = {m, depthwise ? 1 : c, kh, kw};
    cs.group = depthwise ? c : 1;
    cs.pads = pads;
    cs.strides = {pick(1, 3), pick(1, 3)};
    cs.dilations = {dh, dw};
    cs.activation = activations[pick(0, 2)];
    cs.residual = pick(0, 1) == 1;
    // At channel 1, row 2, column 1; with unit strides and dilations some
    // window is sure to read it.
    const bool unit_steps = cs.strides == std::vector<int64_t>{1, 1} && dh == 1 && dw == 1;
    cs.nan = c >= 2 && h >= 3 && w >= 2 && unit_steps && pick(0, 2) == 0;
    const std::string what = "random case " + std::to_string(cases++) + ": x " + cs.x.to_string() + ", w " +
                             cs.w.to_string() + ", pads " + Dims(pads).to_string() + ", strides " +
                             Dims(cs.strides).to_string() + ", dilations " + Dims(cs.dilations).to_string() + ", '" +
                             cs.activation + "'" + (cs.residual ? ", residual" : "") + (cs.nan ? ", NaN" : "");
    cs.what = what.c_str();
    expect_same_as_fused_conv(cs);
  }
}

// With activation "HardSwish" (ChannelsLast folds it into NhwcConv): what
// FusedConv and then the HardSwish node give, within rounding (oneDNN's
// post-op rounds its own way); a NaN in X is kept, in the band that then
// runs without the post-ops.
TEST(NhwcConv, HardSwish_MatchesConvThenHardSwish) {
  for (bool nan : {false, true}) {
    SCOPED_TRACE(nan ? "NaN" : "numbers");
    const Dims xd{1, 8, 9, 10}, wd{16, 8, 3, 3};
    std::vector<float> x = exact_pattern(xd.numel(), 37, 23, 0.5f);
    if (nan) x[5] = std::numeric_limits<float>::quiet_NaN();
    const Tensor wt = make_tensor<float>(wd, exact_pattern(wd.numel(), 11, 7, 0.125f));
    const std::vector<Attribute> pads = {attr_ints("pads", {1, 1, 1, 1})};
    auto conv = run_kernel(kFusedConv, {make_tensor<float>(xd, x), wt}, 1, pads, 1, kSwitchyardDomain, true, 0b10);
    ASSERT_TRUE(conv.status.ok()) << conv.status.to_string();
    auto hs = run_kernel("HardSwish", {conv.outputs[0]}, 1, {}, 14);
    ASSERT_TRUE(hs.status.ok()) << hs.status.to_string();
    const std::vector<float> want = to_vector<float>(hs.outputs[0].tensor());
    std::vector<Attribute> attrs = pads;
    attrs.push_back(attr_string("activation", "HardSwish"));
    testing::KernelRun got;
    tbb::task_arena(2).execute([&] {
      got = run_kernel(kNhwcConv, {make_tensor<float>({1, 9, 10, 8}, permute(x, xd, kToNhwc)), wt}, 1, attrs, 1,
                       kSwitchyardDomain, true, 0b10);
    });
    ASSERT_TRUE(got.status.ok()) << got.status.to_string();
    const Tensor& y = got.outputs[0].tensor();
    const std::vector<float> back = permute(to_vector<float>(y), y.dims(), kToNchw);
    ASSERT_EQ(back.size(), want.size());
    int nans = 0;
    for (size_t i = 0; i < back.size(); ++i) {
      if (std::isnan(want[i])) {
        ++nans;
        EXPECT_TRUE(std::isnan(back[i])) << i;
      } else {
        ASSERT_NEAR(back[i], want[i], 1e-6f * std::max(1.f, std::fabs(want[i]))) << i;
      }
    }
    EXPECT_EQ(nans > 0, nan);
  }
}

TEST(NhwcConv, RejectsWhatItCannotRun) {
  const Tensor x = make_tensor<float>({1, 4, 4, 6}, std::vector<float>(96, 1.f));
  const Tensor w = make_tensor<float>({6, 3, 3, 3}, std::vector<float>(162, 1.f));
  auto r = run_kernel(kNhwcConv, {x, w}, 1, {attr_int("group", 2)}, 1, kSwitchyardDomain);
  EXPECT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message().find("depthwise"), std::string::npos) << r.status.message();
  const Tensor w5 = make_tensor<float>({6, 5, 3, 3}, std::vector<float>(270, 1.f));
  r = run_kernel(kNhwcConv, {x, w5}, 1, {}, 1, kSwitchyardDomain);
  EXPECT_NE(r.status.message().find("channel mismatch"), std::string::npos) << r.status.message();
  const Tensor z = make_tensor<float>({1, 6, 2, 2}, std::vector<float>(24, 1.f));
  const Tensor w6 = make_tensor<float>({6, 6, 3, 3}, std::vector<float>(324, 1.f));
  r = run_kernel(kNhwcConv, {x, w6, RuntimeValue(), z}, 1, {}, 1, kSwitchyardDomain);
  EXPECT_NE(r.status.message().find("residual Z"), std::string::npos) << r.status.message();
  const Tensor x3 = make_tensor<float>({4, 4, 6}, std::vector<float>(96, 1.f));
  r = run_kernel(kNhwcConv, {x3, w6}, 1, {}, 1, kSwitchyardDomain);
  EXPECT_NE(r.status.message().find("rank 4"), std::string::npos) << r.status.message();
  r = run_kernel(kNhwcConv, {x, w6}, 1, {attr_string("activation", "Bogus")}, 1, kSwitchyardDomain);
  EXPECT_NE(r.status.message().find("HardSwish; got 'Bogus'"), std::string::npos) << r.status.message();
}

}  // namespace
}  // namespace sy

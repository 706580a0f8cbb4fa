// Unit tests for NhwcMaxPool and NhwcGlobalAveragePool on the CPU
// (nhwc_pool.cc; ir/channels_last.h makes them at load time): on
// channels-last tensors they give what MaxPool and GlobalAveragePool give
// on the same tensors in NCHW.
#include <tbb/task_arena.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ir/op_fusion.h"
#include "tests/devices/kernel_test_util.h"

namespace sy {
namespace {

using testing::attr_int;
using testing::attr_ints;
using testing::attr_string;
using testing::make_tensor;
using testing::run_kernel;
using testing::to_vector;

// NCHW x ([n, c, h, w]) as NHWC, or back with `to_nchw`.
std::vector<float> transpose(const std::vector<float>& x, int64_t n, int64_t c, int64_t h, int64_t w, bool to_nchw) {
  std::vector<float> out(x.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < c; ++k)
      for (int64_t p = 0; p < h * w; ++p) {
        const size_t nchw = static_cast<size_t>((i * c + k) * h * w + p),
                     nhwc = static_cast<size_t>((i * h * w + p) * c + k);
        if (to_nchw)
          out[nchw] = x[nhwc];
        else
          out[nhwc] = x[nchw];
      }
  return out;
}

std::vector<float> values(int64_t count, bool nan) {
  std::vector<float> v(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) v[static_cast<size_t>(i)] = static_cast<float>((i * 37) % 101) / 8 - 6;
  if (nan) v[static_cast<size_t>(count / 3)] = std::numeric_limits<float>::quiet_NaN();
  return v;
}

// MaxPool's windows (pads, strides, dilations, ceil_mode, auto_pad) and a
// NaN, which wins over numbers in both layouts: the same values, bit for
// bit, on 1 to 3 threads.
TEST(NhwcPool, MaxPool_MatchesMaxPool) {
  struct Case {
    const char* what;
    Dims x;  // NCHW
    std::vector<Attribute> attrs;
    bool nan = false;
  };
  const std::vector<Case> cases = {
      {"3x3/2, pads 1 (ResNet's)",
       {1, 64, 12, 12},
       {attr_ints("kernel_shape", {3, 3}), attr_ints("strides", {2, 2}), attr_ints("pads", {1, 1, 1, 1})}},
      {"2x2/2, odd size, three images, a NaN",
       {3, 5, 7, 9},
       {attr_ints("kernel_shape", {2, 2}), attr_ints("strides", {2, 2})},
       true},
      {"ceil_mode, uneven pads",
       {2, 17, 8, 7},
       {attr_ints("kernel_shape", {3, 2}), attr_ints("strides", {2, 3}), attr_ints("pads", {0, 1, 2, 0}),
        attr_int("ceil_mode", 1)}},
      {"dilated, SAME_UPPER",
       {1, 3, 9, 9},
       {attr_ints("kernel_shape", {3, 3}), attr_ints("dilations", {2, 2}), attr_string("auto_pad", "SAME_UPPER")}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const std::vector<float> x = values(c.x.numel(), c.nan);
    auto want = run_kernel("MaxPool", {make_tensor<float>(c.x, x)}, 1, c.attrs, 12);
    ASSERT_TRUE(want.status.ok()) << want.status.to_string();
    const Tensor& ref = want.outputs[0].tensor();
    const std::vector<float> expected = to_vector<float>(ref);
    const Tensor xn =
        make_tensor<float>({c.x[0], c.x[2], c.x[3], c.x[1]}, transpose(x, c.x[0], c.x[1], c.x[2], c.x[3], false));
    for (int threads : {1, 2, 3}) {
      testing::KernelRun got;
      tbb::task_arena(threads).execute([&] { got = run_kernel(kNhwcMaxPool, {xn}, 1, c.attrs, 1, kSwitchyardDomain); });
      ASSERT_TRUE(got.status.ok()) << got.status.to_string();
      const Tensor& y = got.outputs[0].tensor();
      ASSERT_EQ(y.dims(), (Dims{ref.dim(0), ref.dim(2), ref.dim(3), ref.dim(1)}));
      const std::vector<float> back =
          transpose(to_vector<float>(y), ref.dim(0), ref.dim(1), ref.dim(2), ref.dim(3), true);
      int nans = 0;
      for (size_t i = 0; i < back.size(); ++i) {
        nans += std::isnan(expected[i]);
        if (std::isnan(expected[i])) {
          EXPECT_TRUE(std::isnan(back[i])) << i;
        } else {
          ASSERT_EQ(back[i], expected[i]) << i;
        }
      }
      if (c.nan) {
        EXPECT_GT(nans, 0);
      }
    }
  }
}

TEST(NhwcPool, GlobalAveragePool_MatchesGlobalAveragePool) {
  // The last two are large enough that their pixels split between the
  // cores (one block of 72 channels; three blocks of 672).
  for (const Dims& d :
       {Dims{1, 300, 7, 7}, Dims{3, 5, 4, 6}, Dims{2, 4, 0, 3}, Dims{1, 72, 28, 28}, Dims{1, 672, 14, 14}}) {
    const std::vector<float> x = values(d.numel(), false);
    auto want = run_kernel("GlobalAveragePool", {make_tensor<float>(d, x)}, 1);
    ASSERT_TRUE(want.status.ok()) << want.status.to_string();
    const std::vector<float> expected = to_vector<float>(want.outputs[0].tensor());
    for (int threads : {1, 2, 3}) {
      SCOPED_TRACE(d.to_string() + ", threads " + std::to_string(threads));
      tbb::task_arena arena(threads);
      arena.execute([&] {
        auto got =
            run_kernel(kNhwcGlobalAveragePool,
                       {make_tensor<float>({d[0], d[2], d[3], d[1]}, transpose(x, d[0], d[1], d[2], d[3], false))}, 1,
                       {}, 1, kSwitchyardDomain);
        ASSERT_TRUE(got.status.ok()) << got.status.to_string();
        ASSERT_EQ(got.outputs[0].tensor().dims(), (Dims{d[0], 1, 1, d[1]}));
        const std::vector<float> y = to_vector<float>(got.outputs[0].tensor());   // [N, 1, 1, C]: NCHW's order too
        for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], expected[i]) << i;  // eighths: exact sums
      });
    }
  }
}

TEST(NhwcPool, RejectsWhatItCannotRun) {
  const Tensor x3 = make_tensor<float>({4, 4, 6}, std::vector<float>(96, 1.f));
  auto r = run_kernel(kNhwcMaxPool, {x3}, 1, {attr_ints("kernel_shape", {2, 2})}, 1, kSwitchyardDomain);
  EXPECT_NE(r.status.message().find("[N, H, W, C]"), std::string::npos) << r.status.message();
  const Tensor x = make_tensor<float>({1, 4, 4, 6}, std::vector<float>(96, 1.f));
  r = run_kernel(kNhwcMaxPool, {x}, 1, {}, 1, kSwitchyardDomain);
  EXPECT_NE(r.status.message().find("kernel_shape"), std::string::npos) << r.status.message();
  r = run_kernel(kNhwcGlobalAveragePool, {x3}, 1, {}, 1, kSwitchyardDomain);
  EXPECT_FALSE(r.status.ok());
}

}  // namespace
}  // namespace sy

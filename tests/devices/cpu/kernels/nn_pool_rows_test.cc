// Unit tests for float pooling by rows (nn_pool_rows.cc), called directly:
// through the MaxPool and AveragePool kernels, oneDNN takes the shapes it
// has a JIT kernel for. The reference is the kernels' generic loop, which
// double tensors take.
#include "devices/cpu/kernels/nn_pool_rows.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/devices/kernel_test_util.h"

namespace sy {
namespace {

using testing::attr_int;
using testing::attr_ints;
using testing::make_tensor;
using testing::run_kernel;
using testing::to_vector;

struct Pool {
  std::vector<int64_t> kernel, strides, pads;
  bool ceil = false, max = true, include_pad = false;
};

// pool_float_rows() on x, or nothing when it declines.
std::vector<float> by_rows(const Dims& dims, const Pool& p, const std::vector<float>& x, bool* taken) {
  nn::WindowAttrs a;
  a.kernel_shape = p.kernel;
  a.strides = p.strides;
  a.pads = p.pads;
  a.ceil_mode = p.ceil;
  auto w = nn::resolve_window(a, dims, p.kernel, "test");
  EXPECT_TRUE(w.ok()) << w.status().to_string();
  if (!w.ok()) return {};
  Dims out{dims[0], dims[1]};
  for (int i = 0; i < w->nsp; ++i) out.push_back(w->out[nn::kMaxSpatial - w->nsp + i]);
  std::vector<float> y(static_cast<size_t>(out.numel()), -12345.f);
  *taken = nn::pool_float_rows(*w, p.max, p.include_pad, dims[0] * dims[1], x.data(), y.data());
  return y;
}

// The MaxPool or AveragePool kernel's generic loop, on x as double.
std::vector<double> by_loop(const Dims& dims, const Pool& p, const std::vector<float>& x) {
  const std::vector<Attribute> attrs = {attr_ints("kernel_shape", p.kernel), attr_ints("strides", p.strides),
                                        attr_ints("pads", p.pads), attr_int("ceil_mode", p.ceil),
                                        attr_int("count_include_pad", p.include_pad)};
  auto r = run_kernel(p.max ? "MaxPool" : "AveragePool",
                      {make_tensor<double>(dims, std::vector<double>(x.begin(), x.end()))}, 1, attrs);
  EXPECT_TRUE(r.status.ok()) << r.status.to_string();
  return r.status.ok() ? to_vector<double>(r.outputs[0].tensor()) : std::vector<double>();
}

// Every kernel size, stride (unit strides take their own path) and padding
// narrower than the kernel, with ceil_mode and count_include_pad, over one
// and two axes; planes of many rows cross the row blocks and tasks.
TEST(NnPoolRows, MatchTheGenericLoop) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-4.f, 4.f);
  int compared = 0;
  for (const Dims& dims : {Dims{2, 3, 7, 9}, Dims{1, 2, 5, 16}, Dims{3, 2, 11}, Dims{1, 1, 1, 6}, Dims{1, 3, 700, 29}}) {
    const int nsp = static_cast<int>(dims.rank()) - 2;
    std::vector<float> x(static_cast<size_t>(dims.numel()));
    for (float& v : x) v = value(rng);
    for (bool max : {true, false})
      for (int64_t k = 1; k <= 4; ++k)
        for (int64_t s = 1; s <= 3; ++s)
          for (int64_t sh = 1; sh <= 2; ++sh)
            for (int64_t pad = 0; pad < k; ++pad)
              for (int mode = 0; mode < 4; ++mode) {
                if (k > dims[dims.rank() - 1] || (nsp == 1 && sh > 1) || (dims.numel() > 10000 && (k + s + pad) % 3))
                  continue;
                // The last axis takes k, s and pad; the first of two a
                // window one row shorter where it fits, and stride sh.
                Pool p{std::vector<int64_t>(nsp, k), std::vector<int64_t>(nsp, s), std::vector<int64_t>(2 * nsp, 0),
                       (mode & 1) != 0, max, (mode >> 1) != 0};
                p.pads[nsp - 1] = pad;
                p.pads[2 * nsp - 1] = (pad + mode) % k;
                if (nsp == 2) {
                  p.kernel[0] = std::max<int64_t>(1, std::min(k - (mode & 1), dims[2]));
                  p.strides[0] = sh;
                  p.pads[0] = std::min<int64_t>(pad, p.kernel[0] - 1);
                  p.pads[2] = std::min<int64_t>((pad + 1) % k, p.kernel[0] - 1);
                }
                bool taken = false;
                const std::vector<float> got = by_rows(dims, p, x, &taken);
                ASSERT_TRUE(taken) << dims.to_string() << " k " << k;
                const std::vector<double> want = by_loop(dims, p, x);
                ASSERT_EQ(got.size(), want.size());
                for (size_t i = 0; i < got.size(); ++i)
                  ASSERT_NEAR(got[i], want[i], 1e-5)
                      << (max ? "max" : "avg") << " on " << dims.to_string() << ", k " << k << ", s " << sh << "x" << s
                      << ", pad " << pad << ", mode " << mode << ", output " << i;
                ++compared;
              }
  }
  EXPECT_GT(compared, 1000);
}

// Three spatial axes: each output depth's input planes reduced to one, then
// pooled as two axes; depth kernels, strides and pads, with ceil_mode and
// count_include_pad.
TEST(NnPoolRows, ThreeAxes_MatchTheGenericLoop) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> value(-4.f, 4.f);
  const Dims dims{2, 3, 7, 6, 9};
  std::vector<float> x(static_cast<size_t>(dims.numel()));
  for (float& v : x) v = value(rng);
  int compared = 0;
  for (bool max : {true, false})
    for (int64_t kd = 1; kd <= 3; ++kd)
      for (int64_t sd = 1; sd <= 2; ++sd)
        for (int64_t pd = 0; pd < kd; ++pd)
          for (int mode = 0; mode < 4; ++mode) {
            const Pool p{{kd, 2, 3}, {sd, 1, 2}, {pd, 1, 0, (pd + mode) % kd, 0, 2}, (mode & 1) != 0, max, (mode >> 1) != 0};
            bool taken = false;
            const std::vector<float> got = by_rows(dims, p, x, &taken);
            ASSERT_TRUE(taken);
            const std::vector<double> want = by_loop(dims, p, x);
            ASSERT_EQ(got.size(), want.size());
            for (size_t i = 0; i < got.size(); ++i)
              ASSERT_NEAR(got[i], want[i], 1e-5) << (max ? "max" : "avg") << ", kd " << kd << ", sd " << sd << ", pd "
                                                 << pd << ", mode " << mode << ", output " << i;
            ++compared;
          }
  EXPECT_EQ(compared, 96);
}

// A window holding a NaN pools to NaN wherever the NaN lies in it, as with
// ONNX's reference (NumPy's max), with strides 1 and 2.
TEST(NnPoolRows, MaxPool_NaNInTheWindow_GivesNaN) {
  for (int64_t s : {1, 2})
    for (int at = 0; at < 12; ++at) {
      std::vector<float> x(12);
      for (int i = 0; i < 12; ++i) x[i] = static_cast<float>(i);
      x[at] = std::numeric_limits<float>::quiet_NaN();
      bool taken = false;
      const Pool p{{2, 2}, {s, s}, {0, 0, 0, 0}};
      const std::vector<float> y = by_rows(Dims{1, 1, 3, 4}, p, x, &taken);
      ASSERT_TRUE(taken);
      const std::vector<double> want = by_loop(Dims{1, 1, 3, 4}, p, x);
      ASSERT_EQ(y.size(), want.size());
      for (size_t i = 0; i < y.size(); ++i)
        EXPECT_EQ(std::isnan(y[i]), std::isnan(want[i])) << "stride " << s << ", NaN at " << at << ", output " << i;
      int nans = 0;
      for (float v : y) nans += std::isnan(v);
      if (s == 1 || at < 8) {  // stride 2 leaves row 2 out of every window
        EXPECT_GT(nans, 0) << "stride " << s << ", NaN at " << at;
      }
    }
}

// A stride far beyond the input leaves one output column; it must not size
// the buffers (the largest the kernels accept, 2^31 - 1, would ask for 8
// GB a row), and the one window is pooled as usual.
TEST(NnPoolRows, HugeStride_OneColumn_IsPooled) {
  const std::vector<float> x = {1, 5, 2, 0, 3, 4, 9, 7, 8, 6, 1, 2};
  for (bool max : {true, false}) {
    const Pool p{{2, 2}, {1, (int64_t{1} << 31) - 1}, {0, 0, 0, 0}, false, max};
    bool taken = false;
    const std::vector<float> got = by_rows(Dims{1, 1, 3, 4}, p, x, &taken);
    ASSERT_TRUE(taken);
    const std::vector<double> want = by_loop(Dims{1, 1, 3, 4}, p, x);
    ASSERT_EQ(got.size(), 2u);
    ASSERT_EQ(want.size(), 2u);
    for (size_t i = 0; i < 2; ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << (max ? "max" : "avg") << " row " << i;
  }
}

// What it does not take it leaves alone: dilation, on any axis, and
// padding as wide as the kernel.
TEST(NnPoolRows, Declines_DilationAndWidePadding) {
  const std::vector<float> x(64, 1.f);
  std::vector<float> y(64, -1.f);
  nn::WindowAttrs a;
  a.kernel_shape = {2, 2};
  a.dilations = {2, 1};
  auto dilated = nn::resolve_window(a, Dims{1, 1, 8, 8}, a.kernel_shape, "test");
  ASSERT_TRUE(dilated.ok());
  EXPECT_FALSE(nn::pool_float_rows(*dilated, true, false, 1, x.data(), y.data()));
  nn::WindowAttrs b;
  b.kernel_shape = {2, 2, 2};
  b.dilations = {2, 1, 1};
  auto depth = nn::resolve_window(b, Dims{1, 1, 4, 4, 4}, b.kernel_shape, "test");
  ASSERT_TRUE(depth.ok());
  EXPECT_FALSE(nn::pool_float_rows(*depth, true, false, 1, x.data(), y.data()));
  nn::WindowAttrs c;
  c.kernel_shape = {2, 2};
  c.pads = {2, 0, 0, 0};
  auto wide = nn::resolve_window(c, Dims{1, 1, 8, 8}, c.kernel_shape, "test");
  ASSERT_TRUE(wide.ok());
  EXPECT_FALSE(nn::pool_float_rows(*wide, false, true, 1, x.data(), y.data()));
  for (float v : y) ASSERT_EQ(v, -1.f);
}

}  // namespace
}  // namespace sy

// Unit tests for the CPU pooling kernels (nn_pool.cc). The ONNX reference
// cases for them run in nn_test.cc.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/devices/kernel_test_util.h"

namespace sy {
namespace {

using testing::attr_int;
using testing::attr_ints;
using testing::attr_string;
using testing::expect_near;
using testing::make_tensor;
using testing::run_kernel;
using testing::to_vector;

TEST(NnPool, MaxPool_IndicesStorageOrder) {
  auto x = make_tensor<float>({1, 1, 2, 3}, {1, 6, 3, 4, 5, 2});
  auto r = run_kernel("MaxPool", {x}, 2, {attr_ints("kernel_shape", {2, 2})});
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  expect_near(to_vector<float>(r.outputs[0].tensor()), {6, 6});
  EXPECT_EQ(to_vector<int64_t>(r.outputs[1].tensor()), (std::vector<int64_t>{1, 1}));
  auto c = run_kernel("MaxPool", {x}, 2, {attr_ints("kernel_shape", {2, 2}), attr_int("storage_order", 1)});
  ASSERT_TRUE(c.status.ok());
  EXPECT_EQ(to_vector<int64_t>(c.outputs[1].tensor()), (std::vector<int64_t>{2, 2}));
}

// Over three axes, column-major is d + h * D + w * D * H: the max of a
// [2, 2, 3] window at (1, 0, 2) is element 8 row-major and 9 column-major.
TEST(NnPool, MaxPool_IndicesStorageOrder_ThreeAxes) {
  std::vector<float> v(12, 0.f);
  v[1 * 6 + 0 * 3 + 2] = 7.f;
  auto x = make_tensor<float>({1, 1, 2, 2, 3}, v);
  for (int64_t order : {0, 1}) {
    auto r = run_kernel("MaxPool", {x}, 2, {attr_ints("kernel_shape", {2, 2, 3}), attr_int("storage_order", order)});
    ASSERT_TRUE(r.status.ok()) << r.status.to_string();
    EXPECT_EQ(to_vector<float>(r.outputs[0].tensor()), (std::vector<float>{7.f}));
    EXPECT_EQ(to_vector<int64_t>(r.outputs[1].tensor()), (std::vector<int64_t>{order ? 9 : 8})) << "order " << order;
  }
}

TEST(NnPool, MaxPool_CeilModeDilations) {
  auto x = make_tensor<float>({1, 1, 5}, {1, 5, 2, 4, 3});
  auto r = run_kernel("MaxPool", {x}, 1, {attr_ints("kernel_shape", {2}), attr_ints("strides", {2}), attr_int("ceil_mode", 1)});
  ASSERT_TRUE(r.status.ok());
  expect_near(to_vector<float>(r.outputs[0].tensor()), {5, 4, 3});
  auto d = run_kernel("MaxPool", {x}, 1, {attr_ints("kernel_shape", {2}), attr_ints("dilations", {2})});
  ASSERT_TRUE(d.status.ok());
  expect_near(to_vector<float>(d.outputs[0].tensor()), {2, 5, 3});
}

TEST(NnPool, AveragePool_CountIncludePad) {
  auto x = make_tensor<float>({1, 1, 3}, {3, 6, 9});
  auto r = run_kernel("AveragePool", {x}, 1, {attr_ints("kernel_shape", {2}), attr_ints("pads", {1, 1})});
  ASSERT_TRUE(r.status.ok());
  expect_near(to_vector<float>(r.outputs[0].tensor()), {3, 4.5f, 7.5f, 9});
  auto c = run_kernel("AveragePool", {x}, 1,
                      {attr_ints("kernel_shape", {2}), attr_ints("pads", {1, 1}), attr_int("count_include_pad", 1)});
  ASSERT_TRUE(c.status.ok());
  expect_near(to_vector<float>(c.outputs[0].tensor()), {1.5f, 4.5f, 7.5f, 4.5f});
}

TEST(NnPool, Pool_KernelLargerThanInputIsError) {
  auto x = make_tensor<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(run_kernel("MaxPool", {x}, 1, {attr_ints("kernel_shape", {3, 3})}).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(run_kernel("AveragePool", {x}, 1, {attr_ints("kernel_shape", {3})}).status.code(), StatusCode::kInvalidArgument);
}

// A pooling window far wider than its input (the fuzzer's 2^31, which the
// loops used to walk in full: a hang) visits only its overlap, and pads
// count as ONNX says.
TEST(NnPool, Pool_HugeWindow_VisitsOnlyTheInput) {
  constexpr int64_t kHuge = 2147483647;
  auto x = make_tensor<float>({1, 1, 2, 3}, {1, 2, 3, 4, 5, 6});
  auto r = run_kernel("MaxPool", {x}, 1, {attr_ints("kernel_shape", {1, kHuge}), attr_string("auto_pad", "SAME_UPPER")});
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.outputs[0].tensor().dims(), (Dims{1, 1, 2, 3}));
  EXPECT_EQ(to_vector<float>(r.outputs[0].tensor()), (std::vector<float>{3, 3, 3, 6, 6, 6}));
  // Explicit pads of 2 on each side of width 3, window 5: every window
  // holds all 3 inputs and 2 pads, so count_include_pad divides by 5.
  r = run_kernel("AveragePool", {x}, 1,
                 {attr_ints("kernel_shape", {1, 5}), attr_ints("pads", {0, 2, 0, 2}), attr_int("count_include_pad", 1),
                  attr_ints("strides", {1, 100})});
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  expect_near(to_vector<float>(r.outputs[0].tensor()), {6.f / 5, 15.f / 5});
  r = run_kernel("AveragePool", {x}, 1,
                 {attr_ints("kernel_shape", {1, kHuge}), attr_string("auto_pad", "SAME_LOWER"), attr_int("count_include_pad", 0)});
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  expect_near(to_vector<float>(r.outputs[0].tensor()), {2, 2, 2, 5, 5, 5});
}

TEST(NnPool, GlobalPools_AndLpPool) {
  auto x = make_tensor<float>({1, 2, 2}, {1, 3, -4, 2});
  auto a = run_kernel("GlobalAveragePool", {x}, 1);
  ASSERT_TRUE(a.status.ok());
  EXPECT_EQ(a.outputs[0].tensor().dims(), (Dims{1, 2, 1}));
  expect_near(to_vector<float>(a.outputs[0].tensor()), {2, -1});
  auto m = run_kernel("GlobalMaxPool", {x}, 1);
  expect_near(to_vector<float>(m.outputs[0].tensor()), {3, 2});
  auto lp = run_kernel("LpPool", {make_tensor<float>({1, 1, 2}, {3, -4})}, 1, {attr_ints("kernel_shape", {2})});
  ASSERT_TRUE(lp.status.ok());
  expect_near(to_vector<float>(lp.outputs[0].tensor()), {5});
}

TEST(NnPool, MaxUnpool_OutputShape) {
  auto x = make_tensor<float>({1, 1, 2}, {5, 7});
  auto i = make_tensor<int64_t>({1, 1, 2}, {1, 2});
  auto r = run_kernel("MaxUnpool", {x, i}, 1, {attr_ints("kernel_shape", {2}), attr_ints("strides", {2})});
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  expect_near(to_vector<float>(r.outputs[0].tensor()), {0, 5, 7, 0});
  auto bad = run_kernel("MaxUnpool", {x, make_tensor<int64_t>({1, 1, 2}, {1, 9})}, 1, {attr_ints("kernel_shape", {2}), attr_ints("strides", {2})});
  EXPECT_EQ(bad.status.code(), StatusCode::kOutOfRange);
}


// Float MaxPool and AveragePool take oneDNN where it has a JIT kernel and
// pool_float_rows() (tested alone in nn_pool_rows_test.cc) elsewhere;
// double always takes the generic loop over each window. Whichever path a
// float shape takes must give the generic loop's values.
TEST(NnPool, Float_MatchesTheGenericLoop) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-4.f, 4.f);
  int compared = 0;
  for (const Dims& dims : {Dims{2, 3, 7, 9}, Dims{1, 2, 5, 16}, Dims{3, 2, 11}, Dims{1, 1, 1, 6}}) {
    const int nsp = static_cast<int>(dims.rank()) - 2;
    std::vector<float> xf(static_cast<size_t>(dims.numel()));
    for (float& v : xf) v = value(rng);
    const std::vector<double> xd(xf.begin(), xf.end());
    const auto x32 = make_tensor<float>(dims, xf);
    const auto x64 = make_tensor<double>(dims, xd);
    for (const char* op : {"MaxPool", "AveragePool"})
      for (int64_t k = 1; k <= 4; ++k)
        for (int64_t s = 1; s <= 3; ++s)
          for (int64_t pad = 0; pad < k; ++pad)
            for (int mode = 0; mode < 4; ++mode) {
              std::vector<int64_t> kernel(nsp, k), strides(nsp, s), pads(2 * nsp, 0);
              pads[nsp - 1] = pad;
              pads[2 * nsp - 1] = (pad + mode) % k;
              if (kernel.back() > dims[dims.rank() - 1] || (nsp == 2 && k > dims[2])) continue;
              const std::vector<Attribute> attrs = {
                  attr_ints("kernel_shape", kernel), attr_ints("strides", strides), attr_ints("pads", pads),
                  attr_int("ceil_mode", mode & 1), attr_int("count_include_pad", mode >> 1)};
              auto got = run_kernel(op, {x32}, 1, attrs);
              auto want = run_kernel(op, {x64}, 1, attrs);
              ASSERT_TRUE(got.status.ok() && want.status.ok()) << op << " " << got.status.to_string();
              const std::vector<double> w = to_vector<double>(want.outputs[0].tensor());
              const std::vector<float> g = to_vector<float>(got.outputs[0].tensor());
              ASSERT_EQ(g.size(), w.size());
              for (size_t i = 0; i < g.size(); ++i)
                ASSERT_NEAR(g[i], w[i], 1e-5) << op << " on " << dims.to_string() << ", k " << k << ", s " << s
                                              << ", pad " << pad << ", mode " << mode << ", output " << i;
              ++compared;
            }
  }
  EXPECT_GT(compared, 300);
}

// Float MaxPool with Indices takes windows eight at a time (max_group);
// double runs the plain loop. On small integers (many ties) and NaNs, the
// values and the indices (the first maximum in row-major order, NaN
// winning) must be the same, in both storage orders, for windows in the
// rows' interiors and at their edges.
TEST(NnPool, MaxPool_Indices_FloatGroupsMatchTheGenericLoop) {
  std::mt19937 rng(11);
  int compared = 0;
  for (const Dims& dims : {Dims{1, 2, 9, 40}, Dims{2, 1, 6, 23}, Dims{1, 2, 50}}) {
    const int nsp = static_cast<int>(dims.rank()) - 2;
    std::vector<float> xf(static_cast<size_t>(dims.numel()));
    for (float& v : xf) v = rng() % 50 == 0 ? std::numeric_limits<float>::quiet_NaN() : float(rng() % 5);
    const std::vector<double> xd(xf.begin(), xf.end());
    const auto x32 = make_tensor<float>(dims, xf);
    const auto x64 = make_tensor<double>(dims, xd);
    for (int64_t k = 1; k <= 4; ++k)
      for (int64_t s = 1; s <= 3; ++s)
        for (int64_t pad = 0; pad < k; ++pad)
          for (int64_t dil = 1; dil <= 2; ++dil)
            for (int64_t order = 0; order <= 1; ++order) {
              if ((k - 1) * dil + 1 > dims[2] + 2 * pad) continue;  // dims[2]: the shortest spatial axis
              std::vector<int64_t> kernel(nsp, k), strides(nsp, s), pads(2 * nsp, pad), dilations(nsp, dil);
              const std::vector<Attribute> attrs = {attr_ints("kernel_shape", kernel), attr_ints("strides", strides),
                                                    attr_ints("pads", pads), attr_ints("dilations", dilations),
                                                    attr_int("storage_order", order)};
              auto got = run_kernel("MaxPool", {x32}, 2, attrs);
              auto want = run_kernel("MaxPool", {x64}, 2, attrs);
              ASSERT_TRUE(got.status.ok() && want.status.ok()) << got.status.to_string();
              const std::vector<double> wv = to_vector<double>(want.outputs[0].tensor());
              const std::vector<float> gv = to_vector<float>(got.outputs[0].tensor());
              const auto wi = to_vector<int64_t>(want.outputs[1].tensor());
              const auto gi = to_vector<int64_t>(got.outputs[1].tensor());
              ASSERT_EQ(gv.size(), wv.size());
              ASSERT_EQ(gi, wi) << dims.to_string() << ", k " << k << ", s " << s << ", pad " << pad << ", dil " << dil
                                << ", order " << order;
              for (size_t i = 0; i < gv.size(); ++i)
                ASSERT_TRUE(gv[i] == wv[i] || (std::isnan(gv[i]) && std::isnan(wv[i])))
                    << dims.to_string() << ", k " << k << ", s " << s << ", output " << i;
              ++compared;
            }
  }
  EXPECT_GT(compared, 200);
}

// The generic loop (here for double and float16) gives NaN for a window
// holding one, wherever it lies, as ONNX's reference (NumPy's max) does.
TEST(NnPool, MaxPool_GenericLoop_NaNInTheWindow_GivesNaN) {
  for (int at : {0, 1, 4, 5}) {  // the first window's elements, in row-major order
    std::vector<double> v = {1, 2, 3, 4, 5, 6, 7, 8};
    v[at] = std::numeric_limits<double>::quiet_NaN();
    const std::vector<Attribute> attrs = {attr_ints("kernel_shape", {2, 2}), attr_ints("strides", {2, 2})};
    auto d = run_kernel("MaxPool", {make_tensor<double>({1, 1, 2, 4}, v)}, 1, attrs);
    std::vector<Float16> h;
    for (double e : v) h.push_back(Float16(static_cast<float>(e)));
    auto f16 = run_kernel("MaxPool", {make_tensor<Float16>({1, 1, 2, 4}, h)}, 1, attrs);
    ASSERT_TRUE(d.status.ok() && f16.status.ok());
    const auto dv = to_vector<double>(d.outputs[0].tensor());
    const auto hv = to_vector<Float16>(f16.outputs[0].tensor());
    EXPECT_TRUE(std::isnan(dv[0])) << "NaN at " << at << ": " << dv[0];
    EXPECT_TRUE(std::isnan(static_cast<float>(hv[0]))) << "float16, NaN at " << at;
    EXPECT_EQ(dv[1], 8);
  }
}

// Float MaxPool without Indices over short rows runs on oneDNN, whose max
// skips a NaN: an X with a NaN goes to the other paths, so the window
// holding it gives NaN there too.
TEST(NnPool, MaxPool_Float_NaNInTheWindow_GivesNaN) {
  const Dims d{3, 5, 7, 9};  // outputs 3x4: oneDNN's
  std::vector<float> v(static_cast<size_t>(d.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 17);
  v[static_cast<size_t>(((1 * 5 + 2) * 7 + 3) * 9 + 4)] = std::numeric_limits<float>::quiet_NaN();
  const std::vector<Attribute> attrs = {attr_ints("kernel_shape", {2, 2}), attr_ints("strides", {2, 2})};
  auto f = run_kernel("MaxPool", {make_tensor<float>(d, v)}, 1, attrs);
  ASSERT_TRUE(f.status.ok()) << f.status.to_string();
  const auto y = to_vector<float>(f.outputs[0].tensor());
  for (size_t i = 0; i < y.size(); ++i)
    EXPECT_EQ(std::isnan(y[i]), i == ((1 * 5 + 2) * 3 + 1) * 4 + 2) << i;  // the window of rows 2-3, columns 4-5
}

// The global average sums in interleaved partial sums; plane sizes around
// their width (8) and a batch of many small planes must still average
// exactly what a plain sum would, to float rounding.
TEST(NnPool, GlobalAveragePool_ManyPlanes) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> value(-1.f, 1.f);
  for (int64_t sp : {1, 7, 8, 9, 49, 50}) {
    const Dims dims{4, 300, sp};
    std::vector<float> x(static_cast<size_t>(dims.numel()));
    for (float& v : x) v = value(rng);
    auto r = run_kernel("GlobalAveragePool", {make_tensor<float>(dims, x)}, 1);
    ASSERT_TRUE(r.status.ok()) << r.status.to_string();
    const auto y = to_vector<float>(r.outputs[0].tensor());
    ASSERT_EQ(y.size(), 1200u);
    for (size_t p = 0; p < y.size(); ++p) {
      double sum = 0;
      for (int64_t i = 0; i < sp; ++i) sum += x[p * sp + i];
      ASSERT_NEAR(y[p], sum / sp, 1e-6) << "plane " << p << " of size " << sp;
    }
  }
}

// LpPool and GlobalLpPool for p = 1 and 2 (their own formulas) and 3
// (std::pow), padded windows included, against sums in double.
TEST(NnPool, LpPool_EachP_MatchesReference) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> value(-2.f, 2.f);
  const int64_t H = 5, W = 6;
  std::vector<float> x(static_cast<size_t>(2 * H * W));
  for (float& v : x) v = value(rng);
  auto at = [&](int64_t c, int64_t h, int64_t w) {
    return h < 0 || h >= H || w < 0 || w >= W ? 0.0 : static_cast<double>(x[static_cast<size_t>((c * H + h) * W + w)]);
  };
  for (int64_t p : {1, 2, 3}) {
    // 2x2 windows, stride 1, one padded row and column on each side: 6x7.
    auto r = run_kernel("LpPool", {make_tensor<float>({1, 2, H, W}, x)}, 1,
                        {attr_ints("kernel_shape", {2, 2}), attr_ints("pads", {1, 1, 1, 1}), attr_int("p", p)});
    ASSERT_TRUE(r.status.ok()) << r.status.to_string();
    const auto y = to_vector<float>(r.outputs[0].tensor());
    ASSERT_EQ(y.size(), 2u * 6 * 7);
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t oh = 0; oh < 6; ++oh)
        for (int64_t ow = 0; ow < 7; ++ow) {
          double sum = 0;
          for (int64_t kh = 0; kh < 2; ++kh)
            for (int64_t kw = 0; kw < 2; ++kw) sum += std::pow(std::abs(at(c, oh - 1 + kh, ow - 1 + kw)), p);
          EXPECT_NEAR(y[static_cast<size_t>((c * 6 + oh) * 7 + ow)], std::pow(sum, 1.0 / p), 1e-5)
              << "p=" << p << " at " << c << "," << oh << "," << ow;
        }
    std::vector<double> xd(x.begin(), x.end());
    auto g = run_kernel("GlobalLpPool", {make_tensor<double>({1, 2, H, W}, xd)}, 1, {attr_int("p", p)});
    ASSERT_TRUE(g.status.ok()) << g.status.to_string();
    for (int64_t c = 0; c < 2; ++c) {
      double sum = 0;
      for (int64_t i = 0; i < H * W; ++i) sum += std::pow(std::abs(xd[static_cast<size_t>(c * H * W + i)]), p);
      EXPECT_NEAR(to_vector<double>(g.outputs[0].tensor())[static_cast<size_t>(c)], std::pow(sum, 1.0 / p), 1e-12)
          << "GlobalLpPool p=" << p;
    }
  }
}

// GlobalMaxPool: the max of each plane, sizes around the vector widths;
// a NaN anywhere in a plane gives NaN, for float (vector max) and double.
TEST(NnPool, GlobalMaxPool_PlaneSizes_NaNAnywhere) {
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> value(-1.f, 1.f);
  for (int64_t sp : {1, 15, 16, 17, 49, 64, 65, 200}) {
    const Dims dims{2, 3, sp};
    std::vector<float> x(static_cast<size_t>(dims.numel()));
    for (float& v : x) v = value(rng);
    // Plane 1 has its NaN first, plane 3 in the middle, plane 5 last.
    const float nan = std::numeric_limits<float>::quiet_NaN();
    x[static_cast<size_t>(sp)] = x[static_cast<size_t>(3 * sp + sp / 2)] = x[static_cast<size_t>(6 * sp - 1)] = nan;
    std::vector<double> xd(x.begin(), x.end());
    auto f = run_kernel("GlobalMaxPool", {make_tensor<float>(dims, x)}, 1);
    auto d = run_kernel("GlobalMaxPool", {make_tensor<double>(dims, xd)}, 1);
    ASSERT_TRUE(f.status.ok() && d.status.ok());
    const auto yf = to_vector<float>(f.outputs[0].tensor());
    const auto yd = to_vector<double>(d.outputs[0].tensor());
    for (size_t p = 0; p < 6; ++p) {
      const bool want_nan = p % 2 == 1;
      const float want = *std::max_element(x.begin() + static_cast<int64_t>(p) * sp,
                                           x.begin() + static_cast<int64_t>(p + 1) * sp);
      EXPECT_EQ(std::isnan(yf[p]), want_nan) << "float plane " << p << " of size " << sp;
      EXPECT_EQ(std::isnan(yd[p]), want_nan) << "double plane " << p << " of size " << sp;
      if (!want_nan) {
        EXPECT_EQ(yf[p], want) << "plane " << p << " of size " << sp;
        EXPECT_EQ(yd[p], static_cast<double>(want)) << "plane " << p << " of size " << sp;
      }
    }
  }
}

}  // namespace
}  // namespace sy

// Unit tests for the 1x1 convolution in register tiles
// (devices/cpu/kernels/pointwise_conv.h): bit for bit against chains of
// std::fma from the bias in channel order, over row tails of 4, 2 and 1
// channels, pixel tails under 16 and under 32, passes over more than 256
// input channels, several images, strides, a residual added, the clamp
// with a NaN kept, and the same on one core as on four.
#include "devices/cpu/kernels/pointwise_conv.h"

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "devices/cpu/kernels/avx512.h"

namespace sy::nn {
namespace {

bool have_avx512() {
#if defined(__x86_64__)
  return avx512::supported();
#else
  return false;
#endif
}

// Images of H x W pixels (or 1 x W), strided by (sh, sw).
struct Shape {
  int64_t N, C, M, H, W, sh = 1, sw = 1;
  int64_t OH() const { return (H - 1) / sh + 1; }
  int64_t OW() const { return (W - 1) / sw + 1; }
  int64_t P() const { return OH() * OW(); }
  Window window() const {
    Window w;
    w.nsp = 2;
    w.in = {1, H, W};
    w.out = {1, OH(), OW()};
    w.stride = {1, sh, sw};
    return w;
  }
};

// What pointwise_conv() promises: the bias, then W's row times X's column
// in fused multiply-adds in channel order, then plus Z, then the clamp (NaN
// kept).
std::vector<float> reference(const Shape& s, const std::vector<float>& X, const std::vector<float>& W, const float* B,
                             const float* Z, const ConvActivation& act) {
  std::vector<float> Y(static_cast<size_t>(s.N * s.M * s.P()));
  for (int64_t n = 0; n < s.N; ++n)
    for (int64_t m = 0; m < s.M; ++m)
      for (int64_t p = 0; p < s.P(); ++p) {
        const int64_t pixel = p / s.OW() * s.sh * s.W + p % s.OW() * s.sw;
        float acc = B ? B[m] : 0.f;
        for (int64_t c = 0; c < s.C; ++c)
          acc = std::fma(W[static_cast<size_t>(m * s.C + c)], X[static_cast<size_t>((n * s.C + c) * s.H * s.W + pixel)],
                         acc);
        const size_t o = static_cast<size_t>((n * s.M + m) * s.P() + p);
        if (Z) acc += Z[o];
        if (act.on && !std::isnan(acc)) acc = std::clamp(acc, act.lo, act.hi);
        Y[o] = acc;
      }
  return Y;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(PointwiseConv, MatchesFmaChainsBitForBit) {
  if (!have_avx512()) GTEST_SKIP() << "pointwise_conv needs AVX-512, which this CPU lacks";
  const std::vector<Shape> shapes = {
      {1, 3, 8, 1, 32},          // one tile
      {1, 5, 15, 7, 7},          // rows 8 + 4 + 2 + 1, pixels 32 + 17
      {2, 7, 13, 1, 40},         // two images, pixels 32 + 8
      {1, 16, 96, 8, 8},         // MobileNet's first expansion, narrower
      {1, 257, 9, 1, 33},        // two passes over the channels, a 1-pixel tail
      {1, 600, 600, 6, 8},       // three passes
      {1, 1023, 1030, 1, 32},    // four
      {3, 2, 1, 10, 10},         // one output channel
      {1, 1, 33, 32, 32},        // one input channel, many tasks
      {2, 6, 20, 14, 14, 2, 2},  // strided: 7 x 7 pixels gathered from 14 x 14
      {1, 4, 9, 17, 22, 3, 2},   // uneven strides, odd sizes
  };
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-2.f, 2.f);
  for (const Shape& s : shapes)
    for (int variant = 0; variant < 3; ++variant) {
      SCOPED_TRACE(testing::Message() << "N " << s.N << " C " << s.C << " M " << s.M << " " << s.H << "x" << s.W
                                      << " strides " << s.sh << "," << s.sw << " variant " << variant);
      std::vector<float> X(static_cast<size_t>(s.N * s.C * s.H * s.W)), W(static_cast<size_t>(s.M * s.C)),
          B(static_cast<size_t>(s.M));
      for (float& v : X) v = value(rng);
      for (float& v : W) v = value(rng);
      for (float& v : B) v = value(rng);
      // Variant 1: no bias, a clamp, and a NaN in the last pixel of
      // channel 0 (read at every stride), which every output of that pixel
      // keeps. Variant 2: a residual, and a clamp.
      std::vector<float> Z(static_cast<size_t>(s.N * s.M * s.P()));
      for (float& v : Z) v = value(rng);
      ConvActivation act;
      const float* bias = B.data();
      const float* residual = variant == 2 ? Z.data() : nullptr;
      if (variant >= 1) {
        act.on = true;
        act.lo = -1.5f;
        act.hi = 2.f;
      }
      if (variant == 1) {
        bias = nullptr;
        X[static_cast<size_t>((s.OH() - 1) * s.sh * s.W + (s.OW() - 1) * s.sw)] =
            std::numeric_limits<float>::quiet_NaN();
      }
      const std::vector<float> want = reference(s, X, W, bias, residual, act);
      for (int threads : {1, 4}) {
        std::vector<float> got(want.size(), -7.f);
        bool ok = false;
        tbb::task_arena(threads).execute([&] {
          ok = pointwise_conv(X.data(), W.data(), bias, residual, got.data(), s.N, s.C, s.M, s.window(), act);
        });
        ASSERT_TRUE(ok);
        int wrong = 0;
        for (size_t i = 0; i < want.size() && wrong < 5; ++i)
          if (!same_bits(got[i], want[i])) {
            ++wrong;
            ADD_FAILURE() << "threads " << threads << " output " << i << ": " << got[i] << ", want " << want[i];
          }
      }
    }
}

// Under 32 pixels, or from 512 input channels to fewer, other paths do
// better.
TEST(PointwiseConv, DeclinesFewPixelsAndManyChannels) {
  if (!have_avx512()) GTEST_SKIP() << "pointwise_conv needs AVX-512, which this CPU lacks";
  const std::vector<float> X(512 * 32, 1.f), W(2 * 512, 1.f);
  std::vector<float> Y(64, -7.f);
  EXPECT_FALSE(pointwise_conv(X.data(), W.data(), nullptr, nullptr, Y.data(), 1, 1, 2, Shape{1, 1, 2, 1, 31}.window(),
                              ConvActivation{}));
  EXPECT_FALSE(pointwise_conv(X.data(), W.data(), nullptr, nullptr, Y.data(), 1, 512, 2, Shape{1, 1, 2, 8, 8}.window(),
                              ConvActivation{}));
  EXPECT_EQ(Y, std::vector<float>(64, -7.f));  // untouched
}

}  // namespace
}  // namespace sy::nn

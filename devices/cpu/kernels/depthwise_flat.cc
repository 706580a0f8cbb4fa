#include "devices/cpu/kernels/depthwise_flat.h"

#include <cstdint>
#include <vector>

#include "devices/cpu/kernels/avx512.h"
#include "devices/cpu/kernels/tensor_common.h"

namespace sy::nn {

// Windows of up to 7x7 (5x5 and 3x3 are the usual).
constexpr int64_t kMaxTaps = 49;

#if defined(__x86_64__)
namespace {

// With the output as wide as the input, output pixel p's tap (kh, kw)
// reads input pixel p + off[tap] of the plane taken as one flat row, the
// same shift for every pixel. So 16 consecutive output pixels, across row
// ends, take one masked load a tap, the mask (the same for every channel)
// dropping the taps that fall in the padding. depthwise_conv's blocks of
// 16 channels, which suit planes of narrow rows otherwise, transpose the
// input into channels-last bands and the sums back: at 7x7 those
// transposes cost more than the sums.
struct FlatPlan {
  int64_t plane_in, plane_out, groups, taps;
  std::vector<int64_t> off;      // per tap
  std::vector<__mmask16> valid;  // per tap and group of 16 output pixels
  float lo, hi;                  // the activation's bounds
};

// Planes [i, i + K) (plane i is channel i % c_count of image
// i / c_count): K sums at a time, which hide the multiply-adds' latency
// (one chain at a time waited on each: 1.6x as long).
template <int K>
__attribute__((target("avx512f"), always_inline)) inline void flat_group(const FlatPlan& p, const float* X,
                                                                         const float* W, const float* B, float* Y,
                                                                         int64_t c_count, int64_t i) {
  // The K planes' weights tap by tap, so that one register addresses them.
  float k[kMaxTaps * K];
  __m512 bias[K];
  for (int j = 0; j < K; ++j) {
    const int64_t c = (i + j) % c_count;
    for (int64_t t = 0; t < p.taps; ++t) k[t * K + j] = W[c * p.taps + t];
    bias[j] = _mm512_set1_ps(B ? B[c] : 0.f);
  }
  const __m512 lo = _mm512_set1_ps(p.lo), hi = _mm512_set1_ps(p.hi);
  const float* x = X + i * p.plane_in;
  float* y = Y + i * p.plane_out;
  for (int64_t g = 0; g < p.groups; ++g) {
    __m512 acc[K];
    for (int j = 0; j < K; ++j) acc[j] = bias[j];
    for (int64_t t = 0; t < p.taps; ++t) {
      const __mmask16 valid = p.valid[static_cast<size_t>(t * p.groups + g)];
      // A masked lane is not read, so a window past the plane's ends (or
      // before x) cannot fault; the address is formed as an integer.
      const intptr_t at = reinterpret_cast<intptr_t>(x) + (g * 16 + p.off[static_cast<size_t>(t)]) * intptr_t{4};
      for (int j = 0; j < K; ++j) {
        const __m512 in =
            _mm512_maskz_loadu_ps(valid, reinterpret_cast<const float*>(at + j * p.plane_in * intptr_t{4}));
        acc[j] = _mm512_fmadd_ps(_mm512_set1_ps(k[t * K + j]), in, acc[j]);
      }
    }
    // min(max(acc, lo), hi) with a NaN kept: max and min return their
    // second operand when either is NaN.
    const __mmask16 out = avx512::first_lanes(p.plane_out - g * 16);
    for (int j = 0; j < K; ++j)
      _mm512_mask_storeu_ps(y + j * p.plane_out + g * 16, out, _mm512_min_ps(hi, _mm512_max_ps(lo, acc[j])));
  }
}

__attribute__((target("avx512f"))) void flat_planes(const FlatPlan& p, const float* X, const float* W, const float* B,
                                                    float* Y, int64_t c_count, int64_t begin, int64_t end) {
  int64_t i = begin;
  for (; i + 8 <= end; i += 8) flat_group<8>(p, X, W, B, Y, c_count, i);
  if (i + 4 <= end) {
    flat_group<4>(p, X, W, B, Y, c_count, i);
    i += 4;
  }
  if (i + 2 <= end) {
    flat_group<2>(p, X, W, B, Y, c_count, i);
    i += 2;
  }
  if (i < end) flat_group<1>(p, X, W, B, Y, c_count, i);
}

}  // namespace
#endif

bool depthwise_flat(const float* X, const float* W, const float* B, float* Y, int64_t N, int64_t C, const Window& w,
                    const ConvActivation& act) {
#if defined(__x86_64__)
  if (!avx512::supported() || w.stride[1] != 1 || w.stride[2] != 1 || w.out[2] != w.in[2] || w.k[1] * w.k[2] > kMaxTaps)
    return false;
  const int64_t H = w.in[1], Wd = w.in[2], OH = w.out[1], OW = w.out[2];
  FlatPlan p{H * Wd, OH * OW, (OH * OW + 15) / 16, w.k[1] * w.k[2], {}, {}, act.lower(), act.upper()};
  p.off.resize(static_cast<size_t>(p.taps));
  p.valid.assign(static_cast<size_t>(p.taps * p.groups), 0);
  for (int64_t kh = 0; kh < w.k[1]; ++kh)
    for (int64_t kw = 0; kw < w.k[2]; ++kw) {
      const int64_t t = kh * w.k[2] + kw, dy = kh * w.dil[1] - w.pad_b[1], dx = kw * w.dil[2] - w.pad_b[2];
      p.off[static_cast<size_t>(t)] = dy * Wd + dx;
      for (int64_t q = 0; q < p.plane_out; ++q) {
        const int64_t ih = q / OW + dy, iw = q % OW + dx;
        if (ih >= 0 && ih < H && iw >= 0 && iw < Wd)
          p.valid[static_cast<size_t>(t * p.groups + q / 16)] |= static_cast<__mmask16>(1u << (q % 16));
      }
    }
  tensor_ops::for_row_ranges(N * C, p.plane_out * p.taps,
                             [&](int64_t begin, int64_t end) { flat_planes(p, X, W, B, Y, C, begin, end); });
  return true;
#else
  return false;
#endif
}

}  // namespace sy::nn

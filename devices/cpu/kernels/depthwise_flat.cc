#include "devices/cpu/kernels/depthwise_flat.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "devices/cpu/kernels/avx512.h"
#include "devices/cpu/kernels/tensor_common.h"

namespace sy::nn {

// Windows of up to 7x7 (5x5 and 3x3 are the usual).
constexpr int64_t kMaxTaps = 49;
// The masks' table, a tap by a group of 16 output pixels, stays under 8 MiB
// (a 2048 x 2048 plane, 3x3).
constexpr int64_t kMaxMasks = int64_t{1} << 22;
// A stride-2 plane split into its phases, kept by each thread: at most
// 4 MiB (a plane of 1024 x 1024).
constexpr int64_t kMaxSplitFloats = int64_t{1} << 20;

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
//
// Stride 2 becomes the same shifts once the plane is split into its four
// phases (even or odd rows by even or odd columns), each a plane of rows
// as long as the output's: tap (kh, kw) of output pixel (oh, ow) reads
// input (2 oh + dy, 2 ow + dx), which is pixel (oh + floor(dy / 2),
// ow + floor(dx / 2)) of phase (dy & 1, dx & 1).
struct FlatPlan {
  int64_t H, W, OW;  // the input plane, the output's rows
  int64_t PH;        // rows of a phase (stride 2)
  int64_t plane_in;  // floats of a source plane: the input plane, or its four phases
  int64_t plane_out, groups, taps;
  std::vector<int64_t> off;      // per tap, into the source plane
  std::vector<__mmask16> valid;  // per tap and group of 16 output pixels
  float lo, hi;                  // the activation's bounds
};

// Source planes [0, K) at x, p.plane_in apart, into outputs at y, plane j
// being channel (i + j) % c_count: K sums at a time, which hide the
// multiply-adds' latency (one chain at a time waited on each: 1.6x as
// long).
template <int K>
__attribute__((target("avx512f"), always_inline)) inline void flat_group(const FlatPlan& p, const float* x,
                                                                         const float* W, const float* B, float* y,
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

// Groups [g0, g0 + G) of one plane: G sums at a time. On planes of 8
// groups or more, this beat flat_group's K planes at a time, whose K input
// and K output streams a group crowded the caches: [1, 144, 56, 56] 3x3
// took 106 us so against 160 (and 150 by depthwise_conv's padded rows),
// [1, 192, 28, 28] 38 against 50 (71).
template <int G>
__attribute__((target("avx512f"), always_inline)) inline void flat_run(const FlatPlan& p, const float* x,
                                                                       const float* k, __m512 bias, __m512 lo,
                                                                       __m512 hi, float* y, int64_t g0) {
  __m512 acc[G];
  for (int j = 0; j < G; ++j) acc[j] = bias;
  for (int64_t t = 0; t < p.taps; ++t) {
    const __m512 wv = _mm512_set1_ps(k[t]);
    const __mmask16* valid = p.valid.data() + t * p.groups + g0;
    const intptr_t at = reinterpret_cast<intptr_t>(x) + (g0 * 16 + p.off[static_cast<size_t>(t)]) * intptr_t{4};
    for (int j = 0; j < G; ++j)
      acc[j] =
          _mm512_fmadd_ps(wv, _mm512_maskz_loadu_ps(valid[j], reinterpret_cast<const float*>(at + j * 64)), acc[j]);
  }
  for (int j = 0; j < G; ++j) {
    const __mmask16 out = avx512::first_lanes(p.plane_out - (g0 + j) * 16);
    _mm512_mask_storeu_ps(y + (g0 + j) * 16, out, _mm512_min_ps(hi, _mm512_max_ps(lo, acc[j])));
  }
}

// Source planes [0, n) at x into outputs at y, plane j being channel
// (i + j) % c_count.
__attribute__((target("avx512f"))) void flat_planes(const FlatPlan& p, const float* x, const float* W, const float* B,
                                                    float* y, int64_t c_count, int64_t i, int64_t n) {
  if (p.groups >= 8) {
    const __m512 lo = _mm512_set1_ps(p.lo), hi = _mm512_set1_ps(p.hi);
    for (int64_t j = 0; j < n; ++j, x += p.plane_in, y += p.plane_out) {
      const int64_t c = (i + j) % c_count;
      const float* k = W + c * p.taps;
      const __m512 bias = _mm512_set1_ps(B ? B[c] : 0.f);
      int64_t g = 0;
      for (; g + 8 <= p.groups; g += 8) flat_run<8>(p, x, k, bias, lo, hi, y, g);
      if (g + 4 <= p.groups) {
        flat_run<4>(p, x, k, bias, lo, hi, y, g);
        g += 4;
      }
      if (g + 2 <= p.groups) {
        flat_run<2>(p, x, k, bias, lo, hi, y, g);
        g += 2;
      }
      if (g < p.groups) flat_run<1>(p, x, k, bias, lo, hi, y, g);
    }
    return;
  }
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) flat_group<8>(p, x + j * p.plane_in, W, B, y + j * p.plane_out, c_count, i + j);
  if (j + 4 <= n) {
    flat_group<4>(p, x + j * p.plane_in, W, B, y + j * p.plane_out, c_count, i + j);
    j += 4;
  }
  if (j + 2 <= n) {
    flat_group<2>(p, x + j * p.plane_in, W, B, y + j * p.plane_out, c_count, i + j);
    j += 2;
  }
  if (j < n) flat_group<1>(p, x + j * p.plane_in, W, B, y + j * p.plane_out, c_count, i + j);
}

// Splits input plane x into its four phases at s, [row parity][column
// parity][p.PH][p.OW], 16 even and 16 odd columns at a time. Phase
// columns past the input's are left as they are: no valid tap reads them.
__attribute__((target("avx512f"))) void split_phases(const FlatPlan& p, const float* x, float* s) {
  const __m512i evens = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i odds = _mm512_add_epi32(evens, _mm512_set1_epi32(1));
  const int64_t n_even = std::min(p.OW, (p.W + 1) / 2), n_odd = std::min(p.OW, p.W / 2), phase = p.PH * p.OW;
  for (int64_t h = 0; h < p.H; ++h) {
    const float* row = x + h * p.W;
    float* even = s + (h & 1) * 2 * phase + (h >> 1) * p.OW;
    float* odd = even + phase;
    int64_t c = 0;
    for (; c + 16 <= n_odd && 2 * c + 32 <= p.W; c += 16) {
      const __m512 a = _mm512_loadu_ps(row + 2 * c), b = _mm512_loadu_ps(row + 2 * c + 16);
      _mm512_storeu_ps(even + c, _mm512_permutex2var_ps(a, evens, b));
      _mm512_storeu_ps(odd + c, _mm512_permutex2var_ps(a, odds, b));
    }
    for (; c < n_even; c += 16) {
      const int64_t left = p.W - 2 * c;  // floats of the row from column 2c on
      const __m512 a = _mm512_maskz_loadu_ps(avx512::first_lanes(left), row + 2 * c);
      const __m512 b = _mm512_maskz_loadu_ps(avx512::first_lanes(std::max<int64_t>(left - 16, 0)), row + 2 * c + 16);
      _mm512_mask_storeu_ps(even + c, avx512::first_lanes(n_even - c), _mm512_permutex2var_ps(a, evens, b));
      if (c < n_odd) _mm512_mask_storeu_ps(odd + c, avx512::first_lanes(n_odd - c), _mm512_permutex2var_ps(a, odds, b));
    }
  }
}

// floor(a / s) for s > 0.
int64_t floor_div(int64_t a, int64_t s) { return a >= 0 ? a / s : -((-a + s - 1) / s); }

}  // namespace
#endif

bool depthwise_flat(const float* X, const float* W, const float* B, float* Y, int64_t N, int64_t C, const Window& w,
                    const ConvActivation& act) {
#if defined(__x86_64__)
  const int64_t s = w.stride[2], H = w.in[1], Wd = w.in[2], OH = w.out[1], OW = w.out[2];
  // Stride 1 reads the input in place, so its rows must be the output's;
  // stride 2 writes phases with rows as long as the output's, which must
  // then hold every input column, and pays its split only on planes of 8
  // groups or more (at 7x7 depthwise_conv's blocks took 45 us, this 58).
  const bool fits = s == 1 ? OW == Wd : s == 2 && (Wd + 1) / 2 <= OW && OH * OW > 7 * 16;
  if (!avx512::supported() || w.stride[1] != s || !fits || w.k[1] * w.k[2] > kMaxTaps ||
      (OH * OW + 15) / 16 > kMaxMasks / (w.k[1] * w.k[2]))
    return false;
  const int64_t PH = (H + s - 1) / s;
  FlatPlan p{.H = H,
             .W = Wd,
             .OW = OW,
             .PH = PH,
             .plane_in = s == 1 ? H * Wd : 4 * PH * OW,
             .plane_out = OH * OW,
             .groups = (OH * OW + 15) / 16,
             .taps = w.k[1] * w.k[2],
             .off = {},
             .valid = {},
             .lo = act.lower(),
             .hi = act.upper()};
  if (s == 2 && p.plane_in > kMaxSplitFloats) return false;
  p.off.resize(static_cast<size_t>(p.taps));
  p.valid.assign(static_cast<size_t>(p.taps * p.groups), 0);
  for (int64_t kh = 0; kh < w.k[1]; ++kh)
    for (int64_t kw = 0; kw < w.k[2]; ++kw) {
      const int64_t t = kh * w.k[2] + kw, dy = kh * w.dil[1] - w.pad_b[1], dx = kw * w.dil[2] - w.pad_b[2];
      const int64_t sy = floor_div(dy, s), sx = floor_div(dx, s);  // the shift within the phase
      const int64_t phase = (dy - sy * s) * 2 + (dx - sx * s);     // 0 at stride 1
      p.off[static_cast<size_t>(t)] = phase * PH * OW + sy * (s == 1 ? Wd : OW) + sx;
      // The tap reads inside the input (s oh + dy in [0, H)) for output
      // rows [oh0, oh1) and, in each, columns [ow0, ow1): a run of bits per
      // row. A test per output pixel, with its division, took longer than
      // the sums at 112x112.
      const int64_t oh0 = std::max<int64_t>(0, -floor_div(dy, s)), oh1 = std::min(OH, -floor_div(dy - H, s));
      const int64_t ow0 = std::max<int64_t>(0, -floor_div(dx, s)), ow1 = std::min(OW, -floor_div(dx - Wd, s));
      __mmask16* masks = p.valid.data() + t * p.groups;
      for (int64_t oh = oh0; oh < oh1; ++oh)
        for (int64_t q = oh * OW + ow0, end = oh * OW + ow1; q < end;) {
          const int64_t bit = q % 16, n = std::min(16 - bit, end - q);
          masks[q / 16] |= static_cast<__mmask16>(((1u << n) - 1) << bit);
          q += n;
        }
    }
  tensor_ops::for_row_ranges(N * C, p.plane_out * p.taps, [&](int64_t begin, int64_t end) {
    if (s == 1) return flat_planes(p, X + begin * p.plane_in, W, B, Y + begin * p.plane_out, C, begin, end - begin);
    // A plane at a time, split into a buffer kept by the thread from call
    // to call, 64-byte aligned: with the split's stores across cache lines
    // (and a fresh allocation a range) [1, 32, 224, 224] took 500 us, 245
    // so.
    static thread_local std::vector<float> buffer;
    buffer.resize(std::max(buffer.size(), static_cast<size_t>(p.plane_in + 16)));
    float* split = buffer.data() + (64 - reinterpret_cast<uintptr_t>(buffer.data()) % 64) % 64 / sizeof(float);
    for (int64_t i = begin; i < end; ++i) {
      split_phases(p, X + i * H * Wd, split);
      flat_planes(p, split, W, B, Y + i * p.plane_out, C, i, 1);
    }
  });
  return true;
#else
  return false;
#endif
}

}  // namespace sy::nn

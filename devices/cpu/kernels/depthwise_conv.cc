#include "devices/cpu/kernels/depthwise_conv.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "devices/cpu/kernels/depthwise_flat.h"
#include "devices/cpu/kernels/target_clones.h"

namespace sy::nn {
namespace {

// A depthwise float convolution of 1 or 2 spatial dims: one input and one
// output channel per group (MobileNet's). oneDNN's plain-layout path ran it
// about 20x slower than ONNX Runtime ([1, 128, 56, 56], 3x3: 1.9 ms against
// 0.1). Each output row is a sum of input rows scaled by one weight each,
// over the columns where the window is inside the input, so the inner loop
// runs over contiguous columns and vectorises (stride 1); an x86-64-v3
// clone (AVX2 and FMA) is picked at load time where the CPU has it.
struct DepthwisePlane {
  int64_t H, W, OH, OW, KH, KW, sh, sw, dh, ph;
  const int64_t* off;  // per kw: input column under output column 0
  const int64_t* lo;   // per kw: the output columns whose input is inside
  const int64_t* hi;
};

SY_TARGET_CLONES("arch=x86-64-v3", "default")
void depthwise_plane(const DepthwisePlane& p, const float* x, const float* k, float bias, float* y) {
  for (int64_t oh = 0; oh < p.OH; ++oh) {
    float* yr = y + oh * p.OW;
    std::fill(yr, yr + p.OW, bias);
    for (int64_t kh = 0; kh < p.KH; ++kh) {
      const int64_t ih = oh * p.sh - p.ph + kh * p.dh;
      if (ih < 0 || ih >= p.H) continue;
      const float* xr = x + ih * p.W;
      for (int64_t kw = 0; kw < p.KW; ++kw) {
        const float wv = k[kh * p.KW + kw];
        const int64_t off = p.off[kw];
        if (p.sw == 1) {
          for (int64_t ow = p.lo[kw]; ow < p.hi[kw]; ++ow) yr[ow] += wv * xr[ow + off];
        } else {
          for (int64_t ow = p.lo[kw]; ow < p.hi[kw]; ++ow) yr[ow] += wv * xr[ow * p.sw + off];
        }
      }
    }
  }
}

// Stride 1 or 2 along the rows: the plane is first copied into a
// zero-padded buffer, so that every tap of every window is inside, and
// output columns are summed in vector registers (GCC's vector type: one AVX
// register in the x86-64-v3/v4 clones, two SSE ones else) and stored once,
// several vectors at a time so that independent sums hide the adds'
// latency. depthwise_plane's pass over the row per tap, with the edge
// columns apart, took twice as long ([1, 128, 56, 56], 3x3: 300 us to 150,
// and 115 with FMA and the taps of 3x3 unrolled). With stride 2 each padded
// row is stored as its even columns, then its odd ones, so that a tap's
// inputs for consecutive output columns are again consecutive.
constexpr int64_t kMaxPaddedPlane = int64_t{1} << 22;  // floats: 16 MiB a thread at most

struct PaddedPlane {
  int64_t H, W, PH, PW, pt, pl;  // the input, the padded plane, its top and left pads
  int64_t OH, OW, KH, KW, sh, dh, dw;
  int64_t sw, SW;  // a padded row is sw phases of SW columns: phase q holds columns q, q + sw, ...
  float lo, hi;    // the activation's bounds
  int64_t pitch() const { return sw * SW; }
  // Where tap kw's input for output column 0 lies in a padded row.
  int64_t tap(int64_t kw) const { return kw * dw % sw * SW + kw * dw / sw; }
};

using Floats8 = float __attribute__((vector_size(32)));
using Ints8 = int32_t __attribute__((vector_size(32)));

// The taps' weights: for kK, broadcast once per plane into registers (the
// stores to y could alias k, so they were read again for every group of
// columns); else read from k.
template <int kK>
struct Taps {
  Floats8 w[kK * kK];
  [[gnu::always_inline]] explicit Taps(const float* k) {
    for (int t = 0; t < kK * kK; ++t) w[t] = Floats8{} + k[t];
  }
  [[gnu::always_inline]] const Floats8& at(int64_t t) const { return w[t]; }
};
template <>
struct Taps<0> {
  const float* k;
  explicit Taps(const float* k) : k(k) {}
  [[gnu::always_inline]] float at(int64_t t) const { return k[t]; }
};

// kK: a square kK x kK kernel known at compile time, whose taps unroll
// (3x3 is MobileNet's); 0: p.KH x p.KW at run time.
template <int kVecs, int kK>
[[gnu::always_inline]] inline void padded_columns(const PaddedPlane& p, const float* src, const Taps<kK>& k, float bias,
                                                  float* out) {
  const int64_t KH = kK ? kK : p.KH, KW = kK ? kK : p.KW;
  Floats8 acc[kVecs];
  for (int v = 0; v < kVecs; ++v) acc[v] = Floats8{} + bias;
  for (int64_t kh = 0; kh < KH; ++kh) {
    const float* row = src + kh * p.dh * p.pitch();
    for (int64_t kw = 0; kw < KW; ++kw) {
      const Floats8 wv = Floats8{} + k.at(kh * KW + kw);  // a scalar is broadcast
      const float* at = row + p.tap(kw);
#pragma GCC unroll 8
      for (int v = 0; v < kVecs; ++v) {
        Floats8 in;
        std::memcpy(&in, at + 8 * v, sizeof in);
        acc[v] += wv * in;
      }
    }
  }
  for (int v = 0; v < kVecs; ++v) {
    clamp_keep_nan(acc[v], p.lo, p.hi);
    std::memcpy(out + 8 * v, &acc[v], sizeof acc[v]);
  }
}

// A row's columns: 32 at a time, the rest of the whole vectors in one
// call, then the last 8 over columns already done: with 8 at a time,
// [1, 128, 56, 56]'s three last vectors of each row took most of the time
// in loop overhead.
template <int kK>
[[gnu::always_inline]] inline void padded_rows(const PaddedPlane& p, const float* xp, const float* weights, float bias,
                                               float* y) {
  const Taps<kK> k(weights);
  for (int64_t oh = 0; oh < p.OH; ++oh) {
    const float* src = xp + oh * p.sh * p.pitch();
    float* yr = y + oh * p.OW;
    int64_t ow = 0;
    for (; ow + 32 <= p.OW; ow += 32) padded_columns<4, kK>(p, src + ow, k, bias, yr + ow);
    switch ((p.OW - ow) / 8) {
      case 3: padded_columns<3, kK>(p, src + ow, k, bias, yr + ow); break;
      case 2: padded_columns<2, kK>(p, src + ow, k, bias, yr + ow); break;
      case 1: padded_columns<1, kK>(p, src + ow, k, bias, yr + ow); break;
      default: break;
    }
    ow += (p.OW - ow) / 8 * 8;
    if (ow < p.OW) padded_columns<1, kK>(p, src + p.OW - 8, k, bias, yr + p.OW - 8);
  }
}

// A row's few pad floats, and the floats after a row's whole vectors, in
// plain stores: std::fill and memcpy of run-time sizes were library calls,
// four a row, which took 15% of [1, 128, 56, 56] 3x3.
[[gnu::always_inline]] inline void zero_few(float* d, int64_t n) {
  if (n > 8) return (void)std::fill(d, d + n, 0.f);
  for (int64_t i = 0; i < 8; ++i)
    if (i < n) d[i] = 0.f;
}

[[gnu::always_inline]] inline void copy_row(float* d, const float* s, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) std::memcpy(d + i, s + i, 8 * sizeof(float));
  for (int64_t j = 0; j < 8; ++j)
    if (i + j < n) d[i + j] = s[i + j];
}

// Writes every float of the padded plane xp: plane x, zeros around it. A
// stride-2 row goes straight from x into its two phases, x's even columns
// into one and its odd ones into the other (which is which depends on the
// left pad's parity). Copying the row into a scratch row first and
// splitting that made every split load wait on the copy's stores, and
// zeroing the buffer for each range of planes was a tenth of the time
// ([1, 96, 112, 112] 3x3/2).
[[gnu::always_inline]] inline void fill_padded(const PaddedPlane& p, const float* x, float* xp) {
  const int64_t pitch = p.pitch();
  std::fill(xp, xp + p.pt * pitch, 0.f);
  std::fill(xp + (p.pt + p.H) * pitch, xp + p.PH * pitch, 0.f);
  const int64_t q0 = p.pl & 1, lo0 = (p.pl - q0) / 2, lo1 = (p.pl - (q0 ^ 1) + 1) / 2;
  const int64_t n0 = (p.W + 1) / 2, n1 = p.W / 2;  // x's even and odd columns
  for (int64_t h = 0; h < p.H; ++h) {
    float* dst = xp + (h + p.pt) * pitch;
    const float* src = x + h * p.W;
    if (p.sw == 1) {
      zero_few(dst, p.pl);
      copy_row(dst + p.pl, src, p.W);
      zero_few(dst + p.pl + p.W, pitch - p.pl - p.W);
      continue;
    }
    float* ph0 = dst + q0 * p.SW;  // x's even columns from lo0 on
    float* ph1 = dst + (q0 ^ 1) * p.SW;
    zero_few(ph0, lo0);
    zero_few(ph0 + lo0 + n0, p.SW - lo0 - n0);
    zero_few(ph1, lo1);
    zero_few(ph1 + lo1 + n1, p.SW - lo1 - n1);
    float *even = ph0 + lo0, *odd = ph1 + lo1;
    int64_t j = 0;
    for (; 2 * j + 16 <= p.W; j += 8) {
      Floats8 a, b;
      std::memcpy(&a, src + 2 * j, sizeof a);
      std::memcpy(&b, src + 2 * j + 8, sizeof b);
      const Floats8 e = __builtin_shuffle(a, b, Ints8{0, 2, 4, 6, 8, 10, 12, 14});
      const Floats8 o = __builtin_shuffle(a, b, Ints8{1, 3, 5, 7, 9, 11, 13, 15});
      std::memcpy(even + j, &e, sizeof e);
      std::memcpy(odd + j, &o, sizeof o);
    }
    for (; 2 * j < p.W; ++j) {
      even[j] = src[2 * j];
      if (2 * j + 1 < p.W) odd[j] = src[2 * j + 1];
    }
  }
}

// Needs OW >= 8. x86-64-v3 and v4 bring FMA, which plain "avx2" left out
// (a multiply and an add per tap). `xp`: the padded buffer, or null to read
// x in place (stride 1, no pads).
SY_TARGET_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")
void depthwise_plane_padded(const PaddedPlane& p, const float* x, float* xp, const float* k, float bias, float* y) {
  if (xp) {
    fill_padded(p, x, xp);
    x = xp;
  }
  if (p.KH == 3 && p.KW == 3) return padded_rows<3>(p, x, k, bias, y);
  padded_rows<0>(p, x, k, bias, y);
}

void depthwise_planes(const float* X, const float* W, const float* B, float* Y, int64_t N, int64_t C, const Window& w,
                      const ConvActivation& act) {
  const int64_t KW = w.k[2], sw = w.stride[2];
  std::vector<int64_t> off(static_cast<size_t>(KW)), lo(off.size()), hi(off.size());
  for (int64_t kw = 0; kw < KW; ++kw) {
    const auto i = static_cast<size_t>(kw);
    const ColumnSpan c = column_span(w, kw);
    off[i] = c.off;
    lo[i] = c.lo;
    hi[i] = c.hi;
  }
  const DepthwisePlane p{w.in[1], w.in[2], w.out[1], w.out[2], w.k[1], KW,        w.stride[1],
                         sw,      w.dil[1], w.pad_b[1], off.data(), lo.data(), hi.data()};
  const int64_t PH = w.in[1] + w.pad_b[1] + w.pad_e[1], PW = w.in[2] + w.pad_b[2] + w.pad_e[2];
  if ((sw == 1 || sw == 2) && w.out[2] >= 8 && PH <= kMaxPaddedPlane / (PW + 1)) {
    const PaddedPlane pp{p.H,        p.W,         PH,         PW,      w.pad_b[1], w.pad_b[2],  w.out[1],
                         w.out[2],   w.k[1],      KW,         w.stride[1], w.dil[1], w.dil[2], sw,
                         (PW + sw - 1) / sw, act.lower(), act.upper()};
    const bool in_place = sw == 1 && PH == p.H && PW == p.W;
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, N * C), [&](const tbb::blocked_range<int64_t>& r) {
      // fill_padded writes all of it.
      std::unique_ptr<float[]> xp(in_place ? nullptr : new float[static_cast<size_t>(PH * pp.pitch())]);
      for (int64_t nc = r.begin(); nc < r.end(); ++nc) {
        const int64_t c = nc % C;
        depthwise_plane_padded(pp, X + nc * p.H * p.W, xp.get(), W + c * p.KH * p.KW, B ? B[c] : 0.f,
                               Y + nc * p.OH * p.OW);
      }
    });
    return;
  }
  tbb::parallel_for(int64_t{0}, N * C, [&](int64_t nc) {
    const int64_t c = nc % C;
    depthwise_plane(p, X + nc * p.H * p.W, W + c * p.KH * p.KW, B ? B[c] : 0.f, Y + nc * p.OH * p.OW);
    act.apply(Y + nc * p.OH * p.OW, p.OH * p.OW);
  });
}

// Channel blocks: the planes of 16 channels are interleaved, a pixel's 16
// channels side by side, in a band of zero-padded input rows. One vector
// then holds one pixel of 16 channels, a tap is one multiply-add with the
// 16 channels' weights, and 16 output pixels are summed in 16 registers
// and transposed back into the 16 channels' rows. Strides, dilations and
// narrow planes cost nothing extra here, where depthwise_plane runs them a
// scalar at a time: [1, 96, 112, 112] 3x3 stride 2 took 353 us there,
// [1, 960, 7, 7] 3x3 197 (ONNX Runtime: 117 and 31). Long rows of stride 2
// have since gone to the padded rows (depthwise_conv, below).
constexpr int64_t kLanes = 16;
constexpr int64_t kBandBytes = int64_t{64} << 10;  // a band stays in L2

using Floats16 = float __attribute__((vector_size(64)));
using Ints16 = int32_t __attribute__((vector_size(64)));

// Transposes 16 vectors of 16 in place, swapping one bit of the row index
// with the same bit of the column index per level. Everything here must
// inline into its target_clones caller: a call taking vectors by value
// passes them in the clone's registers to a default-target callee, which
// reads them from memory (a -O0 build computed zeros).
[[gnu::always_inline]] inline void transpose16(Floats16 (&r)[kLanes]) {
  auto level = [&](int b, Ints16 lo, Ints16 hi) __attribute__((always_inline)) {
    for (int i = 0; i < kLanes; ++i)
      if (!(i & b)) {
        const Floats16 a = r[i], c = r[i + b];
        r[i] = __builtin_shuffle(a, c, lo);
        r[i + b] = __builtin_shuffle(a, c, hi);
      }
  };
  level(8, Ints16{0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23},
        Ints16{8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31});
  level(4, Ints16{0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27},
        Ints16{4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31});
  level(2, Ints16{0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29},
        Ints16{2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31});
  level(1, Ints16{0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30},
        Ints16{1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31});
}

struct BlockPlan {
  int64_t H, W, OH, OW, KH, KW, sh, sw, dh, dw, ph, pw;
  int64_t PW;         // band row length in pixels: every column a window reads
  int64_t band_rows;  // output rows per band
  int64_t in_rows;    // input rows a band reads
  float lo, hi;       // the activation's bounds
};

// Input rows [ih0, ih0 + p.in_rows) of channels [0, cn) (planes of x, H*W
// apart) into band[(r * PW + col) * 16 + lane]; rows and columns outside the
// input, and lanes past cn, are zero. 16 columns at a time, transposed in
// registers; a row's last group may write up to 15 columns past the row,
// into the next row (written after it) or the band's slack.
[[gnu::always_inline]] inline void pack_band(const BlockPlan& p, const float* x, int64_t cn, int64_t ih0,
                                             float* band) {
  const int64_t plane = p.H * p.W, iw_end = std::min(p.W, p.PW - p.pw);
  for (int64_t r = 0; r < p.in_rows; ++r) {
    float* dst = band + r * p.PW * kLanes;
    const int64_t ih = ih0 + r;
    if (ih < 0 || ih >= p.H || iw_end <= 0) {
      std::fill(dst, dst + p.PW * kLanes, 0.f);
      continue;
    }
    const float* src = x + ih * p.W;
    for (int64_t iw = 0; iw < iw_end; iw += kLanes) {
      // Whole vectors while they stay inside the plane (past the row they
      // read the next row, whose columns the padding then overwrites);
      // element by element at the plane's end, where x may end, in a loop
      // of fixed length: one of n elements became `rep movsq`, whose start
      // took a fifth of [1, 960, 7, 7]'s time.
      const bool whole = ih * p.W + iw + kLanes <= plane;
      const int64_t n = std::min(kLanes, iw_end - iw);
      Floats16 v[kLanes];
      for (int64_t l = 0; l < kLanes; ++l) {
        v[l] = Floats16{};
        if (l >= cn) continue;
        if (whole) {
          std::memcpy(&v[l], src + l * plane + iw, sizeof v[l]);
        } else {
#pragma GCC unroll 16
          for (int64_t q = 0; q < kLanes; ++q)
            if (q < n) v[l][q] = src[l * plane + iw + q];
        }
      }
      transpose16(v);
      std::memcpy(dst + (p.pw + iw) * kLanes, v, sizeof v);
    }
    std::fill(dst, dst + p.pw * kLanes, 0.f);
    std::fill(dst + (p.pw + iw_end) * kLanes, dst + p.PW * kLanes, 0.f);
  }
}

// Output rows [oh0, oh0 + rows) of channels [0, cn) (planes of y) from the
// band that starts at input row oh0 * sh - ph, 16 pixels at a time in the
// order they lie in y, rows running on into the next, so that a plane
// narrower than 16 columns ([1, 960, 7, 7]) fills the vectors too. wk: the
// 16 channels' weights per tap.
[[gnu::always_inline]] inline void band_pixels(const BlockPlan& p, const float* band, const float* wk,
                                               Floats16 bias, int64_t cn, int64_t oh0, int64_t rows, float* y) {
  const int64_t plane = p.OH * p.OW, end = (oh0 + rows) * p.OW;
  int64_t oh = oh0, ow = 0;  // of the next group's first pixel
  for (int64_t pix0 = oh0 * p.OW; pix0 < end; pix0 += kLanes) {
    const int64_t valid = std::min(kLanes, end - pix0);
    // Each pixel's window corner in the band; past `valid`, the last valid
    // pixel's again, so that every read stays inside the band.
    int64_t at[kLanes];
    for (int64_t q = 0; q < kLanes; ++q) {
      at[q] = ((oh - oh0) * p.sh * p.PW + ow * p.sw) * kLanes;
      if (q + 1 < valid && ++ow == p.OW) {
        ow = 0;
        ++oh;
      }
    }
    if (++ow == p.OW) {  // the group's last valid pixel was at (oh, ow - 1)
      ow = 0;
      ++oh;
    }
    Floats16 acc[kLanes];
    for (int64_t q = 0; q < kLanes; ++q) acc[q] = bias;
    for (int64_t kh = 0; kh < p.KH; ++kh)
      for (int64_t kw = 0; kw < p.KW; ++kw) {
        Floats16 wv;
        std::memcpy(&wv, wk + (kh * p.KW + kw) * kLanes, sizeof wv);
        const float* tap = band + (kh * p.dh * p.PW + kw * p.dw) * kLanes;
#pragma GCC unroll 16
        for (int64_t q = 0; q < kLanes; ++q) {
          Floats16 in;
          std::memcpy(&in, tap + at[q], sizeof in);
          acc[q] += wv * in;
        }
      }
    for (int64_t q = 0; q < kLanes; ++q) clamp_keep_nan(acc[q], p.lo, p.hi);
    transpose16(acc);
    if (valid == kLanes) {
      for (int64_t l = 0; l < cn; ++l) std::memcpy(y + l * plane + pix0, &acc[l], sizeof acc[l]);
    } else {
      // A loop, not a memcpy of a run-time size: that became `rep movsq`,
      // which took 18% of [1, 96, 112, 112] stride 2 starting up.
      for (int64_t l = 0; l < cn; ++l)
        for (int64_t q = 0; q < valid; ++q) y[l * plane + pix0 + q] = acc[l][q];
    }
  }
}

// One task: a band of output rows of one block of 16 channels of one image.
SY_TARGET_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")
void depthwise_block_band(const BlockPlan& p, const float* x, const float* W, const float* B, int64_t cn, int64_t oh0,
                          float* y, float* band) {
  const int64_t taps = p.KH * p.KW;
  // Plain floats: a std::vector of 64-byte vectors came back 16-byte
  // aligned, and the vectors' aligned loads faulted.
  std::vector<float> wk(static_cast<size_t>(taps * kLanes), 0.f);
  Floats16 bias{};
  for (int64_t l = 0; l < cn; ++l) {
    for (int64_t t = 0; t < taps; ++t) wk[static_cast<size_t>(t * kLanes + l)] = W[l * taps + t];
    if (B) bias[l] = B[l];
  }
  pack_band(p, x, cn, oh0 * p.sh - p.ph, band);
  band_pixels(p, band, wk.data(), bias, cn, oh0, std::min(p.band_rows, p.OH - oh0), y);
}

// False, having done nothing, where one band would pass kMaxBandFloats (a
// very long row).
constexpr int64_t kMaxBandFloats = int64_t{1} << 22;  // 16 MiB a thread

bool depthwise_blocks(const float* X, const float* W, const float* B, float* Y, int64_t N, int64_t C,
                      const Window& w, const ConvActivation& act) {
  BlockPlan p{w.in[1],  w.in[2],  w.out[1],   w.out[2],   w.k[1], w.k[2], w.stride[1], w.stride[2],
              w.dil[1], w.dil[2], w.pad_b[1], w.pad_b[2], 0,      0,      0,           act.lower(), act.upper()};
  p.PW = (p.OW - 1) * p.sw + (p.KW - 1) * p.dw + 1;
  if (p.PW > kMaxBandFloats / kLanes / ((p.KH - 1) * p.dh + 1)) return false;
  const int64_t span = (p.KH - 1) * p.dh + 1;  // input rows under one output row
  const int64_t fit = std::max<int64_t>(span, kBandBytes / (p.PW * kLanes * int64_t{sizeof(float)}));
  p.band_rows = std::min(p.OH, (fit - span) / p.sh + 1);
  p.in_rows = (p.band_rows - 1) * p.sh + span;
  const size_t band_floats = static_cast<size_t>((p.in_rows * p.PW + kLanes) * kLanes);  // with pack_band's slack
  const int64_t blocks = (C + kLanes - 1) / kLanes, bands = (p.OH + p.band_rows - 1) / p.band_rows;
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, N * blocks * bands), [&](const tbb::blocked_range<int64_t>& r) {
    std::unique_ptr<float[]> band(new float[band_floats]);  // pack_band writes all that is read
    for (int64_t t = r.begin(); t < r.end(); ++t) {
      const int64_t n = t / (blocks * bands), c0 = t / bands % blocks * kLanes, oh0 = t % bands * p.band_rows;
      const int64_t cn = std::min(kLanes, C - c0);
      depthwise_block_band(p, X + (n * C + c0) * p.H * p.W, W + c0 * p.KH * p.KW, B ? B + c0 : nullptr, cn, oh0,
                           Y + (n * C + c0) * p.OH * p.OW, band.get());
    }
  });
  return true;
}

}  // namespace

void depthwise_conv(const float* X, const float* W, const float* B, float* Y, int64_t N, int64_t C, const Window& w,
                    const ConvActivation& act) {
  // Rows of stride 1 and 8 or more columns vectorise along the row as well,
  // and so do long rows of stride 2, whose splitting into even and odd
  // columns costs less there than the blocks' transposes: [1, 96, 112, 112]
  // and [1, 32, 224, 224] 3x3 took 198 and 279 us by rows against 228 and
  // 397 in blocks, [1, 144, 56, 56] and [1, 64, 64, 64] 107 and 64 against
  // 94 and 56 (32 columns or fewer).
  // But "same" padding goes first to masked loads along the flattened plane
  // (stride 1) or its four phases (stride 2), where the CPU has AVX-512: 16
  // columns a vector, and any window unrolled as well as 3x3
  // ([1, 960, 7, 7]: 18 us in blocks, 7 so; [1, 384, 14, 14] 59 by rows, 24
  // so; [1, 32, 112, 112] 130 and 106; 5x5 [1, 240, 28, 28] 605 and 109;
  // stride 2 [1, 144, 56, 56] 93 and 57, [1, 32, 224, 224] 343 and 247).
  if (depthwise_flat(X, W, B, Y, N, C, w, act)) return;
  const int64_t OW = w.out[2];
  if ((w.stride[2] == 1 && OW >= 8) || (w.stride[2] == 2 && OW >= 48) || !depthwise_blocks(X, W, B, Y, N, C, w, act))
    depthwise_planes(X, W, B, Y, N, C, w, act);
}

}  // namespace sy::nn

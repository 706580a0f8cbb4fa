#include "devices/cpu/kernels/pointwise_conv.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstdint>

#include "devices/cpu/kernels/avx512.h"
#include "devices/cpu/kernels/tensor_common.h"
#include "devices/host_allocator.h"

namespace sy::nn {

#if defined(__x86_64__)
namespace {

// A 1x1 convolution is Y[n] = W X[n], [M, C] by [C, P], with X's rows (one
// channel's pixels) contiguous. oneDNN's plain-layout convolution and its
// sgemm pack X (and W) on every call, and the clamp took a pass of its
// own. Here X is read in place: a tile of up to 8 output channels by 32
// pixels sums in 16 registers, one broadcast weight and two vectors of X
// per channel, and W is read in place too, a row per output channel. At
// MobileNetV2's sizes, with its Clip, that took 35-45% less ([1, 16, 112,
// 112] to 96: 305 us to 162; [1, 24, 56, 56] to 144: 125 to 80; [1, 32, 28,
// 28] to 192: 55 to 34). Without a clamp, oneDNN alone is up to 15% faster
// on these (store-bound here), but in the network this kernel's placement
// of the work (below) won that back.

// Channels a pass: X's panel of 256 by 32 pixels (32 KiB) stays in L1.
constexpr int64_t kMaxDepth = 256;

struct Pass {
  const float* w;  // the tile's first row of W, from the pass's first channel
  const float* x;  // the tile's first pixel of X, from the pass's first channel
  float* y;        // the tile's first output
  const float* z;  // the tile's first residual, or null
  const float* b;  // the tile's first bias, or null
  int64_t C;       // W's row length
  int64_t ldx;     // x's row length: P, or 32 in a tail's copy
  int64_t ldy;     // y's and z's row lengths: P, or 32 in a tail's copies
  int64_t depth;   // channels in this pass
  bool first, last;
  __m512 lo, hi;  // the activation's bounds
};

// MR output channels by NV vectors of 16 pixels: the sums start from the
// bias on a tile's first pass, from y after, and are clamped on its last.
// A NaN stays: max and min return their second operand when either is
// NaN. The loops unroll, so that every sum stays in a register. No masks:
// with masked loads of a tail's pixels here, GCC kept X's vectors and the
// masks on the stack, so a tail is copied in and out (step(), below).
template <int MR, int NV>
__attribute__((target("avx512f"), always_inline)) inline void tile(const Pass& t) {
  __m512 acc[MR][NV];
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v)
      acc[i][v] = t.first ? _mm512_set1_ps(t.b ? t.b[i] : 0.f) : _mm512_loadu_ps(t.y + i * t.ldy + 16 * v);
  const float* x = t.x;
  for (int64_t c = 0; c < t.depth; ++c, x += t.ldx) {
    const __m512 x0 = _mm512_loadu_ps(x);
    const __m512 x1 = NV == 2 ? _mm512_loadu_ps(x + 16) : x0;
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      const __m512 wv = _mm512_set1_ps(t.w[i * t.C + c]);
      acc[i][0] = _mm512_fmadd_ps(wv, x0, acc[i][0]);
      if constexpr (NV == 2) acc[i][1] = _mm512_fmadd_ps(wv, x1, acc[i][1]);
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) {
      __m512 r = acc[i][v];
      if (t.last) {
        if (t.z) r = _mm512_add_ps(r, _mm512_loadu_ps(t.z + i * t.ldy + 16 * v));
        r = _mm512_min_ps(t.hi, _mm512_max_ps(t.lo, r));
      }
      _mm512_storeu_ps(t.y + i * t.ldy + 16 * v, r);
    }
}

// `rows` rows of 32 floats at dst (64-byte aligned) from rows `ld` apart
// at src, the lanes m0 and m1 leave out zero: a tail's zero-padded copy.
__attribute__((target("avx512f"), always_inline)) inline void copy_tail(float* dst, const float* src, int64_t ld,
                                                                        int64_t rows, __mmask16 m0, __mmask16 m1) {
  for (int64_t i = 0; i < rows; ++i) {
    _mm512_store_ps(dst + i * 32, _mm512_maskz_loadu_ps(m0, src + i * ld));
    _mm512_store_ps(dst + i * 32 + 16, _mm512_maskz_loadu_ps(m1, src + i * ld + 16));
  }
}

// One tile of MR output channels at t, then t moved past it. A tail
// (kTail: under 32 pixels, m0 and m1 masking Y's two vectors) goes through
// a copy of its tile of Y, 32 floats a row.
template <int MR, int NV, bool kTail>
__attribute__((target("avx512f"), always_inline)) inline void step(Pass& t, __mmask16 m0, __mmask16 m1) {
  if constexpr (kTail) {
    alignas(64) float y[MR * 32], z[MR * 32];
    if (!t.first) copy_tail(y, t.y, t.ldy, MR, m0, m1);
    if (t.z && t.last) copy_tail(z, t.z, t.ldy, MR, m0, m1);
    Pass u = t;
    u.y = y;
    u.z = t.z ? z : nullptr;
    u.ldy = 32;
    tile<MR, NV>(u);
    for (int i = 0; i < MR; ++i) {
      _mm512_mask_storeu_ps(t.y + i * t.ldy, m0, _mm512_load_ps(y + i * 32));
      _mm512_mask_storeu_ps(t.y + i * t.ldy + 16, m1, _mm512_load_ps(y + i * 32 + 16));
    }
  } else {
    tile<MR, NV>(t);
  }
  t.w += MR * t.C;
  t.y += MR * t.ldy;
  if (t.z) t.z += MR * t.ldy;
  if (t.b) t.b += MR;
}

// The pass's m output channels, 8 at a time, then 4, 2 and 1.
template <int NV, bool kTail>
__attribute__((target("avx512f"), always_inline)) inline void rows(Pass t, int64_t m, __mmask16 m0, __mmask16 m1) {
  for (; m >= 8; m -= 8) step<8, NV, kTail>(t, m0, m1);
  if (m >= 4) step<4, NV, kTail>(t, m0, m1), m -= 4;
  if (m >= 2) step<2, NV, kTail>(t, m0, m1), m -= 2;
  if (m >= 1) step<1, NV, kTail>(t, m0, m1);
}

// Output channels [m0, m1) by pixels [p0, p0 + 32) of one image, in passes
// of up to kMaxDepth channels, each over all the block's rows so that X's
// panel is read from L1 after the first tile. The panel's lines are
// prefetched first: X has mostly just been written, part of it by other
// cores, and the first tile's loads waited on its lines one by one (a 1x1
// after a depthwise convolution, [1, 576, 14, 14] to 96: 104 us against
// 92, and 96 so).
__attribute__((target("avx512f"))) void block(const float* X, const float* W, const float* B, const float* Z, float* Y,
                                              int64_t C, int64_t P, int64_t depth, int64_t p0, int64_t m0, int64_t m1,
                                              const ConvActivation& act) {
  const int64_t cols = std::min<int64_t>(32, P - p0);
  const __mmask16 k0 = avx512::first_lanes(cols), k1 = avx512::first_lanes(std::max<int64_t>(cols - 16, 0));
  alignas(64) float tail[kMaxDepth * 32];
  for (int64_t c0 = 0; c0 < C; c0 += depth) {
    Pass t{.w = W + m0 * C + c0,
           .x = X + c0 * P + p0,
           .y = Y + m0 * P + p0,
           .z = Z ? Z + m0 * P + p0 : nullptr,
           .b = B ? B + m0 : nullptr,
           .C = C,
           .ldx = P,
           .ldy = P,
           .depth = std::min(depth, C - c0),
           .first = c0 == 0,
           .last = c0 + depth >= C,
           .lo = _mm512_set1_ps(act.lower()),
           .hi = _mm512_set1_ps(act.upper())};
    for (int64_t c = 0; c < t.depth; ++c) {
      _mm_prefetch(reinterpret_cast<const char*>(t.x + c * P), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(t.x + c * P + 16), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(t.x + c * P + 31), _MM_HINT_T0);
    }
    if (cols == 32) {
      rows<2, false>(t, m1 - m0, k0, k1);
      continue;
    }
    // The tail's pixels of X, zero-padded to 32 a row.
    copy_tail(tail, t.x, P, t.depth, k0, k1);
    t.x = tail;
    t.ldx = 32;
    if (cols > 16) {
      rows<2, true>(t, m1 - m0, k0, k1);
    } else {
      rows<1, true>(t, m1 - m0, k0, k1);
    }
  }
}

// Planes [0, planes) of X at w's strides into plain planes of w.out at g:
// a strided 1x1 window reads only those pixels (ResNet's shortcuts, 1x1/2:
// oneDNN took 132 us for [1, 64, 56, 56] to 128, this 45).
void gather_strided(const float* X, float* g, int64_t planes, const Window& w) {
  const int64_t in = w.in_size(), out = w.out_size();
  tensor_ops::for_row_ranges(planes, out, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const float* x = X + i * in;
      float* d = g + i * out;
      for (int64_t od = 0; od < w.out[0]; ++od)
        for (int64_t oh = 0; oh < w.out[1]; ++oh) {
          const float* row = x + (od * w.stride[0] * w.in[1] + oh * w.stride[1]) * w.in[2];
          for (int64_t ow = 0; ow < w.out[2]; ++ow) *d++ = row[ow * w.stride[2]];
        }
    }
  });
}

}  // namespace
#endif

bool pointwise_conv(const float* X, const float* W, const float* B, const float* Z, float* Y, int64_t N, int64_t C,
                    int64_t M, const Window& w, const ConvActivation& act) {
#if defined(__x86_64__)
  const int64_t P = w.out_size();
  // Deep products to fewer channels, from 512 input channels, did better
  // in oneDNN's own blocking, by 5% ([1, 1024, 14, 14] to 256: 330 us
  // against 350; [1, 960, 7, 7] to 320: 133 against 142).
  if (!avx512::supported() || P < 32 || C <= 0 || M <= 0 || N <= 0 || (C >= 512 && M < C)) return false;
  BufferRef gathered;
  if (w.stride != Arr3{1, 1, 1}) {
    auto buf = HostAllocator::host().allocate(static_cast<size_t>(N * C * P) * sizeof(float));
    if (!buf.ok()) return false;
    gathered = std::move(*buf);
    float* const g = static_cast<float*>(gathered->data);
    gather_strided(X, g, N * C, w);
    X = g;
  }
  const int64_t passes = (C + kMaxDepth - 1) / kMaxDepth, depth = (C + passes - 1) / passes;
  // Two tasks for every core: shares of an image's output channels, each
  // over all the pixels, so that a core writes whole planes of Y, which
  // the next node (a depthwise convolution, split by planes) then finds in
  // its own cache. Tasks of 32 pixels each wrote every plane from every
  // core, and the next node's reads across cores cost it 20-30%
  // ([1, 144, 56, 56] 3x3/2 after a 1x1: 60 us to 76). But a share has 48
  // channels or more, so that a panel of X serves 6 tiles: with fewer
  // channels ([1, 144, 56, 56] to 24), X's reads, from every core's cache,
  // took twice as long, and the pixels are shared out too.
  const int64_t col_blocks = (P + 31) / 32, cores = tbb::this_task_arena::max_concurrency();
  const int64_t eights = (M + 7) / 8, tasks_per_image = (2 * cores + N - 1) / N;
  const int64_t parts = std::clamp<int64_t>(std::min(tasks_per_image, eights / 6), 1, eights);
  const int64_t part_rows = (eights + parts - 1) / parts * 8;
  const int64_t col_parts = std::min(col_blocks, (tasks_per_image + parts - 1) / parts);
  const int64_t part_cols = (col_blocks + col_parts - 1) / col_parts;
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, N * parts * col_parts), [&](const tbb::blocked_range<int64_t>& r) {
    for (int64_t t = r.begin(); t < r.end(); ++t) {
      const int64_t n = t / (parts * col_parts), part = t / col_parts % parts, cp = t % col_parts;
      const int64_t m0 = part * part_rows, m1 = std::min(M, m0 + part_rows);
      for (int64_t cb = cp * part_cols; cb < std::min(col_blocks, (cp + 1) * part_cols) && m0 < m1; ++cb)
        block(X + n * C * P, W, B, Z ? Z + n * M * P : nullptr, Y + n * M * P, C, P, depth, cb * 32, m0, m1, act);
    }
  });
  return true;
#else
  return false;
#endif
}

}  // namespace sy::nn

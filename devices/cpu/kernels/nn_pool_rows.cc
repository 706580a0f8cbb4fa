// Row pooling for nn_pool.cc: see nn_pool_rows.h.
#include "devices/cpu/kernels/nn_pool_rows.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <vector>

#include "devices/cpu/kernels/target_clones.h"

namespace sy::nn {

// A dilated window is worked out in 128 bits: the dilation may be
// anywhere in int64.
Span span(const Window& w, int j, int64_t start) {
  const int64_t k = w.k[j], in = w.in[j];
  if (w.dil[j] == 1) {
    // The usual case, with no division. No overflow: in - start is at
    // most the padded input size, which resolve_window() checked fits.
    const int64_t lo = std::clamp<int64_t>(-start, 0, k);
    return {lo, std::clamp<int64_t>(in - start, lo, k), std::clamp<int64_t>(in + w.pad_e[j] - start, 0, k)};
  }
  using Wide = __int128;
  const Wide s = start, d = w.dil[j];
  const Wide lo = s >= 0 ? 0 : (-s + d - 1) / d;
  const Wide hi = s >= in ? 0 : std::min<Wide>(k, (in - 1 - s) / d + 1);
  const Wide padded = std::clamp<Wide>((in + w.pad_e[j] - s + d - 1) / d, 0, k);
  const Wide first = std::min<Wide>(lo, k);
  return {static_cast<int64_t>(first), static_cast<int64_t>(std::max(first, hi)), static_cast<int64_t>(padded)};
}

namespace {

// One plane's rows of a float MaxPool or AveragePool over two spatial axes
// (a 3-D window's input planes are reduced to one first) without
// dilation. Such a window is a rectangle clipped to the input, so an
// output row reduces its window's input rows into one row padded at both
// ends, then each output reduces its window's columns of that row. Both
// are loops over contiguous floats that vectorise, where oneDNN's
// fallback for plain layouts ran one output at a time on one thread.
struct PoolRows {
  const float* x;  // the plane's input, rows of in_w
  float* y;        // the plane's output, rows of out_w
  int64_t in_w, out_w, k_h, k_w, s_h, s_w, pb_h, pb_w;
  const Span* rows;   // per output row, its window's input rows
  const float* cols;  // AveragePool: per output column, the divisor's column factor
  bool max, include_pad;
  float count_d = 1;  // AveragePool: the divisor's depth factor (3-D windows)
};

// Rows a block of pool_rows() takes at most: the padded rows of a block
// are all reduced before any is read back, because loads that straddle
// stores still in flight (window offsets 1 and 2 of a row just written)
// wait for them: a row at a time ran 3x slower than oneDNN on 28 columns.
constexpr int64_t kPoolBlockFloats = 8192;

// d[i] = op(a[i], b[i]) for i < n, then d[i] = op(d[i], c[i]) for each
// further source c: the first two fused, because a copy (memmove, of
// other store widths) followed by loads of the same bytes stalls as well.
template <bool kMax, typename Next>
[[gnu::always_inline]] inline void reduce_into(float* __restrict d, int64_t n, int64_t count, Next&& next) {
  const float* __restrict a = next(0);
  if (count == 1) {
    std::copy(a, a + n, d);
    return;
  }
  const float* __restrict b = next(1);
  for (int64_t i = 0; i < n; ++i) d[i] = kMax ? max_nan(a[i], b[i]) : a[i] + b[i];
  for (int64_t c = 2; c < count; ++c) {
    const float* __restrict src = next(c);
    for (int64_t i = 0; i < n; ++i) d[i] = kMax ? max_nan(d[i], src[i]) : d[i] + src[i];
  }
}

// Where pool_rows() keeps a block's rows: the padded rows first, then (for
// a stride above 1) their phases, phase by phase, then the reduced rows.
struct PoolLayout {
  int64_t width, phase_len, phases, reduced, total;
  PoolLayout(const PoolRows& p, int64_t rows) {
    const int64_t s = p.s_w;
    width = (p.out_w - 1) * s + p.k_w;
    phase_len = (width + s - 1) / s;
    phases = rows * width;
    reduced = phases + (s == 1 ? 0 : s * rows * phase_len);
    total = reduced + rows * phase_len;
  }
};

// AveragePool: y[o] = sum[o] over the count of output row oh's window o
// (sum may be y).
[[gnu::always_inline]] inline void average_row(const PoolRows& p, int64_t oh, const float* sum, float* y) {
  const Span r = p.rows[oh];
  const float count_h = p.count_d * static_cast<float>(p.include_pad ? r.padded : r.hi - r.lo);
  for (int64_t o = 0; o < p.out_w; ++o) {
    const float div = count_h * p.cols[o];
    y[o] = div > 0 ? sum[o] / div : 0.f;
  }
}

template <bool kMax>
[[gnu::always_inline]] inline void pool_padded_rows(const PoolRows& p, int64_t oh0, int64_t oh1,
                                                     float* __restrict buf) {
  const float identity = kMax ? -std::numeric_limits<float>::infinity() : 0.f;
  // A padded row: identity before and after the input's columns. A stride
  // of s splits it into s phases (columns s*i + phase), so that a window's
  // column j is phase j % s at i + j / s. The block's rows of one phase lie
  // end to end, so each tap is one run over the whole block (a row at a
  // time, loop overheads dominated rows of 28). Each step runs over the
  // whole block before the next reads its results.
  const int64_t s = p.s_w, rows = oh1 - oh0;
  const PoolLayout l(p, rows);
  const int64_t used = std::min(p.in_w, l.width - p.pb_w);  // input columns the windows reach
  float* __restrict padded = buf;
  for (int64_t i = 0; i < rows; ++i) {
    float* __restrict t = padded + i * l.width;
    std::fill(t, t + p.pb_w, identity);
    std::fill(t + p.pb_w + used, t + l.width, identity);
    const Span r = p.rows[oh0 + i];
    const float* x0 = p.x + ((oh0 + i) * p.s_h - p.pb_h + r.lo) * p.in_w;
    reduce_into<kMax>(t + p.pb_w, used, r.hi - r.lo, [&](int64_t c) { return x0 + c * p.in_w; });
  }
  const float* phases = padded;
  if (s == 2) {
    float* __restrict even = buf + l.phases;
    float* __restrict odd = even + rows * l.phase_len;
    for (int64_t i = 0; i < rows; ++i) {
      const float* __restrict t = padded + i * l.width;
      if (l.width % 2) even[i * l.phase_len + l.phase_len - 1] = t[l.width - 1];
      for (int64_t q = 0; q < l.width / 2; ++q) {
        even[i * l.phase_len + q] = t[2 * q];
        odd[i * l.phase_len + q] = t[2 * q + 1];
      }
      if (l.width % 2) odd[i * l.phase_len + l.phase_len - 1] = identity;
    }
    phases = even;
  } else if (s > 2) {
    float* __restrict ph = buf + l.phases;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t q = 0; q < s * l.phase_len; ++q)
        ph[((q % s) * rows + i) * l.phase_len + q / s] = q < l.width ? padded[i * l.width + q] : identity;
    phases = ph;
  }
  float* __restrict reduced = buf + l.reduced;
  const int64_t n = (rows - 1) * l.phase_len + p.out_w;
  reduce_into<kMax>(reduced, n, p.k_w, [&](int64_t j) { return phases + (j % s) * rows * l.phase_len + j / s; });
  for (int64_t i = 0; i < rows; ++i) {
    const float* __restrict z = reduced + i * l.phase_len;
    float* __restrict y = p.y + (oh0 + i) * p.out_w;
    if (kMax)
      std::copy(z, z + p.out_w, y);
    else
      average_row(p, oh0 + i, z, y);
  }
}

// Rows [a, b) of a window with unit strides whose windows hold all their
// rows. Consecutive output rows then read consecutive input rows, so the
// rows reduce as one run over the block, and its columns as another over
// the reduced rows end to end; the windows that overlap the padding (or,
// in that run, the next row) are redone alone. Rows of 28 columns took
// twice oneDNN's time a row at a time (pool_padded_rows).
template <bool kMax>
[[gnu::always_inline]] inline void pool_unit_stride_rows(const PoolRows& p, int64_t a, int64_t b,
                                                          float* __restrict buf) {
  const int64_t rows = b - a, in_w = p.in_w, k_h = p.k_h, k_w = p.k_w;
  // With as many output columns as input ones (pads adding k_w - 1), the
  // run over the reduced rows lands where the output rows want it.
  const bool in_place = p.out_w == in_w;
  float* __restrict u = buf;
  float* __restrict z = in_place ? p.y + a * p.out_w + p.pb_w : buf + rows * in_w;
  const float* x0 = p.x + (a - p.pb_h) * in_w;
  reduce_into<kMax>(u, rows * in_w, k_h, [&](int64_t c) { return x0 + c * in_w; });
  reduce_into<kMax>(z, rows * in_w - (k_w - 1), k_w, [&](int64_t j) { return u + j; });
  // Outputs [inner_lo, inner_hi) have every column of their window inside the row.
  const int64_t inner_lo = std::min(p.pb_w, p.out_w);
  const int64_t inner_hi = std::max(inner_lo, std::min(p.out_w, in_w - k_w + p.pb_w + 1));
  for (int64_t i = 0; i < rows; ++i) {
    float* __restrict y = p.y + (a + i) * p.out_w;
    const float* __restrict ur = u + i * in_w;
    if (!in_place) std::copy(z + i * in_w + inner_lo - p.pb_w, z + i * in_w + inner_hi - p.pb_w, y + inner_lo);
    auto edge = [&](int64_t o) {
      float r = kMax ? -std::numeric_limits<float>::infinity() : 0.f;
      for (int64_t c = std::max<int64_t>(0, o - p.pb_w); c < std::min(in_w, o - p.pb_w + k_w); ++c)
        r = kMax ? max_nan(r, ur[c]) : r + ur[c];
      y[o] = r;
    };
    for (int64_t o = 0; o < inner_lo; ++o) edge(o);
    for (int64_t o = inner_hi; o < p.out_w; ++o) edge(o);
    if (!kMax) average_row(p, a + i, y, y);
  }
}

template <bool kMax>
[[gnu::always_inline]] inline void pool_rows_as(const PoolRows& p, int64_t oh0, int64_t oh1, float* __restrict buf) {
  // Its two buffers of rows of in_w fit the layout's rows of the padded
  // width when there are two or more output columns (with one, s_w is 1
  // whatever the model's stride).
  if (p.s_h == 1 && p.s_w == 1 && p.out_w > 1) {
    // The rows whose windows hold every row of the kernel lie in one run.
    auto full = [&](int64_t oh) { return p.rows[oh].lo == 0 && p.rows[oh].hi == p.k_h; };
    int64_t a = oh0, b = oh1;
    while (a < b && !full(a)) ++a;
    while (b > a && !full(b - 1)) --b;
    if (b - a >= 2) {
      pool_padded_rows<kMax>(p, oh0, a, buf);
      pool_unit_stride_rows<kMax>(p, a, b, buf);
      pool_padded_rows<kMax>(p, b, oh1, buf);
      return;
    }
  }
  pool_padded_rows<kMax>(p, oh0, oh1, buf);
}

// `buf` holds PoolLayout(p, oh1 - oh0).total floats.
SY_TARGET_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")
void pool_rows(const PoolRows& p, int64_t oh0, int64_t oh1, float* buf) {
  if (p.max)
    pool_rows_as<true>(p, oh0, oh1, buf);
  else
    pool_rows_as<false>(p, oh0, oh1, buf);
}

// dst[i] = op over c < count of src[c * stride + i], for i < n: a 3-D
// window's input planes reduced to one.
SY_TARGET_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")
void reduce_planes(bool max, float* dst, int64_t n, int64_t count, const float* src, int64_t stride) {
  auto next = [&](int64_t c) { return src + c * stride; };
  if (max)
    reduce_into<true>(dst, n, count, next);
  else
    reduce_into<false>(dst, n, count, next);
}

}  // namespace

bool pool_float_rows(const Window& w, bool max, bool count_include_pad, int64_t planes, const float* X, float* Y) {
  for (int j = 0; j < 3; ++j)
    // Padding narrower than the window bounds the padded row's width by
    // the input's plus two windows and a stride, and puts an input row
    // and column in every window (resolve_window() starts the last one
    // inside the input).
    if (w.dil[j] != 1 || w.pad_b[j] >= w.k[j] || w.pad_e[j] >= w.k[j] || w.k[j] > w.in[j]) return false;
  std::vector<Span> rows(static_cast<size_t>(w.out[1]));
  for (int64_t oh = 0; oh < w.out[1]; ++oh) rows[oh] = span(w, 1, oh * w.stride[1] - w.pad_b[1]);
  std::vector<float> cols(static_cast<size_t>(w.out[2]));
  for (int64_t ow = 0; ow < w.out[2]; ++ow) {
    const Span c = span(w, 2, ow * w.stride[2] - w.pad_b[2]);
    cols[ow] = static_cast<float>(count_include_pad ? c.padded : c.hi - c.lo);
  }
  // One output column makes its stride moot, and a model's huge one would
  // size the phase buffers; with two or more, the stride is at most the
  // padded input's width.
  const int64_t s_w = w.out[2] == 1 ? 1 : w.stride[2];
  PoolRows p{nullptr,     nullptr, w.in[2],    w.out[2],   w.k[1],      w.k[2],
             w.stride[1], s_w,     w.pad_b[1], w.pad_b[2], rows.data(), cols.data(),
             max,         count_include_pad};
  const int64_t out_h = w.out[1];
  // About 16K window elements per task, so that small planes go several
  // to a task and one large plane still splits by rows.
  const int64_t row_work = std::max<int64_t>(1, w.out[2] * w.k[1] * w.k[2]);
  const int64_t grain = std::max<int64_t>(1, 16384 / row_work);
  const int64_t block = std::max<int64_t>(1, kPoolBlockFloats / PoolLayout(p, 1).total);
  if (w.in[0] > 1) {
    // A 3-D window: per output depth, its input planes reduced to one,
    // which the rows of a 2-D window then pool. A task takes whole output
    // planes, each reducing its input planes once.
    const int64_t in_plane = w.in[1] * w.in[2], out_plane = w.out[1] * w.out[2], out_d = w.out[0];
    const int64_t plane_grain = std::max<int64_t>(1, grain / std::max<int64_t>(1, out_h));
    const tbb::blocked_range<int64_t> all(0, planes * out_d, plane_grain);
    tbb::parallel_for(all, [&](const tbb::blocked_range<int64_t>& r) {
      std::unique_ptr<float[]> buf(new float[static_cast<size_t>(PoolLayout(p, std::min(block, out_h)).total)]);
      std::unique_ptr<float[]> depth(new float[static_cast<size_t>(in_plane)]);
      for (int64_t i = r.begin(); i < r.end(); ++i) {
        const Span d = span(w, 0, i % out_d * w.stride[0] - w.pad_b[0]);
        const float* src = X + (i / out_d * w.in[0] + i % out_d * w.stride[0] - w.pad_b[0] + d.lo) * in_plane;
        PoolRows q = p;
        q.count_d = static_cast<float>(count_include_pad ? d.padded : d.hi - d.lo);
        q.x = src;
        if (d.hi - d.lo > 1) {
          reduce_planes(max, depth.get(), in_plane, d.hi - d.lo, src, in_plane);
          q.x = depth.get();
        }
        q.y = Y + i * out_plane;
        for (int64_t oh0 = 0; oh0 < out_h; oh0 += block) pool_rows(q, oh0, std::min(out_h, oh0 + block), buf.get());
      }
    });
    return true;
  }
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, planes * out_h, grain), [&](const tbb::blocked_range<int64_t>& r) {
    // Uninitialised: every float is written before it is read.
    std::unique_ptr<float[]> buf(
        new float[static_cast<size_t>(PoolLayout(p, std::min<int64_t>(block, static_cast<int64_t>(r.size()))).total)]);
    for (int64_t i = r.begin(); i < r.end();) {
      const int64_t plane = i / out_h, oh0 = i % out_h;
      const int64_t oh1 = std::min({out_h, oh0 + (r.end() - i), oh0 + block});
      PoolRows q = p;
      q.x = X + plane * w.in[1] * w.in[2];
      q.y = Y + plane * out_h * w.out[2];
      pool_rows(q, oh0, oh1, buf.get());
      i += oh1 - oh0;
    }
  });
  return true;
}

}  // namespace sy::nn

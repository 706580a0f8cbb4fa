// CPU DeformConv (opsets 19 and 22), 1-D to 3-D, float, double and the
// half types (computed in float).
//
// A deformable convolution is a convolution whose every kernel tap reads
// the input at its regular position moved by a learnt fractional offset,
// linearly interpolated along each spatial axis (zero outside the input),
// and weighted by an optional mask. It runs as a deformable im2col
// followed by one GEMM a group:
//   1. the sampling geometry, for each offset group, tap and output
//      position its 2^n interpolation corners (input index, weight times
//      mask), depends only on the offsets, so it is built once an image and
//      offset group and shared by that group's channels;
//   2. each output position's column row (taps by channels) sums those
//      corners over the image with its channels last, so a corner reads
//      a run of consecutive channels;
//   3. Y[group] = W[group] (reordered to taps by channels) x the column
//      rows^T + B.
// The ONNX reference samples through GridSample with align_corners=1,
// which maps pixel coordinates onto themselves, so taps are interpolated
// in pixel coordinates directly (the reference divides by zero on an axis
// of length 1). Beyond it: a NaN offset yields NaN; an infinite one reads
// zeros, like any tap outside the input.
//
// Thread-safety: compute() is const and uses only attributes parsed in init().
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "devices/cpu/kernels/nn_common.h"
#include "devices/cpu/kernels/reduction_common.h"
#include "devices/cpu/kernels/target_clones.h"

namespace sy::nn {
namespace {

using reduce_detail::ComputeT;
using reduce_detail::kIsHalf;
using reduce_detail::load;
using reduce_detail::store;
using reduce_detail::visit_float;

// One interpolation corner of a tap: where it reads (an element of one
// input channel, or -1 for a corner outside the input, which reads a zero)
// and with what weight, mask included.
template <typename C>
struct Corner {
  int64_t index;
  C weight;
};

// Output positions are taken a tile at a time, so that the column rows
// and the corner table stay bounded (and in the caches) whatever the
// output's size: a tile's column rows, and its corners, number about this
// many.
constexpr int64_t kColumnBudget = int64_t{1} << 20;

// The corners of each (offset group, tap, output position in [o0, o1)) of
// image n, in that order, 2^nsp a position.
template <typename T, typename C>
void sampling_corners(const T* offset, const T* mask, int64_t n, int64_t offset_groups, const Window& w, int64_t o0,
                      int64_t o1, Corner<C>* table) {
  const int nsp = w.nsp, first = kMaxSpatial - nsp;  // the real spatial axes are [first, 3) of the window
  const int64_t K = w.k_size(), O = w.out_size(), corners = int64_t{1} << nsp, tile = o1 - o0;
  tbb::parallel_for(int64_t{0}, offset_groups * K, [&](int64_t gk) {
    const int64_t k = gk % K;
    const Arr3 kpos{k / (w.k[1] * w.k[2]), k / w.k[2] % w.k[1], k % w.k[2]};
    const T* off = offset + (n * offset_groups * K + gk) * nsp * O;
    const T* msk = mask ? mask + (n * offset_groups * K + gk) * O : nullptr;
    Corner<C>* out = table + gk * tile * corners;
    for (int64_t o = o0; o < o1; ++o, out += corners) {
      const Arr3 opos{o / (w.out[1] * w.out[2]), o / w.out[2] % w.out[1], o % w.out[2]};
      const C m = msk ? C(load(msk[o])) : C(1);
      // Per axis: the lower corner, the fraction past it, and whether it
      // and its neighbour are in the input.
      int64_t lo[kMaxSpatial];
      C frac[kMaxSpatial];
      bool lo_in[kMaxSpatial], hi_in[kMaxSpatial];
      bool nan = false;
      for (int s = 0; s < nsp; ++s) {
        const int a = first + s;
        const C p = C(opos[a] * w.stride[a] - w.pad_b[a] + kpos[a] * w.dil[a]) + C(load(off[s * O + o]));
        nan = nan || std::isnan(p);
        // Outside (-1, in) neither corner is in the input; the test also
        // keeps NaNs and infinities from the integer conversion.
        if (!(p > C(-1) && p < C(w.in[a]))) {
          lo[s] = 0;
          frac[s] = C(0);
          lo_in[s] = hi_in[s] = false;
          continue;
        }
        const C f = std::floor(p);
        lo[s] = static_cast<int64_t>(f);
        frac[s] = p - f;
        lo_in[s] = lo[s] >= 0;
        hi_in[s] = lo[s] + 1 < w.in[a];
      }
      for (int64_t c = 0; c < corners; ++c) {
        int64_t index = 0;
        C weight = m;
        bool inside = true;
        for (int s = 0; s < nsp; ++s) {
          const bool hi = (c >> s) & 1;
          index = index * w.in[first + s] + lo[s] + (hi ? 1 : 0);
          weight *= hi ? frac[s] : C(1) - frac[s];
          inside = inside && (hi ? hi_in[s] : lo_in[s]);
        }
        if (nan) out[c] = {0, std::numeric_limits<C>::quiet_NaN()};
        else out[c] = inside ? Corner<C>{index, weight} : Corner<C>{-1, C(0)};
      }
    }
  });
}

// The column rows of one group for positions [o0, o1) of a tile, one
// row a position: KC entries, tap-major, each the sum of its corners over
// the image with its channels last (xt). A corner then reads a run of
// consecutive channels, and the sum over a run is a vector multiply-add.
// Channels planar (each entry a scalar sum of gathered corners) took
// 56% of a [1, 64, 28, 28] 3x3 call, which ran 1.26x ONNX Runtime's time.
template <typename C>
struct RowJob {
  const C* xt;               // [in_size, channels]
  int64_t channels;          // xt's row length
  const Corner<C>* table;    // this tile's corners, as sampling_corners lays them out
  int64_t K, tile, corners;  // taps, the tile's positions, corners a tap
  int64_t c0, Cg;            // the group's first channel and channel count
  int64_t per_offset_group;  // channels an offset group
  const C* zeros;            // [Cg] zeros: what a corner outside the input reads
  C* rows;                   // [tile, K, Cg]
};

template <int kCorners, typename C>
[[gnu::always_inline]] inline void column_rows_impl(const RowJob<C>& j, int64_t o0, int64_t o1) {
  for (int64_t o = o0; o < o1; ++o) {
    C* row = j.rows + o * j.K * j.Cg;
    for (int64_t k = 0; k < j.K; ++k, row += j.Cg) {
      // The group's channels, a run of one offset group at a time.
      for (int64_t cl = 0, run_end; cl < j.Cg; cl = run_end) {
        const int64_t og = (j.c0 + cl) / j.per_offset_group;
        run_end = std::min(j.Cg, (og + 1) * j.per_offset_group - j.c0);
        const Corner<C>* q = j.table + ((og * j.K + k) * j.tile + o) * kCorners;
        if (run_end - cl == 1) {  // one channel an offset group: a vector loop's set-up would dominate
          C v = 0;
          for (int i = 0; i < kCorners; ++i)
            if (q[i].index >= 0) v += q[i].weight * j.xt[q[i].index * j.channels + j.c0 + cl];
          row[cl] = v;
          continue;
        }
        // Each entry summed in a register over the corners, and stored
        // once. Accumulating in `row` corner by corner stored and reloaded
        // it between reads of xt, and where the two buffers' addresses
        // matched modulo 4 KiB every reload waited on the store: some
        // processes ran [1, 64, 28, 28] 3x3 in 0.59 ms instead of 0.30.
        // A corner outside the input reads zeros with weight 0; the sum is
        // the one of the corners inside, bit for bit (v + 0 * 0 is v).
        const C* src[kCorners];
        C wq[kCorners];
        for (int i = 0; i < kCorners; ++i) {
          const bool inside = q[i].index >= 0;
          src[i] = inside ? j.xt + q[i].index * j.channels + j.c0 : j.zeros;
          wq[i] = inside ? q[i].weight : C(0);
        }
        for (int64_t c = cl; c < run_end; ++c) {
          C v = 0;
          for (int i = 0; i < kCorners; ++i) v += wq[i] * src[i][c];
          row[c] = v;
        }
      }
    }
  }
}

// A fixed corner count (2^spatial axes) unrolls the corner loop.
template <typename C>
[[gnu::always_inline]] inline void column_rows_any(const RowJob<C>& j, int64_t o0, int64_t o1) {
  switch (j.corners) {
    case 2:
      column_rows_impl<2>(j, o0, o1);
      break;
    case 4:
      column_rows_impl<4>(j, o0, o1);
      break;
    default:
      column_rows_impl<8>(j, o0, o1);
      break;
  }
}

SY_TARGET_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")
void column_rows(const RowJob<float>& j, int64_t o0, int64_t o1) { column_rows_any(j, o0, o1); }
SY_TARGET_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")
void column_rows(const RowJob<double>& j, int64_t o0, int64_t o1) { column_rows_any(j, o0, o1); }

// xt [in_size, C] = image n of x [N, C, in_size], in the compute type.
template <typename T, typename C>
void channels_last(const T* x, int64_t channels, int64_t in_size, C* xt) {
  constexpr int64_t kBlock = 64;  // positions a task: a block of xt's rows
  tbb::parallel_for(int64_t{0}, (in_size + kBlock - 1) / kBlock, [&](int64_t b) {
    const int64_t s0 = b * kBlock, s1 = std::min(in_size, s0 + kBlock);
    for (int64_t c = 0; c < channels; ++c) {
      const T* xc = x + c * in_size;
      for (int64_t p = s0; p < s1; ++p) xt[p * channels + c] = C(load(xc[p]));
    }
  });
}

// Y[M, tile] (ldy apart) += W[M, KC] x rows[tile, KC]^T.
Status gemm(int64_t M, int64_t tile, int64_t KC, const float* W, const float* rows, float* Y, int64_t ldy) {
  return sgemm('N', 'T', M, tile, KC, 1.f, W, KC, rows, KC, 1.f, Y, ldy);
}
Status gemm(int64_t M, int64_t tile, int64_t KC, const double* W, const double* rows, double* Y, int64_t ldy) {
  return dgemm('N', 'T', M, tile, KC, 1.0, W, KC, rows, KC, 1.0, Y, ldy);
}

class DeformConvKernel final : public Kernel {
 public:
  Status init(const Node& node) override { return attrs_.parse(node); }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const DeformConvPlan p, plan_deform_conv(ctx, attrs_));
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), p.s.out));
    if (y->numel() == 0) return OkStatus();
    Status st;
    visit_float(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      st = run<T>(x.data<T>(), ctx.input(1), p.offset->data<T>(), p.mask ? p.mask->data<T>() : nullptr, p.bias, p.s,
                  y->data<T>());
    });
    return st;
  }

 private:
  template <typename T>
  Status run(const T* x, const Tensor& wt, const T* offset, const T* mask, const Tensor* b, const ConvShape& s,
             T* y) const {
    using C = ComputeT<T>;
    const Window& w = s.w;
    const int64_t K = w.k_size(), O = w.out_size(), in_size = w.in_size(), corners = int64_t{1} << w.nsp;
    const int64_t Cg = s.C / attrs_.group, Mg = s.M / attrs_.group, KC = Cg * K,
                  per_offset_group = s.C / attrs_.offset_groups;
    const int64_t per_position = std::max<int64_t>({KC, attrs_.offset_groups * K * corners, 1});
    const int64_t tile = std::clamp<int64_t>(kColumnBudget / per_position, 1, O);
    // W [M, Cg, K] as [M, K, Cg], the order of a column row.
    const auto weights = std::make_unique_for_overwrite<C[]>(static_cast<size_t>(s.M * KC));
    const T* wp = wt.data<T>();
    tbb::parallel_for(int64_t{0}, s.M, [&](int64_t m) {
      for (int64_t k = 0; k < K; ++k)
        for (int64_t c = 0; c < Cg; ++c) weights[(m * K + k) * Cg + c] = C(load(wp[(m * Cg + c) * K + k]));
    });
    const std::vector<C> bias = b ? reduce_detail::read_floats<C>(*b) : std::vector<C>(static_cast<size_t>(s.M));
    // The halves accumulate an image in float, then store it.
    std::vector<C> acc(kIsHalf<T> ? static_cast<size_t>(s.M * O) : 0);
    // All written before they are read: uninitialised (zeroing them cost
    // 7% of a call).
    const auto rows = std::make_unique_for_overwrite<C[]>(static_cast<size_t>(KC * tile));
    const auto table =
        std::make_unique_for_overwrite<Corner<C>[]>(static_cast<size_t>(attrs_.offset_groups * K * tile * corners));
    const auto xt = std::make_unique_for_overwrite<C[]>(static_cast<size_t>(KC > 0 ? s.C * in_size : 0));
    const std::vector<C> zeros(static_cast<size_t>(Cg), C(0));
    for (int64_t n = 0; n < s.N; ++n) {
      C* yn = acc.data();
      if constexpr (!kIsHalf<T>) yn = y + n * s.M * O;
      for (int64_t m = 0; m < s.M; ++m) std::fill(yn + m * O, yn + (m + 1) * O, bias[static_cast<size_t>(m)]);
      // No input elements (no channels, or an empty image): every tap reads
      // a zero, and Y is the bias.
      if (KC > 0 && in_size > 0) {
        channels_last(x + n * s.C * in_size, s.C, in_size, xt.get());
        for (int64_t o0 = 0; o0 < O; o0 += tile) {
          const int64_t o1 = std::min(O, o0 + tile), t = o1 - o0;
          sampling_corners<T, C>(offset, mask, n, attrs_.offset_groups, w, o0, o1, table.get());
          for (int64_t g = 0; g < attrs_.group; ++g) {
            const RowJob<C> job{xt.get(),         s.C,          table.get(), K, t, corners, g * Cg, Cg,
                                per_offset_group, zeros.data(), rows.get()};
            // Positions a task: about 16K column entries.
            const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 14) / KC);
            tbb::parallel_for(tbb::blocked_range<int64_t>(0, t, grain),
                              [&](const tbb::blocked_range<int64_t>& r) { column_rows(job, r.begin(), r.end()); });
            RETURN_IF_ERROR(gemm(Mg, t, KC, weights.get() + g * Mg * KC, rows.get(), yn + g * Mg * O + o0, O));
          }
        }
      }
      if constexpr (kIsHalf<T>)
        for (int64_t i = 0; i < s.M * O; ++i) y[n * s.M * O + i] = store<T>(acc[static_cast<size_t>(i)]);
    }
    return OkStatus();
  }

  DeformConvAttrs attrs_;
};

}  // namespace

Status DeformConvAttrs::parse(const Node& node) {
  RETURN_IF_ERROR(window.parse(node));
  group = node.attr_int("group", 1);
  offset_groups = node.attr_int("offset_group", 1);
  if (offset_groups < 1)
    return InvalidArgument(node.describe(), ": offset_group must be positive, got ", offset_groups);
  return OkStatus();
}

StatusOr<DeformConvPlan> plan_deform_conv(const KernelContext& ctx, const DeformConvAttrs& a) {
  const Node& node = ctx.node();
  const Tensor& x = ctx.input(0);
  const Tensor& wt = ctx.input(1);
  DeformConvPlan p;
  ASSIGN_OR_RETURN(p.s, conv_shape(a.window, a.group, x, wt, node.describe()));
  const ConvShape& s = p.s;
  if (wt.dtype() != x.dtype())
    return InvalidArgument(node.describe(), ": W must have X's type ", dtype_name(x.dtype()), ", got ", wt.describe());
  if (s.C % a.offset_groups != 0)
    return InvalidArgument(node.describe(), ": ", s.C, " input channels do not divide into ", a.offset_groups,
                           " offset groups");
  const int64_t K = s.w.k_size();
  auto check_map = [&](size_t i, const char* what, int64_t per_tap) -> StatusOr<const Tensor*> {
    if (!ctx.has_input(i)) return nullptr;
    const Tensor& t = ctx.input(i);
    Dims want = s.out;
    want[1] = a.offset_groups * K * per_tap;
    if (t.dtype() != x.dtype() || t.dims() != want)
      return InvalidArgument(node.describe(), ": ", what, " must be ", dtype_name(x.dtype()), want.to_string(),
                             " for this input, kernel, padding, strides and offset_group, got ", t.describe());
    return &t;
  };
  ASSIGN_OR_RETURN(p.offset, check_map(2, "offset", s.w.nsp));
  if (!p.offset) return InvalidArgument(node.describe(), ": input offset is required");
  ASSIGN_OR_RETURN(p.mask, check_map(4, "mask", 1));
  p.bias = ctx.has_input(3) ? &ctx.input(3) : nullptr;
  if (p.bias && (p.bias->rank() != 1 || p.bias->numel() != s.M || p.bias->dtype() != x.dtype()))
    return InvalidArgument(node.describe(), ": B must be ", dtype_name(x.dtype()), " [", s.M, "], got ",
                           p.bias->describe());
  return p;
}

void register_deform_conv_kernels(KernelRegistry& r) {
  add_kernel(r, "DeformConv", 19, make_kernel<DeformConvKernel>, reduce_detail::float_types());
}

}  // namespace sy::nn

// CPU image kernels: GridSample, AffineGrid (opset 20) and Col2Im (18).
//
// GridSample (opset 16 on 4-D inputs; from opset 20 N-D, here up to 3
// spatial dimensions) follows the ONNX reference implementation
// (onnx/reference/ops/op_grid_sample.py), which matches onnxruntime:
//   1. the normalized grid coordinate is denormalized (align_corners picks
//      the [0, d-1] or [-0.5, d-0.5] mapping);
//   2. nearest mode rounds it half-to-even (std::nearbyint);
//   3. a coordinate outside the border range is clamped to [0, d-1]
//      (border) or reflected into the range (reflection);
//   4. the interpolation taps (1, 2 or 4 per axis) are read with the padding
//      mode applied to each tap index: zero outside (zeros), clamped
//      (border) or reflected (reflection).
// An output point reads the tensor product of its axes' taps (up to 4^3),
// listed once and shared by its channels. Cubic uses Keys' kernel with
// alpha = -0.75.
//
// Beyond the reference (which raises or divides by zero there):
//   - a NaN grid coordinate yields NaN;
//   - an infinite coordinate reads zeros (zeros padding), clamps (border)
//     or yields NaN (reflection);
//   - reflection on an axis of length 1 with align_corners=1 maps to 0;
//   - an empty spatial input gives zeros with zeros padding and is an
//     InvalidArgument error otherwise.
//
// The per-axis rules live in grid_sample_axis.h and the checks in
// grid_sample_plan.h, shared with the CUDA kernel.
//
// Thread-safety: compute() is const and uses only attributes parsed in init().
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "devices/cpu/cpu_kernels.h"
#include "devices/cpu/kernels/col2im_plan.h"
#include "devices/cpu/kernels/grid_sample_plan.h"
#include "devices/cpu/kernels/reduction_common.h"
#include "devices/cpu/kernels/tap_gather.h"
#include "devices/cpu/kernels/tensor_common.h"
#include "devices/kernel.h"

namespace sy {
namespace {

// Arithmetic in ComputeT: double for double tensors, float otherwise.
using reduce_detail::ComputeT;
using reduce_detail::load;
using reduce_detail::store;
using reduce_detail::visit_float;

using grid_sample::Axis;
using grid_sample::PaddingMode;
using grid_sample::SampleMode;

class GridSampleKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(a_, grid_sample::parse_attrs(node));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const grid_sample::Plan p, grid_sample::plan(ctx, a_));
    Status st;
    visit_float(ctx.input(0).dtype(), [&](auto tag) {
      using T = decltype(tag);
      st = run<T>(ctx, p);
    });
    return st;
  }

 private:
  template <typename T>
  Status run(KernelContext& ctx, const grid_sample::Plan& plan) const {
    using A = ComputeT<T>;
    const Tensor& x = ctx.input(0);
    const Tensor& grid = ctx.input(1);
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), plan.out_dims));
    T* po = out->data<T>();
    const int64_t total = out->numel();
    if (total == 0) return OkStatus();
    if (plan.plane_in == 0) {  // zeros padding (plan() refused the others)
      std::fill(po, po + total, store<T>(A(0)));
      return OkStatus();
    }
    // The grid as arithmetic-type values.
    std::vector<A> g(static_cast<size_t>(grid.numel()));
    visit_float(grid.dtype(), [&](auto gtag) {
      using G = decltype(gtag);
      const G* pg = grid.data<G>();
      for (size_t i = 0; i < g.size(); ++i) g[i] = static_cast<A>(load(pg[i]));
    });
    // Offsets within a channel in 32 bits where they fit, which halves the
    // table and lets float tensors take the vector gathers.
    if (plan.plane_in <= INT32_MAX)
      sample<T, int32_t>(x, plan, g, po);
    else
      sample<T, int64_t>(x, plan, g, po);
    return OkStatus();
  }

  // For each output point: the taps along each spatial axis, then their
  // tensor product as (element offset in a channel, weight) pairs, shared
  // by every channel, in tap_gather's table layout.
  template <typename T, typename Off>
  void sample(const Tensor& x, const grid_sample::Plan& plan, const std::vector<ComputeT<T>>& g, T* po) const {
    using A = ComputeT<T>;
    const int64_t n_batch = x.dim(0), channels = x.dim(1);
    const int64_t plane_in = plan.plane_in, pixels = plan.pixels;
    const T* px = x.data<T>();
    const int ntaps = grid_sample::taps_of(a_.mode);
    const int shift = ntaps == 4 ? 2 : ntaps == 2 ? 1 : 0;
    int64_t combos = 1;
    for (int a = 0; a < plan.r; ++a) combos *= ntaps;

    // Tasks of a chunk of an image's points: their taps, then each
    // channel's points in order, so that the output is written
    // contiguously (a point's channels in turn wrote `pixels` apart:
    // [1, 64, 56, 56] took 2x ONNX Runtime). A task computes its own taps,
    // so that no task waits for another's (the wait was a sixth of the
    // time), and a chunk's table stays in the L1 cache: at most 4096 taps
    // of 8 to 16 bytes. About four chunks a core; where the image has too
    // few points for one a core, the channels split too.
    const int64_t cores = tbb::this_task_arena::max_concurrency();
    constexpr int64_t kL = tap_gather::kLanes;
    const int64_t max_chunk = std::max<int64_t>(kL, (int64_t{1} << 12) / combos / kL * kL);
    const int64_t chunk = std::clamp<int64_t>((pixels + 4 * cores - 1) / (4 * cores) + kL - 1, kL, max_chunk) / kL * kL;
    const int64_t chunks = (pixels + chunk - 1) / chunk;
    const int64_t cblocks =
        n_batch * chunks >= cores ? 1 : std::min(channels, (2 * cores + n_batch * chunks - 1) / (n_batch * chunks));
    const int64_t per_block = (channels + cblocks - 1) / cblocks;
    const auto table = static_cast<size_t>(tap_gather::table_size(chunk, combos));
    tensor_ops::for_row_ranges(n_batch * chunks * cblocks, chunk * combos * per_block, [&](int64_t begin, int64_t end) {
      std::vector<Off> offs(table);
      std::vector<A> ws(table);
      int64_t built = -1;  // the (image, chunk) whose taps the table holds
      for (int64_t task = begin; task < end; ++task) {
        const int64_t image_chunk = task / cblocks, n = image_chunk / chunks;
        const int64_t p0 = image_chunk % chunks * chunk, points = std::min(chunk, pixels - p0);
        if (image_chunk != built) {
          build_taps(plan, g, n * pixels + p0, points, ntaps, shift, combos, offs.data(), ws.data());
          built = image_chunk;
        }
        const int64_t c0 = task % cblocks * per_block, c1 = std::min(channels, c0 + per_block);
        for (int64_t c = c0; c < c1; ++c) {
          const T* src = px + (n * channels + c) * plane_in;
          T* dst = po + (n * channels + c) * pixels + p0;
          if constexpr (std::is_same_v<T, float> && std::is_same_v<Off, int32_t>) {
            tap_gather::sum(src, offs.data(), ws.data(), combos, points, dst);
          } else {
            tap_gather::sum_scalar(
                src, offs.data(), ws.data(), combos, points, dst, [](T v) { return load(v); },
                [](A v) { return store<T>(v); });
          }
        }
      }
    });
  }

  // The taps of grid points [q0, q0 + points) in tap_gather's layout, and
  // offset -1 in the last group's unused lanes.
  template <typename A, typename Off>
  void build_taps(const grid_sample::Plan& plan, const std::vector<A>& g, int64_t q0, int64_t points, int ntaps,
                  int shift, int64_t combos, Off* offs, A* ws) const {
    const int r = plan.r;
    auto put = [&](int64_t p, int64_t k, int64_t offset, A weight) {
      const int64_t i = tap_gather::slot(p, k, combos);
      offs[i] = static_cast<Off>(offset);
      ws[i] = weight;
    };
    for (int64_t p = points; p % tap_gather::kLanes != 0; ++p)
      for (int64_t k = 0; k < combos; ++k) put(p, k, -1, A(0));
    int64_t idx[grid_sample::kMaxSpatial][4];
    A w[grid_sample::kMaxSpatial][4];
    for (int64_t p = 0; p < points; ++p) {
      const int64_t q = q0 + p;
      // grid[..., 0] is the last spatial axis (x), grid[..., r - 1] the first.
      bool ok = true;
      for (int a = 0; a < r && ok; ++a) {
        const A c =
            plan.axes[a].coordinate(g[static_cast<size_t>(q * r + (r - 1 - a))], a_.align_corners, a_.mode, a_.pad);
        ok = grid_sample::axis_taps(plan.axes[a], c, a_.mode, a_.pad, idx[a], w[a]);
      }
      if (!ok) {  // a NaN sample
        put(p, 0, 0, std::numeric_limits<A>::quiet_NaN());
        for (int64_t k = 1; k < combos; ++k) put(p, k, -1, A(0));
        continue;
      }
      for (int64_t k = 0; k < combos; ++k) {
        int64_t offset = 0, rest = k;
        A weight = A(1);
        // ntaps is 1, 2 or 4: shifts, not divisions, pick the taps.
        for (int a = r - 1; a >= 0 && offset >= 0; --a, rest >>= shift) {
          const int64_t t = rest & (ntaps - 1);
          offset = idx[a][t] < 0 ? -1 : offset + idx[a][t] * plan.stride[a];
          weight *= w[a][t];
        }
        put(p, k, offset, weight);
      }
    }
  }

  grid_sample::Attrs a_;
};

// AffineGrid: for each output position, theta (N x 2 x 3, or N x 3 x 4 in
// 3-D) times its normalised coordinates (x, y[, z], 1), each in [-1, 1]:
// pixel centres, or with align_corners the corner pixels at -1 and 1.
class AffineGridKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    align_corners_ = node.attr_int("align_corners", 0) != 0;
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const grid_sample::AffinePlan p, grid_sample::plan_affine_grid(ctx));
    const Tensor& theta = ctx.input(0);
    ASSIGN_OR_RETURN(Tensor * grid, ctx.allocate_output(0, theta.dtype(), p.out));
    const int64_t dims = p.r;
    visit_float(theta.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* t = theta.data<T>();
      T* g = grid->data<T>();
      int64_t o = 0;
      for (int64_t n = 0; n < p.n; ++n) {
        const T* tn = t + n * dims * (dims + 1);
        for (int64_t zi = 0; zi < p.d; ++zi)
          for (int64_t yi = 0; yi < p.h; ++yi)
            for (int64_t xi = 0; xi < p.w; ++xi) {
              const double c[4] = {coordinate(xi, p.w), coordinate(yi, p.h), dims == 3 ? coordinate(zi, p.d) : 1.0,
                                   1.0};
              for (int64_t r = 0; r < dims; ++r) {
                double v = 0;
                for (int64_t k = 0; k <= dims; ++k)
                  v += static_cast<double>(load(tn[r * (dims + 1) + k])) * c[k == dims ? 3 : k];
                g[o++] = store<T>(static_cast<ComputeT<T>>(v));
              }
            }
      }
    });
    return OkStatus();
  }

 private:
  double coordinate(int64_t i, int64_t n) const { return grid_sample::affine_coordinate(i, n, align_corners_); }

  bool align_corners_ = false;
};

// Col2Im: the inverse of im2col. Input [N, C * prod(block), L] holds, for
// each of the L sliding-block positions, the block's values; each is added
// into its place in the [N, C, image...] output (overlapping blocks sum).
class Col2ImKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    a_ = col2im::parse_attrs(node);
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const col2im::Plan p, col2im::plan(ctx, a_));
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), p.out));
    const size_t n = p.image.size();
    const int64_t kernel = p.kernel, blocks = p.blocks;
    const int64_t plane = p.out.numel() / std::max<int64_t>(1, x.dim(0) * p.channels);
    const bool known = visit_float(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* in = x.data<T>();
      T* o = y->data<T>();
      auto body = [&](int64_t begin, int64_t end) {
        std::vector<ComputeT<T>> acc(static_cast<size_t>(plane));
        Dims kk = Dims::of_rank(n), ll = Dims::of_rank(n);
        for (int64_t nc = begin; nc < end; ++nc) {
          std::fill(acc.begin(), acc.end(), ComputeT<T>(0));
          const T* src = in + nc * kernel * blocks;
          // Each pixel's contributions arrive in increasing k, the order
          // the CUDA kernel sums them in.
          for (int64_t k = 0; k < kernel; ++k) {
            unravel(k, p.block, &kk);
            for (int64_t l = 0; l < blocks; ++l) {
              unravel(l, p.count, &ll);
              int64_t pos = 0;
              bool inside = true;
              for (size_t a = 0; a < n && inside; ++a) {
                const int64_t q = ll[a] * p.str[a] - p.pads[a] + kk[a] * p.dil[a];
                inside = q >= 0 && q < p.image[a];
                pos = pos * p.image[a] + q;
              }
              if (inside) acc[static_cast<size_t>(pos)] += load(src[k * blocks + l]);
            }
          }
          T* dst = o + nc * plane;
          for (int64_t i = 0; i < plane; ++i) dst[i] = store<T>(acc[static_cast<size_t>(i)]);
        }
      };
      tbb::parallel_for(tbb::blocked_range<int64_t>(0, x.dim(0) * p.channels),
                        [&](const tbb::blocked_range<int64_t>& r) { body(r.begin(), r.end()); });
    });
    if (!known)
      return Unimplemented(ctx.node().describe(), ": element type ", dtype_name(x.dtype()),
                           " is not supported (supported: float32, float64, float16, bfloat16)");
    return OkStatus();
  }

 private:
  // i as a multi-index over dims (last fastest).
  static void unravel(int64_t i, const Dims& dims, Dims* idx) {
    for (size_t a = dims.size(); a-- > 0;) {
      (*idx)[a] = i % dims[a];
      i /= dims[a];
    }
  }

  col2im::Attrs a_;
};

KernelDef image_def(const char* op, int since, KernelFactory factory, uint64_t host_inputs = 0) {
  KernelDef d;
  d.op = op;
  d.since_version = since;
  d.device = DeviceKind::kCpu;
  d.types = {DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kBFloat16};
  d.factory = factory;
  d.host_inputs = host_inputs;
  return d;
}

}  // namespace

namespace col2im {

Attrs parse_attrs(const Node& node) {
  Attrs a;
  a.dilations = node.attr_ints("dilations");
  a.pads = node.attr_ints("pads");
  a.strides = node.attr_ints("strides");
  return a;
}

StatusOr<Plan> plan(const KernelContext& ctx, const Attrs& attrs) {
  const Node& node = ctx.node();
  const Tensor& x = ctx.input(0);
  if (!x.defined() || x.rank() != 3)
    return InvalidArgument(node.describe(), ": input must be [N, C * prod(block_shape), L], got ",
                           x.defined() ? x.describe() : std::string("nothing"));
  Plan p;
  ASSIGN_OR_RETURN(p.image, tensor_ops::read_int_list(ctx.input(1), "Col2Im image_shape"));
  ASSIGN_OR_RETURN(p.block, tensor_ops::read_int_list(ctx.input(2), "Col2Im block_shape"));
  const size_t n = p.image.size();
  if (n == 0 || p.block.size() != n)
    return InvalidArgument(node.describe(), ": image_shape and block_shape must have the same, nonzero length, got ", n,
                           " and ", p.block.size());
  auto attr_or = [&](const std::vector<int64_t>& v, size_t len, int64_t dflt, const char* what) -> StatusOr<Dims> {
    if (v.empty()) return Dims(std::vector<int64_t>(len, dflt));
    if (v.size() != len) return InvalidArgument(node.describe(), ": ", what, " must have ", len, " entries");
    return Dims(v);
  };
  ASSIGN_OR_RETURN(p.dil, attr_or(attrs.dilations, n, 1, "dilations"));
  ASSIGN_OR_RETURN(p.pads, attr_or(attrs.pads, 2 * n, 0, "pads"));
  ASSIGN_OR_RETURN(p.str, attr_or(attrs.strides, n, 1, "strides"));
  p.count = Dims::of_rank(n);
  for (size_t k = 0; k < n; ++k) {
    if (p.image[k] < 0 || p.block[k] < 1 || p.dil[k] < 1 || p.str[k] < 1 || p.pads[k] < 0 || p.pads[k + n] < 0)
      return InvalidArgument(node.describe(), ": image_shape must be >= 0, block_shape, dilations and strides >= 1",
                             " and pads >= 0");
    int64_t span = 0, room = 0;
    if (__builtin_mul_overflow(p.dil[k], p.block[k] - 1, &span) || __builtin_add_overflow(span, 1, &span) ||
        __builtin_add_overflow(p.image[k], p.pads[k], &room) || __builtin_add_overflow(room, p.pads[k + n], &room))
      return InvalidArgument(node.describe(), ": the sizes on axis ", k, " overflow");
    if (span > room)
      return InvalidArgument(node.describe(), ": a block spans ", span, " on axis ", k,
                             ", more than the padded image's ", room);
    p.count[k] = (room - span) / p.str[k] + 1;
    if (!checked_mul(p.kernel, p.block[k], &p.kernel) || !checked_mul(p.blocks, p.count[k], &p.blocks))
      return InvalidArgument(node.describe(), ": block_shape and image_shape give more blocks than can be counted");
  }
  if (x.dim(1) % p.kernel != 0)
    return InvalidArgument(node.describe(), ": input dim 1 (", x.dim(1), ") is not a multiple of the block size ",
                           p.kernel);
  if (x.dim(2) != p.blocks)
    return InvalidArgument(node.describe(), ": input dim 2 (", x.dim(2), ") must be the number of blocks, ", p.blocks);
  p.channels = x.dim(1) / p.kernel;
  p.out = Dims{x.dim(0), p.channels};
  for (int64_t v : p.image) p.out.push_back(v);
  return p;
}

}  // namespace col2im

namespace grid_sample {

StatusOr<Attrs> parse_attrs(const Node& node) {
  Attrs a;
  a.align_corners = node.attr_int("align_corners", 0) != 0;
  const bool v20 = node.opset >= 20;
  const std::string mode = node.attr_string("mode", v20 ? "linear" : "bilinear");
  if (mode == (v20 ? "linear" : "bilinear")) {
    a.mode = SampleMode::kLinear;
  } else if (mode == "nearest") {
    a.mode = SampleMode::kNearest;
  } else if (mode == (v20 ? "cubic" : "bicubic")) {
    a.mode = SampleMode::kCubic;
  } else {
    return InvalidArgument(node.describe(), ": unknown mode '", mode, "' (expected ",
                           v20 ? "linear, nearest or cubic" : "bilinear, nearest or bicubic", ")");
  }
  const std::string pad = node.attr_string("padding_mode", "zeros");
  if (pad == "zeros") {
    a.pad = PaddingMode::kZeros;
  } else if (pad == "border") {
    a.pad = PaddingMode::kBorder;
  } else if (pad == "reflection") {
    a.pad = PaddingMode::kReflection;
  } else {
    return InvalidArgument(node.describe(), ": unknown padding_mode '", pad,
                           "' (expected zeros, border or reflection)");
  }
  return a;
}

StatusOr<Plan> plan(const KernelContext& ctx, const Attrs& a) {
  const Node& node = ctx.node();
  for (size_t i = 0; i < 2; ++i)
    if (!ctx.has_input(i) || !ctx.input(i).defined())
      return InvalidArgument(node.describe(), ": input ", i, i == 0 ? " (X)" : " (grid)", " must be a tensor");
  const Tensor& x = ctx.input(0);
  const Tensor& grid = ctx.input(1);
  // Opset 20 made GridSample N-D; before it, X is 4-D.
  if (node.opset < 20 && x.rank() != 4)
    return InvalidArgument(node.describe(), ": X must be 4-D (N,C,H,W), got ", x.describe());
  if (x.rank() < 3)
    return InvalidArgument(node.describe(), ": X must have rank >= 3 (N,C,D1,...), got ", x.describe());
  const size_t r = x.rank() - 2;
  if (r > static_cast<size_t>(kMaxSpatial))
    return Unimplemented(node.describe(), ": at most ", kMaxSpatial, " spatial dimensions are supported, got ",
                         x.describe());
  if (grid.rank() != x.rank() || grid.dim(grid.rank() - 1) != static_cast<int64_t>(r))
    return InvalidArgument(node.describe(), ": grid must have shape (N,", r == 2 ? "H_out,W_out" : "D1_out,...", ",",
                           r, ") for X ", x.describe(), ", got ", grid.describe());
  if (grid.dim(0) != x.dim(0))
    return InvalidArgument(node.describe(), ": batch sizes of X (", x.dim(0), ") and grid (", grid.dim(0),
                           ") differ");
  const DataType gt = grid.dtype();
  if (gt != DataType::kFloat && gt != DataType::kDouble && gt != DataType::kFloat16 && gt != DataType::kBFloat16)
    return InvalidArgument(node.describe(), ": grid must be a floating-point tensor, got ", dtype_name(gt));
  const DataType xt = x.dtype();
  if (xt != DataType::kFloat && xt != DataType::kDouble && xt != DataType::kFloat16 && xt != DataType::kBFloat16)
    return Unimplemented(node.describe(), ": element type ", dtype_name(xt),
                         " is not supported (supported: float32, float64, float16, bfloat16)");
  Plan p;
  p.r = static_cast<int>(r);
  p.out_dims = Dims{x.dim(0), x.dim(1)};
  p.pixels = 1;
  for (size_t k = 0; k < r; ++k) {
    p.out_dims.push_back(grid.dim(k + 1));
    p.pixels *= grid.dim(k + 1);
  }
  p.plane_in = 1;
  for (int k = p.r - 1; k >= 0; --k) {
    const int64_t size = x.dim(static_cast<size_t>(k) + 2);
    p.axes[k] = Axis(size, a.align_corners);
    p.stride[k] = p.plane_in;
    p.plane_in *= size;
  }
  if (p.plane_in == 0 && p.out_dims.numel() > 0 && a.pad != PaddingMode::kZeros)
    return InvalidArgument(node.describe(), ": cannot sample an empty input ", x.describe(),
                           " with border or reflection padding");
  return p;
}

StatusOr<AffinePlan> plan_affine_grid(const KernelContext& ctx) {
  const Node& node = ctx.node();
  const Tensor& theta = ctx.input(0);
  if (!theta.defined()) return InvalidArgument(node.describe(), ": theta is missing");
  const DataType tt = theta.dtype();
  if (tt != DataType::kFloat && tt != DataType::kDouble && tt != DataType::kFloat16 && tt != DataType::kBFloat16)
    return InvalidArgument(node.describe(), ": theta must be a floating-point tensor, got ", theta.describe());
  ASSIGN_OR_RETURN(Dims size, tensor_ops::read_int_list(ctx.input(1), "AffineGrid size"));
  if (size.size() != 4 && size.size() != 5)
    return InvalidArgument(node.describe(), ": size must have 4 (N, C, H, W) or 5 (N, C, D, H, W) entries, got ",
                           size.size());
  AffinePlan p;
  p.r = static_cast<int>(size.size()) - 2;
  if (theta.rank() != 3 || theta.dim(0) != size[0] || theta.dim(1) != p.r || theta.dim(2) != p.r + 1)
    return InvalidArgument(node.describe(), ": theta must be [", size[0], ", ", p.r, ", ", p.r + 1, "], got ",
                           theta.describe());
  p.n = size[0];
  p.out = Dims{size[0]};
  for (size_t k = 2; k < size.size(); ++k) {
    if (size[k] < 0) return InvalidArgument(node.describe(), ": negative size ", size[k]);
    p.out.push_back(size[k]);
  }
  p.out.push_back(p.r);
  // Spatial sizes, x (innermost) first.
  p.w = p.out[p.out.size() - 2];
  p.h = p.out[p.out.size() - 3];
  if (p.r == 3) p.d = p.out[1];
  return p;
}

}  // namespace grid_sample

void register_cpu_image_kernels(KernelRegistry& r) {
  r.add(image_def("GridSample", 16, &make_kernel<GridSampleKernel>));
  r.add(image_def("AffineGrid", 20, &make_kernel<AffineGridKernel>, 1u << 1));
  r.add(image_def("Col2Im", 18, &make_kernel<Col2ImKernel>, (1u << 1) | (1u << 2)));
  register_cpu_image_decoder_kernel(r);
}

}  // namespace sy

// CUDA Resize (opset 10+) and Upsample (7+), DepthToSpace and SpaceToDepth,
// and Hardmax. The CPU kernels are the reference (they pass the ONNX node
// tests): Resize's per-axis plan, output shape and scales are computed here
// on the host expression for expression as devices/cpu/kernels/
// tensor_resize.cc computes them (that logic is private to its .cc, so it
// is repeated below rather than shared; a change there must be made here
// too), then uploaded as small tap tables that the device only gathers and
// sums (resize_launch.h). DepthToSpace and SpaceToDepth are the CPU's
// strided views handed to the movement kernels' copy_view.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "devices/broadcast.h"
#include "devices/cpu/kernels/tensor_common.h"
#include "devices/cpu/kernels/tensor_register.h"
#include "devices/cuda/cuda_launch.h"
#include "devices/cuda/kernels/cuda_kernels.h"
#include "devices/cuda/kernels/movement_common.h"
#include "devices/cuda/kernels/resize_launch.h"

namespace sy::cuda {
namespace {

using tensor_ops::kBit1;
using tensor_ops::kBit2;
using tensor_ops::kBit3;

// ------------------------------------------------------ Resize plan (host)
// Repeated from tensor_resize.cc; keep the two in step.

enum class Mode { kNearest, kLinear, kCubic };
enum class Coord { kHalfPixel, kAsymmetric, kPytorchHalfPixel, kTfHalfPixelForNn, kAlignCorners, kTfCropAndResize,
                   kHalfPixelSymmetric };
enum class Nearest { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil, kSimple };

struct ResizeAttrs {
  Mode mode = Mode::kNearest;
  Coord coord = Coord::kHalfPixel;
  Nearest nearest = Nearest::kRoundPreferFloor;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0.0;
};

const char* mode_name(Mode m) { return m == Mode::kNearest ? "nearest" : m == Mode::kLinear ? "linear" : "cubic"; }

Status parse_mode(const std::string& m, Mode* out) {
  if (m == "nearest") *out = Mode::kNearest;
  else if (m == "linear" || m == "bilinear" || m == "trilinear") *out = Mode::kLinear;
  else if (m == "cubic") *out = Mode::kCubic;
  else return InvalidArgument("Resize: unknown mode '", m, "'");
  return OkStatus();
}

// Per-axis plan: for each output coordinate, `ntaps` source indices (already
// clamped to the input) with weights, and whether it extrapolates.
struct AxisPlan {
  int64_t in = 0, out = 0;
  int ntaps = 1;
  std::vector<int64_t> idx;
  std::vector<double> w;
  std::vector<uint8_t> outside;
  bool any_outside = false;
  bool identity = false;
};

double source_coord(Coord c, double x, double scale, int64_t in, int64_t out_int, double roi_start, double roi_end,
                    bool* outside) {
  double in_d = static_cast<double>(in);
  double out_w = scale * in_d;  // the reference uses the unrounded width here
  switch (c) {
    case Coord::kHalfPixel: return (x + 0.5) / scale - 0.5;
    case Coord::kHalfPixelSymmetric: {
      double adjustment = static_cast<double>(out_int) / out_w;
      double offset = in_d / 2 * (1 - adjustment);
      return offset + (x + 0.5) / scale - 0.5;
    }
    case Coord::kAsymmetric: return x / scale;
    case Coord::kPytorchHalfPixel: return out_w == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
    case Coord::kTfHalfPixelForNn: return (x + 0.5) / scale;
    case Coord::kAlignCorners: return out_w == 1 ? 0.0 : x * (in_d - 1) / (out_w - 1);
    case Coord::kTfCropAndResize: {
      double v = out_w == 1 ? (roi_end - roi_start) * (in_d - 1) / 2
                            : x * (roi_end - roi_start) * (in_d - 1) / (out_w - 1);
      v += roi_start * (in_d - 1);
      *outside = v < 0 || v > in_d - 1;
      return v;
    }
  }
  return x / scale;
}

AxisPlan plan_axis(const ResizeAttrs& a, int64_t in, int64_t out, double scale, double roi_start, double roi_end) {
  AxisPlan p;
  p.in = in;
  p.out = out;
  p.ntaps = a.mode == Mode::kNearest ? 1 : a.mode == Mode::kLinear ? 2 : 4;
  p.idx.resize(static_cast<size_t>(out * p.ntaps));
  p.w.resize(p.idx.size());
  p.outside.assign(static_cast<size_t>(out), 0);
  auto clampi = [in](int64_t i) { return i < 0 ? 0 : i >= in ? in - 1 : i; };
  bool identity = in == out;
  for (int64_t x = 0; x < out; ++x) {
    bool outside = false;
    double xo = source_coord(a.coord, static_cast<double>(x), scale, in, out, roi_start, roi_end, &outside);
    if (!std::isfinite(xo)) xo = 0;
    xo = std::max(-1e15, std::min(1e15, xo));
    p.outside[x] = outside;
    p.any_outside |= outside;
    double fl = std::floor(xo);
    int64_t base = static_cast<int64_t>(fl);
    double ratio = xo - fl;
    if (ratio == 0) {  // the reference prefers the left neighbour: ratio 1 at base - 1
      ratio = 1;
      base -= 1;
    }
    int64_t* ix = &p.idx[x * p.ntaps];
    double* w = &p.w[x * p.ntaps];
    if (a.mode == Mode::kNearest) {
      bool up;  // take base + 1 rather than base
      switch (a.nearest) {
        case Nearest::kRoundPreferFloor: up = ratio > 0.5; break;
        case Nearest::kRoundPreferCeil: up = ratio >= 0.5; break;
        case Nearest::kFloor: up = ratio == 1; break;
        case Nearest::kCeil: up = true; break;
        case Nearest::kSimple:  // ORT's opset-10 rule: ceil when downsampling, else truncate
        default: {
          int64_t s = scale < 1 ? static_cast<int64_t>(std::ceil(xo)) : static_cast<int64_t>(xo);
          ix[0] = clampi(s);
          w[0] = 1;
          identity &= ix[0] == x;
          continue;
        }
      }
      // The reference picks from the edge-padded window [base, base + 1],
      // whose start is clamped to [-1, in - 1].
      int64_t start = std::max<int64_t>(-1, std::min<int64_t>(base, in - 1));
      ix[0] = clampi(up ? start + 1 : start);
      w[0] = 1;
      identity &= ix[0] == x;
      continue;
    }
    double c[4];
    int64_t start;
    if (a.mode == Mode::kLinear) {
      c[0] = 1 - ratio;
      c[1] = ratio;
      start = std::max<int64_t>(-1, std::min<int64_t>(base, in - 1));
    } else {
      double A = a.cubic_a, r = ratio, s = 1 - ratio;
      c[0] = ((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A;
      c[1] = ((A + 2) * r - (A + 3)) * r * r + 1;
      c[2] = ((A + 2) * s - (A + 3)) * s * s + 1;
      c[3] = ((A * (s + 1) - 5 * A) * (s + 1) + 8 * A) * (s + 1) - 4 * A;
      start = std::max<int64_t>(-2, std::min<int64_t>(base - 1, in - 2));
    }
    if (a.exclude_outside) {
      double sum = 0;
      for (int t = 0; t < p.ntaps; ++t) {
        int64_t i = start + t;
        if (i < 0 || i >= in) c[t] = 0;
        sum += c[t];
      }
      if (sum != 0)
        for (int t = 0; t < p.ntaps; ++t) c[t] /= sum;
    }
    for (int t = 0; t < p.ntaps; ++t) {
      ix[t] = clampi(start + t);
      w[t] = c[t];
      if (c[t] != 0 && (ix[t] != x || c[t] != 1)) identity = false;
    }
  }
  p.identity = identity && !p.any_outside;
  return p;
}

Status read_doubles(const Tensor& t, const char* what, std::vector<double>* out) {
  if (!dtype_is_float(t.dtype())) return InvalidArgument(what, " must be a float tensor, got ", t.describe());
  RETURN_IF_ERROR(tensor_ops::check_host(t, what));
  out->resize(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) (*out)[i] = t.double_at(i);
  return OkStatus();
}

// Output dims from scales (floor(in * scale)) with validation.
Status dims_from_scales(const Tensor& x, const std::vector<double>& scales, Dims* out) {
  size_t r = x.rank();
  if (scales.size() != r)
    return InvalidArgument("Resize: scales has ", scales.size(), " entries for input rank ", r);
  *out = Dims::of_rank(r);
  for (size_t k = 0; k < r; ++k) {
    double s = scales[k];
    if (!(s > 0) || !std::isfinite(s)) return InvalidArgument("Resize: scale ", s, " on axis ", k, " must be positive");
    double d = std::floor(static_cast<double>(x.dim(k)) * s);
    if (d > 9.0e18) return ResourceExhausted("Resize: output dimension ", k, " is too large");
    (*out)[k] = static_cast<int64_t>(d);
  }
  return OkStatus();
}

// ------------------------------------------------------ Resize on the device

// The plans as device tables, in one upload: [offsets][weights][outside].
struct HostTables {
  std::vector<int64_t> offsets;
  std::vector<double> weights;
  std::vector<uint8_t> outside;
};

Status run_resize(KernelContext& ctx, const ResizeAttrs& a, const Tensor& x, const Dims& out_dims,
                  const std::vector<double>& scales, const std::vector<double>& roi) {
  const size_t r = x.rank();
  const DataType dt = x.dtype();
  const size_t es = dtype_size(dt);
  // Declines come first, before anything is allocated or enqueued.
  if (dt == DataType::kString || es == 0 || es > 8)
    return Unimplemented("CUDA Resize: ", dtype_name(dt), " elements are not supported");
  if (a.mode != Mode::kNearest && !resize_interp_supports(static_cast<int>(dt)))
    return Unimplemented("CUDA Resize: ", mode_name(a.mode), " mode on ", dtype_name(dt), " runs on the CPU");
  if (r > static_cast<size_t>(kResizeMaxRank))
    return Unimplemented("CUDA Resize: rank ", r, " > ", kResizeMaxRank);

  if (out_dims.numel() == 0) return ctx.allocate_output(0, dt, out_dims).status();
  if (x.numel() == 0) return InvalidArgument("Resize: cannot resize an empty input to a non-empty output");

  std::vector<AxisPlan> plans(r);
  for (size_t k = 0; k < r; ++k)
    plans[k] = plan_axis(a, x.dim(k), out_dims[k], scales[k], roi.empty() ? 0.0 : roi[k], roi.empty() ? 1.0 : roi[k + r]);

  ResizeMeta m;
  m.rank = static_cast<int32_t>(r);
  m.ntaps = plans.empty() ? (a.mode == Mode::kNearest ? 1 : a.mode == Mode::kLinear ? 2 : 4) : plans[0].ntaps;
  const Dims in_strides = contiguous_strides(x.dims());
  HostTables h;
  int interp = 0;
  for (size_t k = 0; k < r; ++k) {
    const AxisPlan& p = plans[k];
    m.out_dims[k] = out_dims[k];
    m.in_strides[k] = in_strides[k];
    m.tap_begin[k] = -1;
    m.slot[k] = -1;
    m.outside_begin[k] = -1;
    if (p.any_outside) {
      m.outside_begin[k] = static_cast<int64_t>(h.outside.size());
      h.outside.insert(h.outside.end(), p.outside.begin(), p.outside.end());
    }
    // An identity axis reads coordinate c itself; the CPU skips its pass.
    if (p.identity) continue;
    if (a.mode != Mode::kNearest) {
      if (interp == kResizeMaxInterpAxes)
        return Unimplemented("CUDA Resize: ", mode_name(a.mode), " on more than ", kResizeMaxInterpAxes,
                             " resized axes runs on the CPU");
      m.slot[k] = interp;
      m.slot_tap_begin[interp] = static_cast<int64_t>(h.offsets.size());
      ++interp;
      h.weights.insert(h.weights.end(), p.w.begin(), p.w.end());
    }
    m.tap_begin[k] = static_cast<int64_t>(h.offsets.size());
    for (int64_t i : p.idx) h.offsets.push_back(i * in_strides[k]);
  }
  m.interp_axes = interp;
  tensor_ops::ScalarValue ev = tensor_ops::scalar_from_double(dt, a.extrapolation);
  std::memcpy(&m.extrapolation, ev.bytes, es);

  ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
  ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, dt, out_dims));

  // One upload through the device's own host-to-device copy (on this
  // task's stream, staged through pinned memory when large), so the host
  // blob may go when compute() returns and the device copy is freed in
  // stream order after the kernel.
  const size_t off_bytes = h.offsets.size() * sizeof(int64_t);
  const size_t w_bytes = h.weights.size() * sizeof(double);
  const size_t total = off_bytes + w_bytes + h.outside.size();
  ResizeTables t;
  Tensor tables;
  if (total > 0) {
    ASSIGN_OR_RETURN(Tensor blob, Tensor::host(DataType::kUInt8, Dims{static_cast<int64_t>(total)}));
    auto* hb = static_cast<unsigned char*>(blob.raw());
    if (off_bytes) std::memcpy(hb, h.offsets.data(), off_bytes);
    if (w_bytes) std::memcpy(hb + off_bytes, h.weights.data(), w_bytes);
    if (!h.outside.empty()) std::memcpy(hb + off_bytes + w_bytes, h.outside.data(), h.outside.size());
    ASSIGN_OR_RETURN(tables, ctx.device().copy(blob, ctx.device().memory_space()));
    const auto* base = static_cast<const unsigned char*>(tables.raw());
    if (off_bytes) t.offsets = reinterpret_cast<const int64_t*>(base);
    if (w_bytes) t.weights = reinterpret_cast<const double*>(base + off_bytes);
    if (!h.outside.empty()) t.outside = base + off_bytes + w_bytes;
  }
  const int64_t n = out->numel();
  const bool index32 = fits_index32(n, x.numel());
  if (a.mode == Mode::kNearest) {
    CUDA_RETURN_IF_ERROR(launch_resize_nearest(out->raw(), x.raw(), n, static_cast<int>(es), index32, m, t, l.stream));
  } else {
    CUDA_RETURN_IF_ERROR(
        launch_resize_interp(out->raw(), x.raw(), n, static_cast<int>(dt), index32, m, t, l.stream));
  }
  return OkStatus();
}

class ResizeKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    opset_ = node.opset;
    RETURN_IF_ERROR(parse_mode(node.attr_string("mode", "nearest"), &attrs_.mode).with_context(node.describe()));
    if (opset_ < 11) {
      attrs_.coord = Coord::kAsymmetric;
      attrs_.nearest = Nearest::kSimple;
      return OkStatus();
    }
    std::string c = node.attr_string("coordinate_transformation_mode", "half_pixel");
    if (c == "half_pixel") attrs_.coord = Coord::kHalfPixel;
    else if (c == "half_pixel_symmetric") attrs_.coord = Coord::kHalfPixelSymmetric;
    else if (c == "asymmetric") attrs_.coord = Coord::kAsymmetric;
    else if (c == "pytorch_half_pixel") attrs_.coord = Coord::kPytorchHalfPixel;
    else if (c == "tf_half_pixel_for_nn") attrs_.coord = Coord::kTfHalfPixelForNn;
    else if (c == "align_corners") attrs_.coord = Coord::kAlignCorners;
    else if (c == "tf_crop_and_resize") attrs_.coord = Coord::kTfCropAndResize;
    else return InvalidArgument(node.describe(), ": unknown coordinate_transformation_mode '", c, "'");
    std::string nm = node.attr_string("nearest_mode", "round_prefer_floor");
    if (nm == "round_prefer_floor") attrs_.nearest = Nearest::kRoundPreferFloor;
    else if (nm == "round_prefer_ceil") attrs_.nearest = Nearest::kRoundPreferCeil;
    else if (nm == "floor") attrs_.nearest = Nearest::kFloor;
    else if (nm == "ceil") attrs_.nearest = Nearest::kCeil;
    else return InvalidArgument(node.describe(), ": unknown nearest_mode '", nm, "'");
    attrs_.cubic_a = node.attr_float("cubic_coeff_a", -0.75f);
    attrs_.exclude_outside = node.attr_int("exclude_outside", 0) != 0;
    attrs_.extrapolation = node.attr_float("extrapolation_value", 0.f);
    if (node.attr_int("antialias", 0) != 0) return Unimplemented(node.describe(), ": antialias is not supported");
    if (node.has_attr("axes")) return Unimplemented(node.describe(), ": the axes attribute is not supported");
    if (node.attr_string("keep_aspect_ratio_policy", "stretch") != "stretch")
      return Unimplemented(node.describe(), ": keep_aspect_ratio_policy other than stretch is not supported");
    return OkStatus();
  }

  // Thread-safe: reads only the attributes fixed by init().
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument("Resize: X is missing");
    size_t r = x.rank();
    std::vector<double> roi, scales;
    Dims out_dims;
    if (opset_ < 11) {
      if (!ctx.has_input(1)) return InvalidArgument("Resize: scales is required");
      RETURN_IF_ERROR(read_doubles(ctx.input(1), "Resize scales", &scales));
      RETURN_IF_ERROR(dims_from_scales(x, scales, &out_dims));
      return run_resize(ctx, attrs_, x, out_dims, scales, roi);
    }
    if (attrs_.coord == Coord::kTfCropAndResize && ctx.has_input(1) && ctx.input(1).numel() > 0) {
      RETURN_IF_ERROR(read_doubles(ctx.input(1), "Resize roi", &roi));
      if (roi.size() != 2 * r) return InvalidArgument("Resize: roi has ", roi.size(), " entries for input rank ", r);
    }
    bool has_sizes = ctx.has_input(3) && ctx.input(3).numel() > 0;
    bool has_scales = ctx.has_input(2) && ctx.input(2).numel() > 0;
    if (has_sizes == has_scales)
      return InvalidArgument("Resize: exactly one of scales and sizes must be given");
    if (has_sizes) {
      ASSIGN_OR_RETURN(out_dims, tensor_ops::read_int_list(ctx.input(3), "Resize sizes"));
      if (out_dims.size() != r)
        return InvalidArgument("Resize: sizes has ", out_dims.size(), " entries for input rank ", r);
      scales.resize(r);
      for (size_t k = 0; k < r; ++k) {
        if (out_dims[k] < 0) return InvalidArgument("Resize: negative size ", out_dims[k]);
        scales[k] = x.dim(k) == 0 ? 1.0 : static_cast<double>(out_dims[k]) / static_cast<double>(x.dim(k));
        if (scales[k] == 0) scales[k] = 1;  // output is empty; avoid dividing by zero in the plan
      }
    } else {
      RETURN_IF_ERROR(read_doubles(ctx.input(2), "Resize scales", &scales));
      RETURN_IF_ERROR(dims_from_scales(x, scales, &out_dims));
    }
    return run_resize(ctx, attrs_, x, out_dims, scales, roi);
  }

 private:
  int opset_ = 13;
  ResizeAttrs attrs_;
};

// Upsample (7-9) is opset-10 Resize: asymmetric coordinates, the simple
// nearest rule, scales from the attribute (7-8) or input 1 (9).
class UpsampleKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    RETURN_IF_ERROR(parse_mode(node.attr_string("mode", "nearest"), &attrs_.mode).with_context(node.describe()));
    if (attrs_.mode == Mode::kCubic) return InvalidArgument(node.describe(), ": Upsample has no cubic mode");
    attrs_.coord = Coord::kAsymmetric;
    attrs_.nearest = Nearest::kSimple;
    if (node.opset < 9) {
      for (float f : node.attr_floats("scales")) attr_scales_.push_back(f);
      from_attr_ = true;
    }
    return OkStatus();
  }
  // Thread-safe: reads only the attributes fixed by init().
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument("Upsample: X is missing");
    std::vector<double> scales = attr_scales_;
    if (!from_attr_) {
      if (!ctx.has_input(1)) return InvalidArgument("Upsample: scales is required");
      RETURN_IF_ERROR(read_doubles(ctx.input(1), "Upsample scales", &scales));
    }
    Dims out_dims;
    RETURN_IF_ERROR(dims_from_scales(x, scales, &out_dims));
    return run_resize(ctx, attrs_, x, out_dims, scales, {});
  }

 private:
  ResizeAttrs attrs_;
  bool from_attr_ = false;
  std::vector<double> attr_scales_;
};

// ------------------------------------------------ DepthToSpace / SpaceToDepth

// The CPU kernel's view of the input (tensor_movement.cc), copied by the
// movement kernels' strided copy (which collapses it and may pick the tiled
// transpose).
class DepthSpaceKernel final : public Kernel {
 public:
  explicit DepthSpaceKernel(bool to_space) : to_space_(to_space) {}
  Status init(const Node& node) override {
    block_ = node.attr_int("blocksize", 0);
    if (block_ <= 0) return InvalidArgument(node.describe(), ": blocksize must be positive");
    std::string mode = node.attr_string("mode", "DCR");
    if (mode != "DCR" && mode != "CRD") return InvalidArgument(node.describe(), ": unknown mode '", mode, "'");
    crd_ = mode == "CRD";
    return OkStatus();
  }
  // Thread-safe: reads only the attributes fixed by init().
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const char* op = to_space_ ? "DepthToSpace" : "SpaceToDepth";
    if (!x.defined() || x.rank() != 4) return InvalidArgument(op, ": input must be 4-D");
    const DataType dt = x.dtype();
    if (dt == DataType::kString || dtype_size(dt) == 0 || dtype_size(dt) > 8)
      return Unimplemented("CUDA ", op, ": ", dtype_name(dt), " elements are not supported");
    int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3), b = block_;
    if (block_ > (1 << 20)) return InvalidArgument("blocksize ", block_, " is too large");
    Dims out_dims, view, strides;
    if (to_space_) {
      if (c % (b * b) != 0) return InvalidArgument("DepthToSpace: channels ", c, " not divisible by blocksize^2");
      int64_t c2 = c / (b * b);
      out_dims = Dims{n, c2, h * b, w * b};
      // Output index order: n, c2, h, b1, w, b2.
      view = Dims{n, c2, h, b, w, b};
      int64_t sw = 1, sh = w, sc = h * w;
      if (crd_)  // input channel = c2 * b*b + b1 * b + b2
        strides = Dims{c * sc, b * b * sc, sh, b * sc, sw, sc};
      else  // DCR: input channel = b1 * b * c2 + b2 * c2 + c2
        strides = Dims{c * sc, sc, sh, b * c2 * sc, sw, c2 * sc};
    } else {
      if (h % b != 0 || w % b != 0) return InvalidArgument("SpaceToDepth: spatial dims not divisible by blocksize");
      int64_t h2 = h / b, w2 = w / b;
      out_dims = Dims{n, c * b * b, h2, w2};
      // Output channel = b1 * b * c + b2 * c + c; index order n, b1, b2, c, h2, w2.
      view = Dims{n, b, b, c, h2, w2};
      strides = Dims{c * h * w, w, 1, h * w, b * w, b};
    }
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, dt, out_dims));
    return copy_view(l, dt, out->raw(), x.raw(), view, strides);
  }

 private:
  bool to_space_;
  bool crd_ = false;
  int64_t block_ = 0;
};

class DepthToSpaceKernel final : public Kernel {
 public:
  Status init(const Node& node) override { return impl_.init(node); }
  Status compute(KernelContext& ctx) const override { return impl_.compute(ctx); }

 private:
  DepthSpaceKernel impl_{true};
};
class SpaceToDepthKernel final : public Kernel {
 public:
  Status init(const Node& node) override { return impl_.init(node); }
  Status compute(KernelContext& ctx) const override { return impl_.compute(ctx); }

 private:
  DepthSpaceKernel impl_{false};
};

// ------------------------------------------------------------------ Hardmax

// Opset 13+: along one axis, X viewed as [outer, D, inner]. Before 13 the
// input is coerced to 2-D at the axis: [outer, rest, 1]. Axis rules are the
// CPU kernel's (reduction_softmax.cc).
class HardmaxKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    coerce_2d_ = node.opset < 13;
    axis_ = node.attr_int("axis", coerce_2d_ ? 1 : -1);
    return OkStatus();
  }

  // Thread-safe: reads only the attributes fixed by init().
  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument(node.describe(), ": missing input");
    const DataType dt = x.dtype();
    if (dt != DataType::kFloat && dt != DataType::kDouble && dt != DataType::kFloat16 && dt != DataType::kBFloat16)
      return Unimplemented("CUDA Hardmax: ", dtype_name(dt), " runs on the CPU");
    const int64_t rank = static_cast<int64_t>(x.rank());
    HardmaxMeta m;
    if (rank > 0) {
      // Before opset 13, axis == rank (one 2-D row per element) is tolerated
      // as older exporters wrote it; otherwise [-rank, rank - 1].
      int64_t axis = axis_;
      if (!(coerce_2d_ && axis_ == rank)) {
        if (axis_ < -rank || axis_ >= rank)
          return InvalidArgument(node.describe(), ": axis ", axis_, " is out of range for rank ", rank);
        axis = axis_ < 0 ? axis_ + rank : axis_;
      }
      const auto a = static_cast<size_t>(axis);
      m.outer = 1;
      for (size_t k = 0; k < a; ++k) m.outer *= x.dim(k);
      m.d = 1;
      m.inner = 1;
      if (coerce_2d_) {
        for (size_t k = a; k < x.rank(); ++k) m.d *= x.dim(k);
      } else {
        m.d = x.dim(a);
        for (size_t k = a + 1; k < x.rank(); ++k) m.inner *= x.dim(k);
      }
    } else if (axis_ < -1 || axis_ > 0) {
      return InvalidArgument(node.describe(), ": axis ", axis_, " is out of range for a scalar");
    }
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, dt, x.dims()));
    if (x.numel() == 0) return OkStatus();
    CUDA_RETURN_IF_ERROR(launch_hardmax(y->raw(), x.raw(), static_cast<int>(dt), m, l.stream));
    return OkStatus();
  }

 private:
  bool coerce_2d_ = false;
  int64_t axis_ = -1;
};

}  // namespace

void register_cuda_resize_kernels(KernelRegistry& r) {
  const std::vector<DataType>& types = movement_types();
  // roi, scales and sizes are shape-like: read on the host.
  add_cuda_kernel<ResizeKernel>(r, "Resize", 10, types, kBit1 | kBit2 | kBit3);
  add_cuda_kernel<UpsampleKernel>(r, "Upsample", 7, types, kBit1);
  add_cuda_kernel<DepthToSpaceKernel>(r, "DepthToSpace", 1, types);
  add_cuda_kernel<SpaceToDepthKernel>(r, "SpaceToDepth", 1, types);
  add_cuda_kernel<HardmaxKernel>(r, "Hardmax", 1,
                                 {DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kBFloat16});
}

}  // namespace sy::cuda

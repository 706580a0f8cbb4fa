// Resize / Upsample planning shared by the CPU and CUDA kernels; see
// resize_plan.h.
#include "devices/cpu/kernels/resize_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "devices/cpu/kernels/tensor_common.h"
#include "devices/host_allocator.h"

namespace sy::tensor_ops {
namespace {

Status parse_mode(const std::string& m, ResizeMode* out) {
  if (m == "nearest") *out = ResizeMode::kNearest;
  else if (m == "linear" || m == "bilinear" || m == "trilinear") *out = ResizeMode::kLinear;
  else if (m == "cubic") *out = ResizeMode::kCubic;
  else return InvalidArgument("Resize: unknown mode '", m, "'");
  return OkStatus();
}

double source_coord(ResizeCoord c, double x, double scale, int64_t in, int64_t out_int, double roi_start,
                    double roi_end, bool* outside) {
  double in_d = static_cast<double>(in);
  double out_w = scale * in_d;  // the reference uses the unrounded width here
  switch (c) {
    case ResizeCoord::kHalfPixel: return (x + 0.5) / scale - 0.5;
    case ResizeCoord::kHalfPixelSymmetric: {
      double adjustment = static_cast<double>(out_int) / out_w;
      double offset = in_d / 2 * (1 - adjustment);
      return offset + (x + 0.5) / scale - 0.5;
    }
    case ResizeCoord::kAsymmetric: return x / scale;
    case ResizeCoord::kPytorchHalfPixel: return out_w == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
    case ResizeCoord::kTfHalfPixelForNn: return (x + 0.5) / scale;
    case ResizeCoord::kAlignCorners: return out_w == 1 ? 0.0 : x * (in_d - 1) / (out_w - 1);
    case ResizeCoord::kTfCropAndResize: {
      double v = out_w == 1 ? (roi_end - roi_start) * (in_d - 1) / 2
                            : x * (roi_end - roi_start) * (in_d - 1) / (out_w - 1);
      v += roi_start * (in_d - 1);
      *outside = v < 0 || v > in_d - 1;
      return v;
    }
  }
  return x / scale;
}

// Antialiasing widens linear and cubic filters on an axis being shrunk.
bool antialias_widens(const ResizeAttrs& a, double scale) {
  return a.antialias && a.mode != ResizeMode::kNearest && scale < 1;
}

// Taps per output coordinate on an axis of this scale. Antialiased
// downsampling stretches the filter by 1 / scale: 2 - 2 * (floor(-k / scale)
// + 1) taps, k = 1 (linear) or 2 (cubic). The output has at least one
// element, so scale >= 1 / in and the taps number at most about 4 * in.
// A double, since a huge input can make it more than an int holds.
double axis_taps(const ResizeAttrs& a, double scale) {
  const int taps = resize_taps(a.mode);
  if (!antialias_widens(a, scale)) return taps;
  return 2 - 2 * (std::floor(-(taps / 2) / scale) + 1);
}

ResizeAxisPlan plan_axis(const ResizeAttrs& a, int64_t in, int64_t out, double scale, double roi_start,
                         double roi_end) {
  ResizeAxisPlan p;
  p.in = in;
  p.out = out;
  const bool widen = antialias_widens(a, scale);
  p.ntaps = static_cast<int>(axis_taps(a, scale));  // plan_resize_axes checked that it fits
  p.idx.resize(static_cast<size_t>(out * p.ntaps));
  p.w.resize(p.idx.size());
  p.outside.assign(static_cast<size_t>(out), 0);
  auto clampi = [in](int64_t i) { return i < 0 ? 0 : i >= in ? in - 1 : i; };
  std::vector<double> c(static_cast<size_t>(p.ntaps));  // each output's tap weights
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
    if (a.mode == ResizeMode::kNearest) {
      bool up;  // take base + 1 rather than base
      switch (a.nearest) {
        case ResizeNearest::kRoundPreferFloor: up = ratio > 0.5; break;
        case ResizeNearest::kRoundPreferCeil: up = ratio >= 0.5; break;
        case ResizeNearest::kFloor: up = ratio == 1; break;
        case ResizeNearest::kCeil: up = true; break;
        case ResizeNearest::kSimple:  // ORT's opset-10 rule: ceil when downsampling, else truncate
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
    int64_t start;
    if (widen) {
      // The reference's taps at base + 1 - n/2 ... base + n/2, each weighed
      // by the kernel at (offset - ratio) * scale, normalised to sum 1; the
      // window clamped to the edge-padded input as below.
      const int64_t half = p.ntaps / 2;
      double sum = 0;
      for (int t = 0; t < p.ntaps; ++t) {
        const double arg = std::fabs((static_cast<double>(1 - half + t) - ratio) * scale);
        if (a.mode == ResizeMode::kLinear) {
          c[t] = std::max(0.0, 1 - arg);
        } else {
          const double A = a.cubic_a;
          c[t] = arg <= 1 ? ((A + 2) * arg - (A + 3)) * arg * arg + 1
                          : arg < 2 ? ((A * arg - 5 * A) * arg + 8 * A) * arg - 4 * A : 0.0;
        }
        sum += c[t];
      }
      for (int t = 0; t < p.ntaps; ++t) c[t] /= sum;
      start = std::max<int64_t>(-half, std::min<int64_t>(base + 1 - half, in - half));
    } else if (a.mode == ResizeMode::kLinear) {
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
  RETURN_IF_ERROR(check_host(t, what));
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

}  // namespace

const char* resize_mode_name(ResizeMode m) {
  return m == ResizeMode::kNearest ? "nearest" : m == ResizeMode::kLinear ? "linear" : "cubic";
}

int resize_taps(ResizeMode m) { return m == ResizeMode::kNearest ? 1 : m == ResizeMode::kLinear ? 2 : 4; }

Status ResizeSpec::init(const Node& node) {
  upsample_ = node.op_type == "Upsample";
  return upsample_ ? init_upsample(node) : init_resize(node);
}

Status ResizeSpec::init_resize(const Node& node) {
  opset_ = node.opset;
  RETURN_IF_ERROR(parse_mode(node.attr_string("mode", "nearest"), &attrs_.mode).with_context(node.describe()));
  if (opset_ < 11) {
    attrs_.coord = ResizeCoord::kAsymmetric;
    attrs_.nearest = ResizeNearest::kSimple;
    return OkStatus();
  }
  std::string c = node.attr_string("coordinate_transformation_mode", "half_pixel");
  if (c == "half_pixel") attrs_.coord = ResizeCoord::kHalfPixel;
  else if (c == "half_pixel_symmetric") attrs_.coord = ResizeCoord::kHalfPixelSymmetric;
  else if (c == "asymmetric") attrs_.coord = ResizeCoord::kAsymmetric;
  else if (c == "pytorch_half_pixel") attrs_.coord = ResizeCoord::kPytorchHalfPixel;
  else if (c == "tf_half_pixel_for_nn") attrs_.coord = ResizeCoord::kTfHalfPixelForNn;
  else if (c == "align_corners") attrs_.coord = ResizeCoord::kAlignCorners;
  else if (c == "tf_crop_and_resize") attrs_.coord = ResizeCoord::kTfCropAndResize;
  else return InvalidArgument(node.describe(), ": unknown coordinate_transformation_mode '", c, "'");
  std::string nm = node.attr_string("nearest_mode", "round_prefer_floor");
  if (nm == "round_prefer_floor") attrs_.nearest = ResizeNearest::kRoundPreferFloor;
  else if (nm == "round_prefer_ceil") attrs_.nearest = ResizeNearest::kRoundPreferCeil;
  else if (nm == "floor") attrs_.nearest = ResizeNearest::kFloor;
  else if (nm == "ceil") attrs_.nearest = ResizeNearest::kCeil;
  else return InvalidArgument(node.describe(), ": unknown nearest_mode '", nm, "'");
  attrs_.cubic_a = node.attr_float("cubic_coeff_a", -0.75f);
  attrs_.exclude_outside = node.attr_int("exclude_outside", 0) != 0;
  attrs_.extrapolation = node.attr_float("extrapolation_value", 0.f);
  attrs_.antialias = node.attr_int("antialias", 0) != 0;
  if (node.has_attr("axes")) {
    axes_ = node.attr_ints("axes");
    if (axes_.empty()) return InvalidArgument(node.describe(), ": axes must not be empty");
  }
  const std::string policy = node.attr_string("keep_aspect_ratio_policy", "stretch");
  if (policy == "stretch") policy_ = AspectPolicy::kStretch;
  else if (policy == "not_larger") policy_ = AspectPolicy::kNotLarger;
  else if (policy == "not_smaller") policy_ = AspectPolicy::kNotSmaller;
  else return InvalidArgument(node.describe(), ": unknown keep_aspect_ratio_policy '", policy, "'");
  return OkStatus();
}

// Upsample (7-9) is opset-10 Resize: asymmetric coordinates, the simple
// nearest rule, scales from the attribute (7-8) or input 1 (9).
Status ResizeSpec::init_upsample(const Node& node) {
  RETURN_IF_ERROR(parse_mode(node.attr_string("mode", "nearest"), &attrs_.mode).with_context(node.describe()));
  if (attrs_.mode == ResizeMode::kCubic) return InvalidArgument(node.describe(), ": Upsample has no cubic mode");
  attrs_.coord = ResizeCoord::kAsymmetric;
  attrs_.nearest = ResizeNearest::kSimple;
  if (node.opset < 9) {
    for (float f : node.attr_floats("scales")) attr_scales_.push_back(f);
    scales_from_attr_ = true;
  }
  return OkStatus();
}

StatusOr<ResizeTarget> ResizeSpec::target(const KernelContext& ctx) const {
  const Tensor& x = ctx.input(0);
  ResizeTarget t;
  if (upsample_) {
    if (!x.defined()) return InvalidArgument("Upsample: X is missing");
    t.scales = attr_scales_;
    if (!scales_from_attr_) {
      if (!ctx.has_input(1)) return InvalidArgument("Upsample: scales is required");
      RETURN_IF_ERROR(read_doubles(ctx.input(1), "Upsample scales", &t.scales));
    }
    RETURN_IF_ERROR(dims_from_scales(x, t.scales, &t.out_dims));
    return t;
  }
  if (!x.defined()) return InvalidArgument("Resize: X is missing");
  size_t r = x.rank();
  if (opset_ < 11) {
    if (!ctx.has_input(1)) return InvalidArgument("Resize: scales is required");
    RETURN_IF_ERROR(read_doubles(ctx.input(1), "Resize scales", &t.scales));
    RETURN_IF_ERROR(dims_from_scales(x, t.scales, &t.out_dims));
    return t;
  }
  // roi, scales and sizes have an entry per resized axis: every axis, or
  // those of the axes attribute (opset 18), in its order; the others keep
  // their size, with scale 1 and the whole roi.
  ASSIGN_OR_RETURN(std::vector<size_t> axes, normalize_axes(axes_, r, "Resize: axis"));
  for (size_t k = 0; k < r && axes_.empty(); ++k) axes.push_back(k);
  const size_t n = axes.size();
  const char* entries_for = axes_.empty() ? " entries for input rank " : " entries for the number of axes, ";
  if (attrs_.coord == ResizeCoord::kTfCropAndResize && ctx.has_input(1) && ctx.input(1).numel() > 0) {
    std::vector<double> roi;
    RETURN_IF_ERROR(read_doubles(ctx.input(1), "Resize roi", &roi));
    if (roi.size() != 2 * n) return InvalidArgument("Resize: roi has ", roi.size(), entries_for, n);
    t.roi.assign(r, 0.0);
    t.roi.resize(2 * r, 1.0);
    for (size_t i = 0; i < n; ++i) {
      t.roi[axes[i]] = roi[i];
      t.roi[r + axes[i]] = roi[n + i];
    }
  }
  bool has_sizes = ctx.has_input(3) && ctx.input(3).numel() > 0;
  bool has_scales = ctx.has_input(2) && ctx.input(2).numel() > 0;
  if (has_sizes == has_scales) return InvalidArgument("Resize: exactly one of scales and sizes must be given");
  t.scales.assign(r, 1.0);
  if (has_sizes) {
    ASSIGN_OR_RETURN(Dims sizes, read_int_list(ctx.input(3), "Resize sizes"));
    if (sizes.size() != n) return InvalidArgument("Resize: sizes has ", sizes.size(), entries_for, n);
    t.out_dims = x.dims();
    for (size_t i = 0; i < n; ++i) {
      if (sizes[i] < 0) return InvalidArgument("Resize: negative size ", sizes[i]);
      const size_t k = axes[i];
      t.out_dims[k] = sizes[i];
      t.scales[k] = x.dim(k) == 0 ? 1.0 : static_cast<double>(sizes[i]) / static_cast<double>(x.dim(k));
    }
    if (policy_ != AspectPolicy::kStretch) {
      // One scale for all the axes, the smallest (not_larger) or largest
      // of theirs, and sizes rounded half up from it.
      double s = t.scales[axes[0]];
      for (size_t k : axes)
        s = policy_ == AspectPolicy::kNotLarger ? std::min(s, t.scales[k]) : std::max(s, t.scales[k]);
      for (size_t k : axes) {
        const double d = std::floor(s * static_cast<double>(x.dim(k)) + 0.5);
        if (d > 9.0e18) return ResourceExhausted("Resize: output dimension ", k, " is too large");
        t.scales[k] = s;
        t.out_dims[k] = static_cast<int64_t>(d);
      }
    }
    for (double& s : t.scales)
      if (s == 0) s = 1;  // output is empty; avoid dividing by zero in the plan
  } else {
    std::vector<double> scales;
    RETURN_IF_ERROR(read_doubles(ctx.input(2), "Resize scales", &scales));
    if (scales.size() != n) return InvalidArgument("Resize: scales has ", scales.size(), entries_for, n);
    for (size_t i = 0; i < n; ++i) t.scales[axes[i]] = scales[i];
    RETURN_IF_ERROR(dims_from_scales(x, t.scales, &t.out_dims));
  }
  return t;
}

StatusOr<std::vector<ResizeAxisPlan>> plan_resize_axes(const ResizeAttrs& a, const Dims& in, const ResizeTarget& t) {
  const size_t r = in.size();
  // Each axis's plan holds an index and a weight per tap of every output
  // coordinate, and a flag per coordinate. An output that could be allocated
  // bounds the product of its dims, not this sum: a one-byte output of 2^31
  // elements on one axis wants over 30 GB of tables.
  double bytes = 0;
  for (size_t k = 0; k < r; ++k) {
    const double taps = axis_taps(a, t.scales[k]);
    if (taps > std::numeric_limits<int>::max())
      return ResourceExhausted("Resize: antialiasing a downscale by ", t.scales[k], " on axis ", k, " takes ", taps,
                               " taps per output, too many");
    bytes += static_cast<double>(t.out_dims[k]) * (taps * (sizeof(int64_t) + sizeof(double)) + 1);
  }
  RETURN_IF_ERROR(check_host_table_bytes(bytes, "Resize: the sampling tables of output " + t.out_dims.to_string()));
  std::vector<ResizeAxisPlan> plans(r);
  for (size_t k = 0; k < r; ++k)
    plans[k] = plan_axis(a, in[k], t.out_dims[k], t.scales[k], t.roi.empty() ? 0.0 : t.roi[k],
                         t.roi.empty() ? 1.0 : t.roi[k + r]);
  return plans;
}

}  // namespace sy::tensor_ops

// CPU Resize (opset 10, 11, 13) and Upsample (7, 9). Interpolation is
// separable, so each axis gets a small table of (source index, weight) taps
// computed once per call, following the ONNX reference implementation
// (onnx/reference/ops/op_resize.py) exactly, including its edge padding and
// its use of scale * input_size (not the rounded size) in align_corners and
// tf_crop_and_resize. Nearest mode is a pure gather and works for every
// element type; linear and cubic run axis by axis in double precision.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cmath>
#include <limits>
#include <vector>

#include "devices/broadcast.h"
#include "devices/cpu/kernels/tensor_common.h"
#include "devices/cpu/kernels/tensor_register.h"

namespace sy::tensor_ops {
namespace {

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

template <typename T>
inline double to_double(T v) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) return static_cast<float>(v);
  else return static_cast<double>(v);
}

template <typename T>
inline T from_double(double v) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return T(static_cast<float>(v));
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v);
  } else {
    // Integers: round to nearest and saturate, never a UB float->int cast.
    if (std::isnan(v)) return T(0);
    v = std::nearbyint(v);
    if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(v);
  }
}

template <typename F>
void for_rows(int64_t rows, int64_t per_row, F&& f) {
  if (rows > 1 && rows * std::max<int64_t>(per_row, 1) >= kParallelElements) {
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, rows), [&](const tbb::blocked_range<int64_t>& r) {
      for (int64_t i = r.begin(); i < r.end(); ++i) f(i);
    });
  } else {
    for (int64_t i = 0; i < rows; ++i) f(i);
  }
}

// True if the output element at `flat` extrapolates on any axis.
bool outside_at(const std::vector<AxisPlan>& plans, const Dims& out_dims, int64_t flat) {
  for (size_t k = out_dims.size(); k-- > 0;) {
    int64_t c = flat % out_dims[k];
    flat /= out_dims[k];
    if (plans[k].outside[c]) return true;
  }
  return false;
}

Status run_resize(KernelContext& ctx, const ResizeAttrs& a, const Tensor& x, const Dims& out_dims,
                  const std::vector<double>& scales, const std::vector<double>& roi) {
  size_t r = x.rank();
  ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), out_dims));
  if (out->numel() == 0) return OkStatus();
  if (x.numel() == 0) return InvalidArgument("Resize: cannot resize an empty input to a non-empty output");
  std::vector<AxisPlan> plans(r);
  for (size_t k = 0; k < r; ++k)
    plans[k] = plan_axis(a, x.dim(k), out_dims[k], scales[k], roi.empty() ? 0.0 : roi[k], roi.empty() ? 1.0 : roi[k + r]);
  DataType dt = x.dtype();
  ScalarValue extrap = scalar_from_double(dt, a.extrapolation);
  bool any_outside = false;
  for (const auto& p : plans) any_outside |= p.any_outside;

  if (a.mode == Mode::kNearest) {
    Dims in_strides = contiguous_strides(x.dims());
    std::vector<std::vector<int64_t>> offs(r);
    for (size_t k = 0; k < r; ++k) {
      offs[k].resize(static_cast<size_t>(out_dims[k]));
      for (int64_t i = 0; i < out_dims[k]; ++i) offs[k][i] = plans[k].idx[i] * in_strides[k];
    }
    if (r == 0) {
      copy_elements(dt, out->raw(), 0, x.raw(), 0, 1);
      return OkStatus();
    }
    int64_t inner = out_dims[r - 1], rows = out->numel() / inner;
    visit_storage(dt, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* src = x.data<T>();
      T* dst = out->data<T>();
      const T ev = *static_cast<const T*>(extrap.ptr(dt));
      for_rows(rows, inner, [&](int64_t row) {
        int64_t rem = row, off = 0;
        bool row_out = false;
        for (size_t k = r - 1; k-- > 0;) {
          int64_t c = rem % out_dims[k];
          rem /= out_dims[k];
          off += offs[k][c];
          row_out |= plans[k].outside[c] != 0;
        }
        T* d = dst + row * inner;
        const std::vector<int64_t>& lo = offs[r - 1];
        const std::vector<uint8_t>& lout = plans[r - 1].outside;
        for (int64_t j = 0; j < inner; ++j) d[j] = (row_out || lout[j]) ? ev : src[off + lo[j]];
      });
    });
    return OkStatus();
  }

  bool ok = visit_numeric(dt, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      // Separable passes over a double buffer.
      int64_t n = x.numel();
      std::vector<double> cur(static_cast<size_t>(n));
      const T* src = x.data<T>();
      for (int64_t i = 0; i < n; ++i) cur[i] = to_double(src[i]);
      Dims dims = x.dims();
      for (size_t k = 0; k < r; ++k) {
        const AxisPlan& p = plans[k];
        if (p.identity) continue;
        int64_t outer = 1, inner = 1;
        for (size_t j = 0; j < k; ++j) outer *= dims[j];
        for (size_t j = k + 1; j < r; ++j) inner *= dims[j];
        std::vector<double> next(static_cast<size_t>(outer * p.out * inner), 0.0);
        for_rows(outer * p.out, inner * p.ntaps, [&](int64_t row) {
          int64_t o = row / p.out, xo = row % p.out;
          double* d = &next[row * inner];
          for (int t = 0; t < p.ntaps; ++t) {
            double w = p.w[xo * p.ntaps + t];
            if (w == 0) continue;
            const double* s = &cur[(o * p.in + p.idx[xo * p.ntaps + t]) * inner];
            for (int64_t i = 0; i < inner; ++i) d[i] += w * s[i];
          }
        });
        cur.swap(next);
        dims[k] = p.out;
      }
      T* dst = out->data<T>();
      int64_t m = out->numel();
      const T ev = *reinterpret_cast<const T*>(extrap.bytes);
      for (int64_t i = 0; i < m; ++i) dst[i] = from_double<T>(cur[i]);
      if (any_outside)
        for (int64_t i = 0; i < m; ++i)
          if (outside_at(plans, out_dims, i)) dst[i] = ev;
    }
  });
  if (!ok || dt == DataType::kBool)
    return InvalidArgument("Resize: ", a.mode == Mode::kLinear ? "linear" : "cubic", " mode does not support ",
                           dtype_name(dt));
  return OkStatus();
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
      ASSIGN_OR_RETURN(out_dims, read_int_list(ctx.input(3), "Resize sizes"));
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

}  // namespace

void register_resize_kernels(KernelRegistry& r) {
  add_kernel<ResizeKernel>(r, "Resize", 10, kBit1 | kBit2 | kBit3);
  add_kernel<UpsampleKernel>(r, "Upsample", 7, kBit1);
}

}  // namespace sy::tensor_ops

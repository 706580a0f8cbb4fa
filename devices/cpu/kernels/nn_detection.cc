// CPU detection kernels: RoiAlign, MaxRoiPool and NonMaxSuppression. They
// follow ONNX Runtime's CPU semantics, which the ONNX reference outputs
// were made with (MaxRoiPool, which has no reference, bar one bug of ONNX
// Runtime's: see there).
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "devices/cpu/kernels/nms_overlap.h"
#include "devices/cpu/kernels/nn_common.h"
#include "devices/cpu/kernels/roi_align_plan.h"
#include "devices/host_device.h"

namespace sy::nn {
namespace {

class RoiAlignKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(a_, roi_align_attrs(node));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const RoiAlignPlan p, plan_roi_align(ctx, a_));
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), p.out));
    // The half types are sampled and pooled in double like the others,
    // and rounded once at the end.
    switch (x.dtype()) {
      case DataType::kFloat: run<float>(x, p, y); break;
      case DataType::kDouble: run<double>(x, p, y); break;
      case DataType::kFloat16: run<Float16>(x, p, y); break;
      case DataType::kBFloat16: run<BFloat16>(x, p, y); break;
      default: return Unimplemented("RoiAlign: unsupported type ", dtype_name(x.dtype()));
    }
    return OkStatus();
  }

 private:
  template <typename T>
  void run(const Tensor& x, const RoiAlignPlan& p, Tensor* y) const {
    const int64_t C = x.dim(1), H = x.dim(2), W = x.dim(3), R = p.out[0];
    const int64_t bins = a_.out_h * a_.out_w;
    const T* X = x.data<T>();
    T* Y = y->data<T>();
    tbb::parallel_for(int64_t{0}, R, [&](int64_t r) {
      const RoiGeometry& g = p.rois[static_cast<size_t>(r)];
      // The bilinear taps, worked out once and shared by every channel.
      const int64_t gh = std::max<int64_t>(g.gh, 0), gw = std::max<int64_t>(g.gw, 0);
      std::vector<RoiSample> samples(static_cast<size_t>(bins * gh * gw));
      for (int64_t b = 0; b < bins; ++b)
        for (int64_t iy = 0; iy < gh; ++iy)
          for (int64_t ix = 0; ix < gw; ++ix)
            samples[static_cast<size_t>((b * gh + iy) * gw + ix)] =
                roi_sample(g, b / a_.out_w, b % a_.out_w, iy, ix, H, W);
      for (int64_t c = 0; c < C; ++c) {
        const T* xp = X + (g.n * C + c) * H * W;
        T* yp = Y + (r * C + c) * bins;
        for (int64_t b = 0; b < bins; ++b) {
          const RoiSample* bin = samples.data() + b * gh * gw;
          const double v = roi_pool(g, xp, a_.max_mode, [&](int64_t iy, int64_t ix) { return bin[iy * gw + ix]; });
          if constexpr (std::is_floating_point_v<T>)
            yp[b] = static_cast<T>(v);
          else
            yp[b] = T(float_round_to_odd(v));
        }
      }
    });
  }

  RoiAlignAttrs a_;
};

// MaxRoiPool (Fast R-CNN's ROI pooling): rois are [num_rois, 5] rows of
// (batch index, x1, y1, x2, y2). Each ROI's corners are scaled and rounded
// (half away from zero), and its extent, at least 1x1, is cut into
// pooled_shape bins of floor/ceil bounds, clipped to the image; an empty
// bin gives 0. ONNX Runtime starts each bin's max at FLT_MIN, the smallest
// positive float, so a bin of negative values gives 1.2e-38 there; here
// it is their max. A NaN in a bin wins, as in MaxPool.
class MaxRoiPoolKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    const std::vector<int64_t> shape = node.attr_ints("pooled_shape");
    if (shape.size() != 2 || shape[0] <= 0 || shape[1] <= 0 || shape[0] > (1 << 20) || shape[1] > (1 << 20))
      return InvalidArgument(node.describe(), ": pooled_shape must be two positive values");
    ph_ = shape[0];
    pw_ = shape[1];
    scale_ = node.attr_float("spatial_scale", 1.f);
    if (!(scale_ > 0) || !std::isfinite(scale_))
      return InvalidArgument(node.describe(), ": spatial_scale must be positive, got ", scale_);
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& rois = ctx.input(1);
    if (!x.defined() || !rois.defined()) return InvalidArgument("MaxRoiPool: X and rois are required");
    if (x.rank() != 4) return InvalidArgument("MaxRoiPool: X must be 4-D, got ", x.describe());
    if (rois.rank() != 2 || rois.dim(1) != 5 || rois.dtype() != x.dtype())
      return InvalidArgument("MaxRoiPool: rois must be [num_rois, 5] of X's type, got ", rois.describe());
    const int64_t R = rois.dim(0);
    std::vector<Bounds> boxes(static_cast<size_t>(R));
    for (int64_t r = 0; r < R; ++r) {
      const double n = rois.double_at(r * 5);
      if (!(n >= 0 && n < static_cast<double>(x.dim(0))) || n != std::floor(n))
        return InvalidArgument("MaxRoiPool: ROI ", r, " has batch index ", n, ", not one of the ", x.dim(0), " images");
      int64_t c[4];
      for (int k = 0; k < 4; ++k) {
        // In float, as the attribute is: ONNX Runtime rounds the same products.
        const float v = static_cast<float>(rois.double_at(r * 5 + 1 + k)) * scale_;
        if (!std::isfinite(v) || std::abs(v) > 1e9f)
          return InvalidArgument("MaxRoiPool: ROI ", r, " coordinate out of range: ", v);
        c[k] = static_cast<int64_t>(std::round(v));
      }
      boxes[static_cast<size_t>(r)] = {static_cast<int64_t>(n), c[0], c[1], c[2], c[3]};
    }
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), Dims{R, x.dim(1), ph_, pw_}));
    switch (x.dtype()) {
      case DataType::kFloat: run<float>(x, boxes, y); break;
      case DataType::kDouble: run<double>(x, boxes, y); break;
      case DataType::kFloat16: run<Float16>(x, boxes, y); break;
      default: return Unimplemented("MaxRoiPool: unsupported type ", dtype_name(x.dtype()));
    }
    return OkStatus();
  }

 private:
  struct Bounds {
    int64_t n, x1, y1, x2, y2;
  };

  template <typename T>
  void run(const Tensor& x, const std::vector<Bounds>& boxes, Tensor* y) const {
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const int64_t Ch = x.dim(1), H = x.dim(2), W = x.dim(3);
    const T* X = x.data<T>();
    T* Y = y->data<T>();
    tbb::parallel_for(int64_t{0}, static_cast<int64_t>(boxes.size()) * Ch, [&](int64_t rc) {
      const Bounds& b = boxes[static_cast<size_t>(rc / Ch)];
      const T* plane = X + (b.n * Ch + rc % Ch) * H * W;
      T* out = Y + rc * ph_ * pw_;
      const float bin_h = static_cast<float>(std::max<int64_t>(b.y2 - b.y1 + 1, 1)) / static_cast<float>(ph_);
      const float bin_w = static_cast<float>(std::max<int64_t>(b.x2 - b.x1 + 1, 1)) / static_cast<float>(pw_);
      auto clip = [](int64_t v, int64_t hi) { return std::min(std::max<int64_t>(v, 0), hi); };
      for (int64_t i = 0; i < ph_; ++i) {
        const int64_t h0 = clip(static_cast<int64_t>(std::floor(static_cast<float>(i) * bin_h)) + b.y1, H);
        const int64_t h1 = clip(static_cast<int64_t>(std::ceil(static_cast<float>(i + 1) * bin_h)) + b.y1, H);
        for (int64_t j = 0; j < pw_; ++j) {
          const int64_t w0 = clip(static_cast<int64_t>(std::floor(static_cast<float>(j) * bin_w)) + b.x1, W);
          const int64_t w1 = clip(static_cast<int64_t>(std::ceil(static_cast<float>(j + 1) * bin_w)) + b.x1, W);
          C m = 0;
          if (h1 > h0 && w1 > w0) {
            m = static_cast<C>(plane[h0 * W + w0]);
            for (int64_t h = h0; h < h1; ++h)
              for (int64_t w = w0; w < w1; ++w) {
                const C v = static_cast<C>(plane[h * W + w]);
                if (v > m || v != v) m = v;
              }
          }
          out[i * pw_ + j] = static_cast<T>(m);
        }
      }
    });
  }

  int64_t ph_ = 1, pw_ = 1;
  float scale_ = 1.f;
};

class NonMaxSuppressionKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(center_, nms_center(node));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const NmsPlan p, plan_nms(ctx));
    const Tensor& boxes = ctx.input(0);
    const Tensor& scores = ctx.input(1);
    const int64_t B = p.batches, N = p.boxes, C = p.classes;
    std::vector<int64_t> sel;
    if (p.max_out > 0) {
      std::vector<double> bx(static_cast<size_t>(boxes.numel())), sc(static_cast<size_t>(scores.numel()));
      for (int64_t i = 0; i < boxes.numel(); ++i) bx[i] = boxes.double_at(i);
      for (int64_t i = 0; i < scores.numel(); ++i) sc[i] = scores.double_at(i);
      std::vector<int64_t> order;
      std::vector<int64_t> picked;
      for (int64_t b = 0; b < B; ++b)
        for (int64_t c = 0; c < C; ++c) {
          const double* s = sc.data() + (b * C + c) * N;
          order.clear();
          for (int64_t i = 0; i < N; ++i)
            if (!p.has_score_th || s[i] > p.score_th) order.push_back(i);
          std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t q) { return s[a] > s[q]; });
          picked.clear();
          for (int64_t i : order) {
            if (static_cast<int64_t>(picked.size()) >= p.max_out) break;
            bool keep = true;
            for (int64_t j : picked)
              if (nms_suppresses(bx.data() + (b * N + i) * 4, bx.data() + (b * N + j) * 4, p.iou_th, center_)) {
                keep = false;
                break;
              }
            if (!keep) continue;
            picked.push_back(i);
            sel.insert(sel.end(), {b, c, i});
          }
        }
    }
    const int64_t n = static_cast<int64_t>(sel.size() / 3);
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, DataType::kInt64, Dims{n, 3}));
    std::copy(sel.begin(), sel.end(), y->data<int64_t>());
    return OkStatus();
  }

 private:
  int center_ = 0;
};

}  // namespace

StatusOr<RoiAlignAttrs> roi_align_attrs(const Node& node) {
  RoiAlignAttrs a;
  // Opset 10 has no attribute and behaves like "output_half_pixel".
  const std::string dflt = node.opset >= 16 ? "half_pixel" : "output_half_pixel";
  const std::string ctm = node.attr_string("coordinate_transformation_mode", dflt);
  if (ctm != "half_pixel" && ctm != "output_half_pixel")
    return InvalidArgument(node.describe(), ": unknown coordinate_transformation_mode '", ctm, "'");
  a.half_pixel = ctm == "half_pixel";
  const std::string mode = node.attr_string("mode", "avg");
  if (mode != "avg" && mode != "max") return InvalidArgument(node.describe(), ": unknown mode '", mode, "'");
  a.max_mode = mode == "max";
  a.out_h = node.attr_int("output_height", 1);
  a.out_w = node.attr_int("output_width", 1);
  a.sampling_ratio = node.attr_int("sampling_ratio", 0);
  a.scale = node.attr_float("spatial_scale", 1.f);
  if (a.out_h <= 0 || a.out_w <= 0 || a.sampling_ratio < 0)
    return InvalidArgument(node.describe(), ": output sizes must be positive and sampling_ratio >= 0");
  return a;
}

StatusOr<RoiAlignPlan> plan_roi_align(const KernelContext& ctx, const RoiAlignAttrs& a) {
  const Tensor& x = ctx.input(0);
  const Tensor& rois = ctx.input(1);
  const Tensor& bi = ctx.input(2);
  if (!x.defined() || !rois.defined() || !bi.defined()) return InvalidArgument("RoiAlign: three inputs are required");
  if (x.rank() != 4) return InvalidArgument("RoiAlign: X must be 4-D, got ", x.describe());
  if (rois.rank() != 2 || rois.dim(1) != 4 || rois.dtype() != x.dtype())
    return InvalidArgument("RoiAlign: rois must be [num_rois, 4] of X's type, got ", rois.describe());
  const int64_t R = rois.dim(0);
  if (bi.rank() != 1 || bi.dim(0) != R || !dtype_is_integer(bi.dtype()))
    return InvalidArgument("RoiAlign: batch_indices must be an integer vector of size ", R);
  for (int64_t r = 0; r < R; ++r)
    if (bi.int_at(r) < 0 || bi.int_at(r) >= x.dim(0))
      return InvalidArgument("RoiAlign: batch index ", bi.int_at(r), " out of range");
  const double scale = a.scale;
  // Non-finite or huge ROIs would make the sampling grid unbounded.
  for (int64_t i = 0; i < R * 4; ++i) {
    const double v = rois.double_at(i) * scale;
    if (!std::isfinite(v) || std::abs(v) > 1e9) return InvalidArgument("RoiAlign: ROI coordinate out of range: ", v);
  }
  if (a.sampling_ratio == 0 && x.numel() > 0) {
    for (int64_t r = 0; r < R; ++r) {
      const double rw = std::abs(rois.double_at(r * 4 + 2) - rois.double_at(r * 4)) * scale + 1;
      const double rh = std::abs(rois.double_at(r * 4 + 3) - rois.double_at(r * 4 + 1)) * scale + 1;
      if (rw * rh > double(1 << 26)) return InvalidArgument("RoiAlign: ROI ", r, " is too large to sample adaptively");
    }
  } else if (double(a.sampling_ratio) * double(a.sampling_ratio) * double(a.out_h) * double(a.out_w) >
             double(1 << 28)) {
    return InvalidArgument("RoiAlign: sampling grid too large");
  }
  if (x.dim(2) <= 0 || x.dim(3) <= 0) return InvalidArgument("RoiAlign: X has empty spatial dims ", x.describe());
  RoiAlignPlan p;
  p.out = Dims{R, x.dim(1), a.out_h, a.out_w};
  p.rois.resize(static_cast<size_t>(R));
  const double off = a.half_pixel ? 0.5 : 0.0;
  for (int64_t r = 0; r < R; ++r) {
    RoiGeometry& g = p.rois[static_cast<size_t>(r)];
    g.sw = rois.double_at(r * 4 + 0) * scale - off;
    g.sh = rois.double_at(r * 4 + 1) * scale - off;
    double rw = rois.double_at(r * 4 + 2) * scale - off - g.sw;
    double rh = rois.double_at(r * 4 + 3) * scale - off - g.sh;
    if (!a.half_pixel) {
      rw = std::max(rw, 1.0);
      rh = std::max(rh, 1.0);
    }
    g.bh = rh / double(a.out_h);
    g.bw = rw / double(a.out_w);
    g.gh = a.sampling_ratio > 0 ? a.sampling_ratio : static_cast<int64_t>(std::ceil(rh / double(a.out_h)));
    g.gw = a.sampling_ratio > 0 ? a.sampling_ratio : static_cast<int64_t>(std::ceil(rw / double(a.out_w)));
    g.n = bi.int_at(r);
  }
  return p;
}

StatusOr<int> nms_center(const Node& node) {
  const int64_t center = node.attr_int("center_point_box", 0);
  if (center != 0 && center != 1) return InvalidArgument(node.describe(), ": center_point_box must be 0 or 1");
  return static_cast<int>(center);
}

StatusOr<NmsPlan> plan_nms(const KernelContext& ctx) {
  const Tensor& boxes = ctx.input(0);
  const Tensor& scores = ctx.input(1);
  if (!boxes.defined() || !scores.defined()) return InvalidArgument("NonMaxSuppression: boxes and scores are required");
  if (!dtype_is_float(boxes.dtype()) || !dtype_is_float(scores.dtype()))
    return InvalidArgument("NonMaxSuppression: boxes and scores must be floating point");
  if (boxes.rank() != 3 || boxes.dim(2) != 4 || scores.rank() != 3 || scores.dim(0) != boxes.dim(0) ||
      scores.dim(2) != boxes.dim(1))
    return InvalidArgument("NonMaxSuppression: boxes ", boxes.describe(), " and scores ", scores.describe(),
                           " must be [B,N,4] and [B,C,N]");
  NmsPlan p;
  if (ctx.has_input(2) && ctx.input(2).numel() > 0) p.max_out = ctx.input(2).int_at(0);
  if (ctx.has_input(3) && ctx.input(3).numel() > 0) p.iou_th = ctx.input(3).double_at(0);
  if (ctx.has_input(4) && ctx.input(4).numel() > 0) {
    p.score_th = ctx.input(4).double_at(0);
    p.has_score_th = true;
  }
  if (!(p.iou_th >= 0 && p.iou_th <= 1)) return InvalidArgument("NonMaxSuppression: iou_threshold must be in [0, 1]");
  p.batches = boxes.dim(0);
  p.boxes = boxes.dim(1);
  p.classes = scores.dim(1);
  return p;
}

void register_detection_kernels(KernelRegistry& r) {
  add_kernel(r, "RoiAlign", 10, make_kernel<RoiAlignKernel>,
             {DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kBFloat16});
  add_kernel(r, "MaxRoiPool", 1, make_kernel<MaxRoiPoolKernel>,
             {DataType::kFloat, DataType::kDouble, DataType::kFloat16});
  KernelDef d;
  d.op = "NonMaxSuppression";
  d.since_version = 10;
  d.host_inputs = (1u << 2) | (1u << 3) | (1u << 4);
  d.data_dependent_shape = true;
  d.factory = make_kernel<NonMaxSuppressionKernel>;
  r.add(std::move(d));
}

}  // namespace sy::nn

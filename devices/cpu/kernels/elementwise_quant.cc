// CPU elementwise kernels, part 4: QuantizeLinear, DequantizeLinear,
// DynamicQuantizeLinear and Dropout.
//
// Quantization parameters are per tensor, per axis (a 1-D scale along
// `axis`) or, from opset 21, per block along `axis` (block_size).
//
// Thread-safety: compute() is const. Dropout's training-mode RNG state is
// local to each compute() call.
// First: it sets this family's optimisation options for the whole TU.
#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <random>

#include "devices/cpu/kernels/elementwise_common.h"
#include "devices/cpu/kernels/quantize_simd.h"
#include "devices/cpu/kernels/target_clones.h"

namespace sy::elementwise {

namespace {

constexpr uint32_t kScaleTypes = kFloatTypes;

StatusOr<QuantParams> quant_params(const KernelContext& ctx, const Tensor& x, const Tensor& scale, const Tensor* zp,
                                   const QuantAttrs& a) {
  const Node& node = ctx.node();
  QuantParams p;
  if (zp && zp->dims() != scale.dims())
    return InvalidArgument(node.describe(), ": zero point shape ", zp->dims().to_string(), " differs from scale shape ",
                           scale.dims().to_string());
  if (a.block_size == 0 && scale.numel() == 1 && scale.rank() <= 1) return p;
  const int64_t r = static_cast<int64_t>(x.rank());
  int64_t axis = a.axis;
  if (axis < -r || axis >= r) return InvalidArgument(node.describe(), ": axis ", axis, " out of range for rank ", r);
  if (axis < 0) axis += r;
  const int64_t len = x.dim(static_cast<size_t>(axis));
  for (int64_t i = axis + 1; i < r; ++i) p.inner *= x.dim(static_cast<size_t>(i));
  if (a.block_size == 0) {
    if (scale.rank() != 1)
      return InvalidArgument(node.describe(), ": scale of shape ", scale.dims().to_string(),
                             " is neither a scalar nor 1-D, and block_size is not set");
    if (len != scale.numel())
      return InvalidArgument(node.describe(), ": scale has ", scale.numel(), " elements but axis ", axis, " of input ",
                             x.dims().to_string(), " has ", len);
    p.count = scale.numel();
    return p;
  }
  // Blocked: the scale is x with the axis cut into ceil(len / block) blocks.
  Dims want = x.dims();
  want[static_cast<size_t>(axis)] = (len + a.block_size - 1) / a.block_size;
  if (scale.dims() != want)
    return InvalidArgument(node.describe(), ": with block_size ", a.block_size, " along axis ", axis, " of input ",
                           x.dims().to_string(), " the scale must have shape ", want.to_string(), ", got ",
                           scale.dims().to_string());
  if (scale.numel() == 1) return QuantParams{};  // one block: per tensor
  p.count = want[static_cast<size_t>(axis)];
  p.block = a.block_size;
  p.axis_len = len;
  return p;
}

// Inputs 0 to 2 of either op: x of `x_types`, a float scale, and the
// optional zero point (null when absent).
struct QuantInputs {
  const Tensor* x = nullptr;
  const Tensor* scale = nullptr;
  const Tensor* zp = nullptr;
};
StatusOr<QuantInputs> quant_inputs(const KernelContext& ctx, const char* scale_name, uint32_t x_types) {
  RETURN_IF_ERROR(require_tensor(ctx, 0, "x"));
  RETURN_IF_ERROR(require_tensor(ctx, 1, scale_name));
  QuantInputs in{&ctx.input(0), &ctx.input(1), nullptr};
  if (ctx.has_input(2)) {
    if (!ctx.input(2).defined()) return InvalidArgument(ctx.node().describe(), ": the zero point must be a tensor");
    in.zp = &ctx.input(2);
  }
  if (!dtype_in_mask(in.x->dtype(), x_types)) return unsupported_type(ctx, in.x->dtype(), x_types);
  if (!dtype_in_mask(in.scale->dtype(), kScaleTypes)) return unsupported_type(ctx, in.scale->dtype(), kScaleTypes);
  return in;
}

}  // namespace

StatusOr<QuantAttrs> quant_attrs(const Node& node) {
  QuantAttrs a;
  a.axis = node.attr_int("axis", 1);
  a.output_dtype = node.attr_int("output_dtype", 0);
  a.block_size = node.attr_int("block_size", 0);
  if (a.block_size < 0) return InvalidArgument(node.describe(), ": block_size ", a.block_size, " is negative");
  // Opset 23's precision of the division: float, or wider for double. The
  // arithmetic is float at the least, so the half types get it too.
  const int64_t precision = node.attr_int("precision", 0);
  if (precision != 0 && !dtype_is_float(static_cast<DataType>(precision)))
    return Unimplemented(node.describe(), ": precision ", precision, " is not a floating-point type");
  a.precision_double = precision == static_cast<int64_t>(DataType::kDouble);
  return a;
}

StatusOr<QuantPlan> plan_quantize(const KernelContext& ctx, const QuantAttrs& a) {
  ASSIGN_OR_RETURN(const QuantInputs in, quant_inputs(ctx, "y_scale", kQuantInputTypes));
  const Tensor* zp = in.zp;
  QuantPlan plan;
  plan.out_type = zp ? zp->dtype() : DataType::kUInt8;
  if (a.output_dtype != 0) {
    const auto wanted = static_cast<DataType>(a.output_dtype);
    if (zp && wanted != plan.out_type)
      return InvalidArgument(ctx.node().describe(), ": output_dtype ", dtype_name(wanted),
                             " differs from y_zero_point's type ", dtype_name(plan.out_type));
    plan.out_type = wanted;
  }
  if (!dtype_in_mask(plan.out_type, kQuantTypes)) return unsupported_type(ctx, plan.out_type, kQuantTypes);
  ASSIGN_OR_RETURN(plan.params, quant_params(ctx, *in.x, *in.scale, zp, a));
  return plan;
}

StatusOr<QuantPlan> plan_dequantize(const KernelContext& ctx, const QuantAttrs& a) {
  ASSIGN_OR_RETURN(const QuantInputs in, quant_inputs(ctx, "x_scale", kQuantTypes));
  if (in.zp && in.zp->dtype() != in.x->dtype())
    return InvalidArgument(ctx.node().describe(), ": x_zero_point type ", dtype_name(in.zp->dtype()),
                           " differs from x type ", dtype_name(in.x->dtype()));
  QuantPlan plan;
  plan.out_type = a.output_dtype != 0 ? static_cast<DataType>(a.output_dtype) : in.scale->dtype();
  if (!dtype_in_mask(plan.out_type, kScaleTypes)) return unsupported_type(ctx, plan.out_type, kScaleTypes);
  ASSIGN_OR_RETURN(plan.params, quant_params(ctx, *in.x, *in.scale, in.zp, a));
  return plan;
}

StatusOr<DropoutMode> dropout_mode(const KernelContext& ctx, float ratio_attr) {
  DropoutMode m;
  m.ratio = ratio_attr;
  if (ctx.node().opset >= 12) {
    if (ctx.has_input(1)) {
      const Tensor& r = ctx.input(1);
      if (!r.defined() || r.numel() != 1 || !dtype_is_float(r.dtype()))
        return InvalidArgument(ctx.node().describe(), ": ratio must be a float scalar");
      m.ratio = static_cast<float>(r.double_at(0));
    }
    if (ctx.has_input(2)) {
      const Tensor& t = ctx.input(2);
      if (!t.defined() || t.numel() != 1 || t.dtype() != DataType::kBool)
        return InvalidArgument(ctx.node().describe(), ": training_mode must be a bool scalar");
      m.training = t.data<bool>()[0];
    }
  }
  if (m.ratio < 0.0f || m.ratio > 1.0f || std::isnan(m.ratio))
    return InvalidArgument(ctx.node().describe(), ": ratio must be in [0, 1], got ", m.ratio);
  return m;
}

namespace {

inline int64_t param_index(const QuantParams& p, int64_t i) {
  if (p.block == 0) return p.count == 1 ? 0 : (i / p.inner) % p.count;
  const int64_t j = (i / p.inner) % p.axis_len, outer = i / (p.inner * p.axis_len);
  return (outer * p.count + j / p.block) * p.inner + i % p.inner;
}

// f(begin, end, k) over [0, n) in parallel, cut into runs of elements that
// share scale and zero point k: the whole range per tensor, `inner`
// elements per axis, the rest of a block when blocked along the innermost
// axis, else single elements. Per element, the index's division and a libm
// nearbyint call made QuantizeLinear 24x ONNX Runtime's time.
template <typename F>
void for_param_runs(const QuantParams& p, int64_t n, const F& f) {
  parallel_ranges(n, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e;) {
      int64_t end = e;
      if (p.block > 0) {
        const int64_t j = i % p.axis_len;
        end = p.inner > 1 ? i + 1 : std::min(e, i + std::min(p.axis_len, (j / p.block + 1) * p.block) - j);
      } else if (p.count > 1) {
        end = std::min(e, (i / p.inner + 1) * p.inner);
      }
      f(i, end, param_index(p, i));
      i = end;
    }
  });
}

// o = saturate(nearbyint(in / scale) + zero), NaN to 0: one run of
// QuantizeLinear, cloned so that the rounding and the division vectorise.
// Float to 8 bits runs quantize_prefix's intrinsics first; this finishes
// the run's tail, and does the other types whole.
template <typename X, typename Q, typename C>
SY_TARGET_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")
void quantize_run(const X* __restrict in, Q* __restrict o, int64_t n, C scale, C zero) {
  constexpr C lo = static_cast<C>(std::numeric_limits<Q>::lowest());
  constexpr C hi = static_cast<C>(std::numeric_limits<Q>::max());
  for (int64_t i = 0; i < n; ++i) {
    const C v = std::nearbyint(cvt<C>(in[i]) / scale) + zero;
    o[i] = static_cast<Q>(v != v ? C(0) : std::min(hi, std::max(lo, v)));
  }
}

// o = (in - zero) * scale: one run of DequantizeLinear.
template <typename X, typename O, typename C>
SY_TARGET_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")
void dequantize_run(const X* __restrict in, O* __restrict o, int64_t n, int64_t zero, C scale) {
  for (int64_t i = 0; i < n; ++i) o[i] = cvt<O>(static_cast<C>(static_cast<int64_t>(in[i]) - zero) * scale);
}

class QuantizeLinearKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(attrs_, quant_attrs(node));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const QuantPlan plan, plan_quantize(ctx, attrs_));
    const Tensor& x = ctx.input(0);
    const Tensor& scale = ctx.input(1);
    const Tensor* zp = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    const QuantParams& p = plan.params;
    const DataType out_type = plan.out_type;
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, out_type, x.dims()));
    visit_numeric(x.dtype(), [&](auto xtag) {
      using X = decltype(xtag);
      if constexpr (in_mask<X>(kQuantInputTypes)) {
        visit_numeric(out_type, [&](auto qtag) {
          using Q = decltype(qtag);
          if constexpr (in_mask<Q>(kQuantTypes)) {
            visit_numeric(scale.dtype(), [&](auto stag) {
              using S = decltype(stag);
              if constexpr (in_mask<S>(kScaleTypes)) {
                const X* in = x.data<X>();
                const S* sc = scale.data<S>();
                const Q* z = zp ? zp->data<Q>() : nullptr;
                Q* o = out->data<Q>();
                auto run = [&](auto ctag) {
                  using C = decltype(ctag);
                  for_param_runs(p, x.numel(), [&](int64_t b, int64_t e, int64_t k) {
                    const C scale_k = cvt<C>(sc[k]);
                    if constexpr (std::is_same_v<X, float> && std::is_same_v<C, float> && sizeof(Q) == 1)
                      b += quantize_prefix(in + b, o + b, e - b, scale_k, z ? z[k] : 0);
                    quantize_run<X, Q, C>(in + b, o + b, e - b, scale_k, z ? static_cast<C>(z[k]) : C(0));
                  });
                };
                // A double x or scale keeps its precision (opset 23's default
                // precision is y_scale's type).
                if (attrs_.precision_double || std::is_same_v<X, double> || std::is_same_v<S, double>)
                  run(double{});
                else
                  run(float{});
              }
            });
          }
        });
      }
    });
    return OkStatus();
  }

 private:
  QuantAttrs attrs_;
};

class DequantizeLinearKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(attrs_, quant_attrs(node));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const QuantPlan plan, plan_dequantize(ctx, attrs_));
    const Tensor& x = ctx.input(0);
    const Tensor& scale = ctx.input(1);
    const Tensor* zp = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    const QuantParams& p = plan.params;
    const DataType out_type = plan.out_type;
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, out_type, x.dims()));
    visit_numeric(x.dtype(), [&](auto xtag) {
      using X = decltype(xtag);
      if constexpr (in_mask<X>(kQuantTypes)) {
        visit_numeric(scale.dtype(), [&](auto stag) {
          using S = decltype(stag);
          if constexpr (in_mask<S>(kScaleTypes)) {
            visit_numeric(out_type, [&](auto otag) {
              using O = decltype(otag);
              if constexpr (in_mask<O>(kScaleTypes)) {
                using C = Compute<S>;
                const X* in = x.data<X>();
                const S* sc = scale.data<S>();
                const X* z = zp ? zp->data<X>() : nullptr;
                O* o = out->data<O>();
                for_param_runs(p, x.numel(), [&](int64_t b, int64_t e, int64_t k) {
                  dequantize_run<X, O, C>(in + b, o + b, e - b, z ? static_cast<int64_t>(z[k]) : 0, cvt<C>(sc[k]));
                });
              }
            });
          }
        });
      }
    });
    return OkStatus();
  }

 private:
  QuantAttrs attrs_;
};

// uint8 quantization with scale/zero point from the data range (incl. 0),
// following the ONNX reference arithmetic in float32.
class DynamicQuantizeLinearKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    RETURN_IF_ERROR(require_tensor(ctx, 0, "x"));
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DataType::kFloat) return unsupported_type(ctx, x.dtype(), type_bit(DataType::kFloat));
    const float* in = x.data<float>();
    const int64_t n = x.numel();
    float mx = 0, mn = 0;
    for (int64_t i = 0; i < n; ++i) {
      mx = std::max(mx, in[i]);
      mn = std::min(mn, in[i]);
    }
    const float scale = (mx == mn ? 1.0f : mx - mn) / 255.0f;
    const float zp = std::nearbyint(std::min(255.0f, std::max(0.0f, 0.0f - mn / scale)));
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, DataType::kUInt8, x.dims()));
    uint8_t* o = y->data<uint8_t>();
    parallel_ranges(n, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        float v = std::nearbyint(in[i] / scale) + zp;
        v = std::isnan(v) ? 0.0f : std::min(255.0f, std::max(0.0f, v));
        o[i] = static_cast<uint8_t>(v);
      }
    });
    ASSIGN_OR_RETURN(Tensor * s, ctx.allocate_output(1, DataType::kFloat, Dims{}));
    s->data<float>()[0] = scale;
    ASSIGN_OR_RETURN(Tensor * z, ctx.allocate_output(2, DataType::kUInt8, Dims{}));
    z->data<uint8_t>()[0] = static_cast<uint8_t>(zp);
    return OkStatus();
  }
};

// Dropout. Inference (the default, and always before opset 12): output is the
// input itself, mask all true. Training mode (opset 12+, training_mode input
// true) with ratio > 0 draws a random mask and scales kept values by
// 1 / (1 - ratio).
class DropoutKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    opset_ = node.opset;
    ratio_attr_ = node.attr_float("ratio", 0.5f);
    if (node.has_attr("seed")) {
      has_seed_ = true;
      seed_ = node.attr_int("seed", 0);
    }
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    RETURN_IF_ERROR(require_tensor(ctx, 0, "data"));
    const Tensor& x = ctx.input(0);
    if (!dtype_in_mask(x.dtype(), kFloatTypes)) return unsupported_type(ctx, x.dtype(), kFloatTypes);
    ASSIGN_OR_RETURN(const DropoutMode mode, dropout_mode(ctx, ratio_attr_));
    const bool training = mode.training;
    const float ratio = mode.ratio;
    const bool mask_is_bool = opset_ >= 10;
    const bool want_mask = ctx.output_wanted(1);
    if (!training || ratio == 0.0f) {
      ctx.set_output(0, RuntimeValue(x));
      if (want_mask) {
        ASSIGN_OR_RETURN(Tensor * m, ctx.allocate_output(1, mask_is_bool ? DataType::kBool : x.dtype(), x.dims()));
        if (mask_is_bool) {
          std::fill_n(m->data<bool>(), m->numel(), true);
        } else {
          visit_numeric(x.dtype(), [&](auto tag) {
            using T = decltype(tag);
            std::fill_n(m->data<T>(), m->numel(), cvt<T>(1.0f));
          });
        }
      }
      return OkStatus();
    }
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), x.dims()));
    bool* mask = nullptr;
    if (want_mask) {
      ASSIGN_OR_RETURN(Tensor * m, ctx.allocate_output(1, DataType::kBool, x.dims()));
      mask = m->data<bool>();
    }
    std::mt19937_64 rng(has_seed_ ? static_cast<uint64_t>(seed_) : std::random_device{}());
    std::uniform_real_distribution<float> uni(0.0f, 1.0f);
    const float scale = ratio >= 1.0f ? 0.0f : 1.0f / (1.0f - ratio);
    visit_numeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (in_mask<T>(kFloatTypes)) {
        const T* in = x.data<T>();
        T* o = y->data<T>();
        for (int64_t i = 0; i < x.numel(); ++i) {
          bool keep = uni(rng) >= ratio;
          if (mask) mask[i] = keep;
          o[i] = keep ? cvt<T>(cvt<Compute<T>>(in[i]) * scale) : cvt<T>(0.0f);
        }
      }
    });
    return OkStatus();
  }

 private:
  int opset_ = 0;
  float ratio_attr_ = 0.5f;
  bool has_seed_ = false;
  int64_t seed_ = 0;
};

}  // namespace

void register_quant_kernels(KernelRegistry& r) {
  add_def(r, "QuantizeLinear", 10, INT_MAX, &make_kernel<QuantizeLinearKernel>, kQuantInputTypes);
  add_def(r, "DequantizeLinear", 10, INT_MAX, &make_kernel<DequantizeLinearKernel>, kQuantTypes);
  add_def(r, "DynamicQuantizeLinear", 11, INT_MAX, &make_kernel<DynamicQuantizeLinearKernel>,
          type_bit(DataType::kFloat));
  add_def(r, "Dropout", 1, INT_MAX, &make_kernel<DropoutKernel>, kFloatTypes);
}

}  // namespace sy::elementwise

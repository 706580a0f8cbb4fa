// CPU elementwise kernels, part 2: unary math, activations, IsNaN/IsInf,
// Shrink and Clip. Each op is a small functor on Compute<T> values; one
// templated UnaryKernel runs it over the tensor (in parallel when large);
// float32 Exp, Log, Erf, Sigmoid and the trigonometric and hyperbolic
// functions run on libmvec's vector math instead (vector_math.h). Built
// with -fno-math-errno and -fno-trapping-math (CMakeLists.txt), so that
// loops over sqrt, floor and the like vectorise (no kernel reads errno),
// and so do conditional products such as LeakyRelu's (no kernel unmasks
// floating-point exceptions).
//
// Thread-safety: compute() is const; attributes are parsed in init().
#include <cfloat>
#include <climits>
#include <cmath>
#include <optional>
#include <type_traits>

#include "devices/cpu/kernels/elementwise_common.h"
#include "devices/cpu/kernels/target_clones.h"
#include "devices/cpu/kernels/vector_math.h"
#include "ir/op_fusion.h"

namespace sy::elementwise {
namespace {

struct UnaryBase {
  static constexpr bool kBoolOut = false;
  Status init(const Node&) { return OkStatus(); }
};

// Also Mish's inner function, below.
struct SoftplusOp : UnaryBase {
  static constexpr uint32_t kTypes = kFloatTypes;
  template <typename C> C operator()(C x) const {
    return x > C(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  }
  // For split_loop: log1p(e^-|x|), plus x where positive.
  static constexpr VecFn kInner[] = {VecFn::kExp, VecFn::kLog1p};
  float arg(float x) const { return -std::fabs(x); }
  float finish(float x, float t) const { return (x > 0 ? x : 0.f) + t; }
};

// Float-only math on float/double (half types compute in float).
#define SY_FLOAT_UNARY(Name, expr)                             \
  struct Name : UnaryBase {                                    \
    static constexpr uint32_t kTypes = kFloatTypes;            \
    template <typename C> C operator()(C x) const { return expr; } \
  };

SY_FLOAT_UNARY(ReciprocalOp, C(1) / x)
SY_FLOAT_UNARY(SqrtOp, std::sqrt(x))
SY_FLOAT_UNARY(ExpOp, std::exp(x))
SY_FLOAT_UNARY(LogOp, std::log(x))
SY_FLOAT_UNARY(FloorOp, std::floor(x))
SY_FLOAT_UNARY(CeilOp, std::ceil(x))
SY_FLOAT_UNARY(RoundOp, std::nearbyint(x))  // half to even in the default rounding mode
SY_FLOAT_UNARY(SinOp, std::sin(x))
SY_FLOAT_UNARY(CosOp, std::cos(x))
SY_FLOAT_UNARY(TanOp, std::tan(x))
SY_FLOAT_UNARY(AsinOp, std::asin(x))
SY_FLOAT_UNARY(AcosOp, std::acos(x))
SY_FLOAT_UNARY(AtanOp, std::atan(x))
SY_FLOAT_UNARY(SinhOp, std::sinh(x))
SY_FLOAT_UNARY(CoshOp, std::cosh(x))
SY_FLOAT_UNARY(AsinhOp, std::asinh(x))
SY_FLOAT_UNARY(AcoshOp, std::acosh(x))
SY_FLOAT_UNARY(AtanhOp, std::atanh(x))
SY_FLOAT_UNARY(TanhOp, std::tanh(x))
SY_FLOAT_UNARY(SigmoidOp, x >= C(0) ? C(1) / (C(1) + std::exp(-x)) : std::exp(x) / (C(1) + std::exp(x)))
SY_FLOAT_UNARY(SoftsignOp, x / (C(1) + std::abs(x)))
SY_FLOAT_UNARY(MishOp, x * std::tanh(SoftplusOp{}(x)))

// Gelu (opset 20), x * Phi(x): exactly, with erf (approximate="none"), and
// with tanh (approximate="tanh"); each on libmvec where it has the function.
struct GeluErfOp : UnaryBase {
  static constexpr uint32_t kTypes = kFloatTypes;
  template <typename C> C operator()(C x) const { return C(0.5) * x * (C(1) + std::erf(x * C(M_SQRT1_2))); }
  static constexpr VecFn kInner[] = {VecFn::kErf};
  float arg(float x) const { return x * static_cast<float>(M_SQRT1_2); }
  float finish(float x, float t) const { return 0.5f * x * (1.f + t); }
};
struct GeluTanhOp : UnaryBase {
  static constexpr uint32_t kTypes = kFloatTypes;
  static constexpr double kScale = 0.7978845608028654;  // sqrt(2 / pi)
  template <typename C> C operator()(C x) const {
    return C(0.5) * x * (C(1) + std::tanh(C(kScale) * (x + C(0.044715) * x * x * x)));
  }
  static constexpr VecFn kInner[] = {VecFn::kTanh};
  float arg(float x) const { return static_cast<float>(kScale) * (x + 0.044715f * x * x * x); }
  float finish(float x, float t) const { return 0.5f * x * (1.f + t); }
};
SY_FLOAT_UNARY(HardSwishOp, x * std::max(C(0), std::min(C(1), x / C(6) + C(0.5))))
#undef SY_FLOAT_UNARY

struct ErfOp : UnaryBase {
  static constexpr uint32_t kTypes = kNumeric;
  template <typename C> C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>)
      return std::erf(x);
    else
      return cvt<C>(std::erf(static_cast<double>(x)));
  }
};

struct AbsOp : UnaryBase {
  static constexpr uint32_t kTypes = kNumeric;
  template <typename C> C operator()(C x) const {
    if constexpr (std::is_unsigned_v<C>)
      return x;
    else if constexpr (std::is_integral_v<C>)
      return x < 0 ? wrap_neg(x) : x;
    else
      return std::abs(x);
  }
};

struct NegOp : UnaryBase {
  static constexpr uint32_t kTypes = kFloatTypes | kSignedInts;
  template <typename C> C operator()(C x) const { return wrap_neg(x); }
};

struct SignOp : UnaryBase {
  static constexpr uint32_t kTypes = kNumeric;
  template <typename C> C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>)
      if (std::isnan(x)) return x;
    return x > C(0) ? C(1) : (x < C(0) ? static_cast<C>(-1) : C(0));
  }
};

struct NotOp : UnaryBase {
  static constexpr uint32_t kTypes = kBoolType;
  template <typename C> C operator()(C x) const { return !x; }
};

struct BitwiseNotOp : UnaryBase {
  static constexpr uint32_t kTypes = kInts;
  template <typename C> C operator()(C x) const {
    if constexpr (std::is_integral_v<C>)
      return static_cast<C>(~x);
    else
      return x;
  }
};

struct IsNaNOp : UnaryBase {
  static constexpr uint32_t kTypes = kFloatTypes;
  static constexpr bool kBoolOut = true;
  template <typename C> bool operator()(C x) const { return std::isnan(x); }
};

struct IsInfOp : UnaryBase {
  static constexpr uint32_t kTypes = kFloatTypes;
  static constexpr bool kBoolOut = true;
  bool neg = true, pos = true;
  Status init(const Node& n) {
    neg = n.attr_int("detect_negative", 1) != 0;
    pos = n.attr_int("detect_positive", 1) != 0;
    return OkStatus();
  }
  template <typename C> bool operator()(C x) const { return std::isinf(x) && (x > 0 ? pos : neg); }
};

struct ReluOp : UnaryBase {
  static constexpr uint32_t kTypes = kFloatTypes | kSignedInts;
  // NaN stays NaN, as in the ONNX reference (np.clip): x > 0 ? x : 0 made
  // it 0. Likewise Celu and HardSigmoid below put x's side first in
  // std::max and std::min, which return their first argument on a NaN.
  template <typename C> C operator()(C x) const { return x < C(0) ? C(0) : x; }
};

// Activations with float attributes.
struct LeakyReluOp : UnaryBase {
  static constexpr uint32_t kTypes = kFloatTypes;
  float alpha = 0.01f;
  Status init(const Node& n) { alpha = n.attr_float("alpha", 0.01f); return OkStatus(); }
  template <typename C> C operator()(C x) const { return x < C(0) ? C(alpha) * x : x; }
};

struct EluOp : UnaryBase {
  static constexpr uint32_t kTypes = kFloatTypes;
  float alpha = 1.0f;
  Status init(const Node& n) { alpha = n.attr_float("alpha", 1.0f); return OkStatus(); }
  template <typename C> C operator()(C x) const { return x < C(0) ? C(alpha) * std::expm1(x) : x; }
  // The same as finish(x, expm1(arg(x))), for split_loop.
  static constexpr VecFn kInner[] = {VecFn::kExpm1};
  float arg(float x) const { return std::min(x, 0.f); }
  float finish(float x, float t) const { return x < 0 ? alpha * t : x; }
};

struct SeluOp : UnaryBase {
  static constexpr uint32_t kTypes = kFloatTypes;
  float alpha = 1.67326319217681884765625f, gamma = 1.05070102214813232421875f;
  Status init(const Node& n) {
    alpha = n.attr_float("alpha", alpha);
    gamma = n.attr_float("gamma", gamma);
    return OkStatus();
  }
  template <typename C> C operator()(C x) const {
    return x <= C(0) ? C(gamma) * C(alpha) * std::expm1(x) : C(gamma) * x;
  }
  static constexpr VecFn kInner[] = {VecFn::kExpm1};
  float arg(float x) const { return std::min(x, 0.f); }
  float finish(float x, float t) const { return x <= 0 ? gamma * alpha * t : gamma * x; }
};

struct CeluOp : UnaryBase {
  static constexpr uint32_t kTypes = kFloatTypes;
  float alpha = 1.0f;
  Status init(const Node& n) {
    alpha = n.attr_float("alpha", 1.0f);
    if (alpha == 0.0f) return InvalidArgument(n.describe(), ": alpha must not be 0");
    return OkStatus();
  }
  template <typename C> C operator()(C x) const {
    return std::max(x, C(0)) + std::min(C(alpha) * std::expm1(x / C(alpha)), C(0));
  }
  static constexpr VecFn kInner[] = {VecFn::kExpm1};
  float arg(float x) const { return x / alpha; }
  float finish(float x, float t) const { return std::max(x, 0.f) + std::min(alpha * t, 0.f); }
};

struct HardSigmoidOp : UnaryBase {
  static constexpr uint32_t kTypes = kFloatTypes;
  float alpha = 0.2f, beta = 0.5f;
  Status init(const Node& n) {
    alpha = n.attr_float("alpha", 0.2f);
    beta = n.attr_float("beta", 0.5f);
    return OkStatus();
  }
  template <typename C> C operator()(C x) const { return std::max(std::min(C(alpha) * x + C(beta), C(1)), C(0)); }
};

struct ThresholdedReluOp : UnaryBase {
  static constexpr uint32_t kTypes = kFloatTypes;
  float alpha = 1.0f;
  Status init(const Node& n) { alpha = n.attr_float("alpha", 1.0f); return OkStatus(); }
  template <typename C> C operator()(C x) const { return x > C(alpha) ? x : C(0); }
};

struct ShrinkOp : UnaryBase {
  static constexpr uint32_t kTypes = kNumeric;
  float bias = 0.0f, lambd = 0.5f;
  Status init(const Node& n) {
    bias = n.attr_float("bias", 0.0f);
    lambd = n.attr_float("lambd", 0.5f);
    return OkStatus();
  }
  template <typename C> C operator()(C x) const {
    // Compare in double so integer inputs follow the float thresholds.
    double v = static_cast<double>(x);
    if (v < -static_cast<double>(lambd)) return cvt<C>(v + bias);
    if (v > static_cast<double>(lambd)) return cvt<C>(v - bias);
    return C(0);
  }
};

// Ops whose float32 form runs on libmvec's vector math (vector_math.h).
template <typename Op>
constexpr std::optional<VecFn> kVecFn = std::nullopt;
template <>
constexpr std::optional<VecFn> kVecFn<ExpOp> = VecFn::kExp;
template <>
constexpr std::optional<VecFn> kVecFn<LogOp> = VecFn::kLog;
template <>
constexpr std::optional<VecFn> kVecFn<ErfOp> = VecFn::kErf;
template <>
constexpr std::optional<VecFn> kVecFn<SinOp> = VecFn::kSin;
template <>
constexpr std::optional<VecFn> kVecFn<CosOp> = VecFn::kCos;
template <>
constexpr std::optional<VecFn> kVecFn<TanOp> = VecFn::kTan;
template <>
constexpr std::optional<VecFn> kVecFn<AsinOp> = VecFn::kAsin;
template <>
constexpr std::optional<VecFn> kVecFn<AcosOp> = VecFn::kAcos;
template <>
constexpr std::optional<VecFn> kVecFn<AtanOp> = VecFn::kAtan;
template <>
constexpr std::optional<VecFn> kVecFn<SinhOp> = VecFn::kSinh;
template <>
constexpr std::optional<VecFn> kVecFn<CoshOp> = VecFn::kCosh;
template <>
constexpr std::optional<VecFn> kVecFn<TanhOp> = VecFn::kTanh;
template <>
constexpr std::optional<VecFn> kVecFn<AsinhOp> = VecFn::kAsinh;
template <>
constexpr std::optional<VecFn> kVecFn<AcoshOp> = VecFn::kAcosh;
template <>
constexpr std::optional<VecFn> kVecFn<AtanhOp> = VecFn::kAtanh;
template <>
constexpr std::optional<VecFn> kVecFn<SigmoidOp> = VecFn::kSigmoid;
template <>  // on AVX-512 only; elsewhere through split_loop, on kErf
constexpr std::optional<VecFn> kVecFn<GeluErfOp> = VecFn::kGeluErf;

// o[i] = op(in[i]) over [0, n), cloned for the wider vectors of x86-64-v3
// (AVX2) and v4 (AVX-512): built for baseline SSE2, Floor, Ceil and Round
// called libm for each element (7x ONNX Runtime's time) and every other
// loop ran at a quarter of the width. The output is never the input (a
// kernel's outputs are fresh tensors), so the two are __restrict: bytes
// may alias anything, and Not stayed a byte at a time (8x).
template <typename Op, typename T, typename O>
SY_TARGET_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")
void unary_loop(const Op op, const T* __restrict in, O* __restrict o, int64_t n) {
  if constexpr (std::is_same_v<Op, NotOp>) {
    // As bytes compared with zero: GCC leaves loops over bool scalar.
    const auto* x = reinterpret_cast<const uint8_t*>(in);
    auto* y = reinterpret_cast<uint8_t*>(o);
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] == 0;
    return;
  }
  using C = Compute<T>;
  for (int64_t i = 0; i < n; ++i) o[i] = cvt<O>(op(cvt<C>(in[i])));
}

// Float ops built on vector functions (Elu, Selu and Celu on expm1,
// Softplus on exp then log1p): out = op.finish(x, fn(...f1(op.arg(x))))
// a block at a time, the f through vector_math; one scalar expm1 and a
// branch per element took 3.5x ONNX Runtime's time. Where vector_math
// lacks one of them, the op's scalar form. Cloned for x86-64-v3 and v4:
// built for SSE, the passes around the vector function took as long as
// the function (Gelu [8, 128, 768]: 258 us to 185; erf alone takes 147).
template <typename Op>
SY_TARGET_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")
void split_loop(const Op op, const float* __restrict in, float* __restrict out, int64_t n) {
  constexpr int64_t kBlock = 1024;
  float t[kBlock];
  for (int64_t c = 0; c < n; c += kBlock) {
    const int64_t k = std::min(kBlock, n - c);
    for (int64_t i = 0; i < k; ++i) t[i] = op.arg(in[c + i]);
    bool vectorised = true;
    for (const VecFn f : Op::kInner) vectorised = vectorised && vector_math(f, t, t, k);
    if (vectorised) {
      for (int64_t i = 0; i < k; ++i) out[c + i] = op.finish(in[c + i], t[i]);
    } else {
      for (int64_t i = 0; i < k; ++i) out[c + i] = op(in[c + i]);
    }
  }
}

template <typename Op>
class UnaryKernel final : public Kernel {
 public:
  Status init(const Node& node) override { return op_.init(node); }

  Status compute(KernelContext& ctx) const override {
    RETURN_IF_ERROR(require_tensor(ctx, 0, "X"));
    const Tensor& x = ctx.input(0);
    if (!dtype_in_mask(x.dtype(), Op::kTypes)) return unsupported_type(ctx, x.dtype(), Op::kTypes);
    Status st;
    visit_numeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (in_mask<T>(Op::kTypes)) {
        using O = std::conditional_t<Op::kBoolOut, bool, T>;
        auto out = ctx.allocate_output(0, DataTypeOf<O>::value, x.dims());
        if (!out.ok()) {
          st = out.status();
          return;
        }
        const T* in = x.data<T>();
        O* o = (*out)->template data<O>();
        if constexpr (std::is_same_v<T, float> && kVecFn<Op>.has_value())
          if (vector_math(*kVecFn<Op>, in, o, x.numel())) return;
        if constexpr (std::is_same_v<T, float> && requires { Op::kInner; }) {
          parallel_ranges(x.numel(), [&](int64_t b, int64_t e) { split_loop(op_, in + b, o + b, e - b); });
          return;
        }
        // The op passed by value: reached through the kernel, an attribute
        // (LeakyRelu's alpha) was reloaded after every store, as `o` might
        // alias it, and the loop stayed scalar (LeakyRelu: 2.3 ns an
        // element, a branch on each sign that random inputs mispredicted
        // half the time).
        parallel_ranges(x.numel(), [&](int64_t b, int64_t e) { unary_loop(op_, in + b, o + b, e - b); });
      }
    });
    return st;
  }

 private:
  Op op_;
};

// ---- Clip ------------------------------------------------------------------------

// Before opset 11 min/max are attributes; from 11 they are optional scalar
// inputs (kAttrs selects the form; registered as two version ranges).
constexpr uint32_t kClipTypes = kNumeric;

template <bool kAttrs>
class ClipKernel final : public Kernel {
 public:
  static constexpr uint32_t kTypes = kClipTypes;

  Status init(const Node& node) override {
    if (attrs_) {
      if (node.has_attr("min")) min_attr_ = node.attr_float("min", 0);
      if (node.has_attr("max")) max_attr_ = node.attr_float("max", 0);
    }
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    RETURN_IF_ERROR(require_tensor(ctx, 0, "input"));
    const Tensor& x = ctx.input(0);
    if (!dtype_in_mask(x.dtype(), kTypes)) return unsupported_type(ctx, x.dtype(), kTypes);
    for (size_t i = 1; i < 3 && !attrs_; ++i) {
      if (!ctx.has_input(i)) continue;
      const Tensor& b = ctx.input(i);
      if (!b.defined()) return InvalidArgument(ctx.node().describe(), ": input ", i, " must be a tensor");
      if (b.dtype() != x.dtype())
        return InvalidArgument(ctx.node().describe(), ": ", i == 1 ? "min" : "max", " has type ",
                               dtype_name(b.dtype()), ", expected ", dtype_name(x.dtype()));
      if (b.numel() != 1)
        return InvalidArgument(ctx.node().describe(), ": ", i == 1 ? "min" : "max", " must be a scalar, got shape ",
                               b.dims().to_string());
    }
    Status st;
    visit_numeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (in_mask<T>(kTypes)) {
        using C = Compute<T>;
        C lo = std::numeric_limits<C>::lowest();
        C hi = std::numeric_limits<C>::max();
        if constexpr (std::is_floating_point_v<C>) {
          lo = -std::numeric_limits<C>::infinity();
          hi = std::numeric_limits<C>::infinity();
        }
        if (attrs_) {
          if (min_attr_) lo = cvt<C>(*min_attr_);
          if (max_attr_) hi = cvt<C>(*max_attr_);
        } else {
          if (ctx.has_input(1)) lo = cvt<C>(ctx.input(1).data<T>()[0]);
          if (ctx.has_input(2)) hi = cvt<C>(ctx.input(2).data<T>()[0]);
        }
        auto out = ctx.allocate_output(0, x.dtype(), x.dims());
        if (!out.ok()) {
          st = out.status();
          return;
        }
        const T* in = x.data<T>();
        T* o = (*out)->template data<T>();
        parallel_ranges(x.numel(), [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) {
            C v = cvt<C>(in[i]);
            v = v < lo ? lo : v;  // NaN passes through both comparisons
            v = hi < v ? hi : v;
            o[i] = cvt<T>(v);
          }
        });
      }
    });
    return st;
  }

 private:
  static constexpr bool attrs_ = kAttrs;
  std::optional<float> min_attr_, max_attr_;
};

// Gelu's form is an attribute: the kernel of that form, chosen at init.
class GeluKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    const std::string approximate = node.attr_string("approximate", "none");
    if (approximate == "none") impl_ = std::make_unique<UnaryKernel<GeluErfOp>>();
    else if (approximate == "tanh") impl_ = std::make_unique<UnaryKernel<GeluTanhOp>>();
    else return InvalidArgument(node.describe(), ": approximate must be 'none' or 'tanh', got '", approximate, "'");
    return impl_->init(node);
  }
  Status compute(KernelContext& ctx) const override { return impl_->compute(ctx); }

 private:
  std::unique_ptr<Kernel> impl_;
};

template <typename Op>
void add_unary(KernelRegistry& r, const char* op, int since, int end = INT_MAX) {
  add_def(r, op, since, end, &make_kernel<UnaryKernel<Op>>, Op::kTypes);
}

}  // namespace

void register_unary_kernels(KernelRegistry& r) {
  add_unary<AbsOp>(r, "Abs", 1);
  add_unary<NegOp>(r, "Neg", 1);
  add_unary<ReciprocalOp>(r, "Reciprocal", 1);
  add_unary<SqrtOp>(r, "Sqrt", 1);
  add_unary<ExpOp>(r, "Exp", 1);
  add_unary<LogOp>(r, "Log", 1);
  add_unary<FloorOp>(r, "Floor", 1);
  add_unary<CeilOp>(r, "Ceil", 1);
  add_unary<RoundOp>(r, "Round", 11);
  add_unary<SignOp>(r, "Sign", 9);
  add_unary<ErfOp>(r, "Erf", 9);
  add_unary<SinOp>(r, "Sin", 7);
  add_unary<CosOp>(r, "Cos", 7);
  add_unary<TanOp>(r, "Tan", 7);
  add_unary<AsinOp>(r, "Asin", 7);
  add_unary<AcosOp>(r, "Acos", 7);
  add_unary<AtanOp>(r, "Atan", 7);
  add_unary<SinhOp>(r, "Sinh", 9);
  add_unary<CoshOp>(r, "Cosh", 9);
  add_unary<AsinhOp>(r, "Asinh", 9);
  add_unary<AcoshOp>(r, "Acosh", 9);
  add_unary<AtanhOp>(r, "Atanh", 9);
  add_unary<NotOp>(r, "Not", 1);
  add_unary<BitwiseNotOp>(r, "BitwiseNot", 18);
  add_unary<IsNaNOp>(r, "IsNaN", 9);
  add_unary<IsInfOp>(r, "IsInf", 10);
  add_unary<ReluOp>(r, "Relu", 1);
  add_unary<LeakyReluOp>(r, "LeakyRelu", 1);
  add_unary<EluOp>(r, "Elu", 1);
  add_unary<SeluOp>(r, "Selu", 1);
  add_unary<CeluOp>(r, "Celu", 12);
  add_unary<SigmoidOp>(r, "Sigmoid", 1);
  add_unary<HardSigmoidOp>(r, "HardSigmoid", 1);
  add_unary<HardSwishOp>(r, "HardSwish", 14);
  add_unary<TanhOp>(r, "Tanh", 1);
  add_unary<SoftplusOp>(r, "Softplus", 1);
  add_unary<SoftsignOp>(r, "Softsign", 1);
  add_unary<ThresholdedReluOp>(r, "ThresholdedRelu", 10);
  add_unary<MishOp>(r, "Mish", 18);
  add_def(r, "Gelu", 20, INT_MAX, &make_kernel<GeluKernel>, kFloatTypes);
  // OpFusion's Gelu, made from the erf arithmetic of float models before
  // opset 20.
  KernelDef fused_gelu;
  fused_gelu.domain = kSwitchyardDomain;
  fused_gelu.op = kFusedGelu;
  fused_gelu.types = {DataType::kFloat};
  fused_gelu.factory = &make_kernel<GeluKernel>;
  r.add(std::move(fused_gelu));
  add_unary<ShrinkOp>(r, "Shrink", 9);
  add_def(r, "Clip", 1, 10, &make_kernel<ClipKernel<true>>, kClipTypes);
  add_def(r, "Clip", 11, INT_MAX, &make_kernel<ClipKernel<false>>, kClipTypes);
}

}  // namespace sy::elementwise

// CUDA elementwise kernels: broadcasting binary ops, Pow, the variadic
// Max/Min/Sum/Mean, Where, unary math and activations, Clip, Cast/CastLike
// and Identity. Shapes, attributes and type checks are the CPU family's
// (devices/cpu/kernels/elementwise_*.cc, helpers from elementwise_common.h);
// the device work is in elementwise_*.cu behind elementwise_launch.h.
//
// Thread-safety: compute() is const and keeps no state beyond attributes
// parsed in init(), so it may run from several runs at once.
#include <array>
#include <climits>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "devices/cpu/kernels/elementwise_common.h"
#include "devices/cuda/cuda_launch.h"
#include "devices/cuda/kernels/cuda_kernels.h"
#include "devices/cuda/kernels/elementwise_launch.h"
#include "ir/op_fusion.h"

namespace sy::cuda {
namespace {

using elementwise::broadcast_shape;
using elementwise::require_tensor;
using elementwise::unsupported_type;

// The launch header spells types as ONNX codes; they must mean what the CPU
// masks mean.
static_assert(kEwFloats == elementwise::kFloatTypes);
static_assert(kEwInts == elementwise::kInts);
static_assert(kEwNumeric == elementwise::kNumeric);
static_assert(kEwBool == elementwise::kBoolType);
static_assert(ew_type::kFloat16 == static_cast<int>(DataType::kFloat16) &&
              ew_type::kBFloat16 == static_cast<int>(DataType::kBFloat16) &&
              ew_type::kInt64 == static_cast<int>(DataType::kInt64) &&
              ew_type::kDouble == static_cast<int>(DataType::kDouble));

int code(DataType t) { return static_cast<int>(t); }
bool in_mask(DataType t, uint32_t mask) { return elementwise::dtype_in_mask(t, mask); }

// Collapses the broadcast of `in` to `out` (on the host) into kernel metadata.
template <int N>
Status make_broadcast(const KernelContext& ctx, const Dims& out, const std::array<const Dims*, N>& in,
                      EwBroadcast* m) {
  static_assert(N <= kEwMaxOperands);
  elementwise::BroadcastPlan<N> plan;
  plan.build(out, in);
  if (plan.dims.size() > static_cast<size_t>(kEwMaxRank))
    return Unimplemented(ctx.node().describe(), ": broadcast of shape ", out.to_string(), " needs ", plan.dims.size(),
                         " dimensions after merging; the CUDA kernels support ", kEwMaxRank);
  *m = EwBroadcast{};
  m->numel = plan.numel;
  m->rank = static_cast<int>(plan.dims.size());
  m->small = plan.numel < (int64_t{1} << 31);
  for (size_t d = 0; d < plan.dims.size(); ++d) {
    m->dims[d] = plan.dims[d];
    for (int k = 0; k < N; ++k) m->strides[k][d] = plan.strides[k][d];
  }
  return OkStatus();
}

// ---- binary ops ---------------------------------------------------------------

struct NamedBinary {
  const char* name;
  EwBinary op;
};
constexpr NamedBinary kBinaryOps[] = {
    {"Add", EwBinary::kAdd},
    {"Sub", EwBinary::kSub},
    {"Mul", EwBinary::kMul},
    {"Div", EwBinary::kDiv},
    {"PRelu", EwBinary::kPRelu},
    {"And", EwBinary::kAnd},
    {"Or", EwBinary::kOr},
    {"Xor", EwBinary::kXor},
    {"Equal", EwBinary::kEqual},
    {"Less", EwBinary::kLess},
    {"LessOrEqual", EwBinary::kLessOrEqual},
    {"Greater", EwBinary::kGreater},
    {"GreaterOrEqual", EwBinary::kGreaterOrEqual},
    {"BitwiseAnd", EwBinary::kBitAnd},
    {"BitwiseOr", EwBinary::kBitOr},
    {"BitwiseXor", EwBinary::kBitXor},
};

class BinaryKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    legacy_.init(node);
    if (node.op_type == "Mod") {
      int64_t v = node.attr_int("fmod", 0);
      if (v != 0 && v != 1) return InvalidArgument(node.describe(), ": fmod must be 0 or 1, got ", v);
      op_ = v == 1 ? EwBinary::kFmod : EwBinary::kMod;
      return OkStatus();
    }
    if (node.op_type == "BitShift") {
      std::string d = node.attr_string("direction", "");
      if (d == "LEFT")
        op_ = EwBinary::kShiftLeft;
      else if (d == "RIGHT")
        op_ = EwBinary::kShiftRight;
      else
        return InvalidArgument(node.describe(), ": direction must be \"LEFT\" or \"RIGHT\", got \"", d, "\"");
      return OkStatus();
    }
    for (const NamedBinary& b : kBinaryOps) {
      if (node.op_type == b.name) {
        op_ = b.op;
        return OkStatus();
      }
    }
    return Unimplemented(node.describe(), ": not a CUDA binary elementwise op");
  }

  Status compute(KernelContext& ctx) const override {
    RETURN_IF_ERROR(require_tensor(ctx, 0, "A"));
    RETURN_IF_ERROR(require_tensor(ctx, 1, "B"));
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != b.dtype())
      return InvalidArgument(ctx.node().describe(), ": input types differ (", dtype_name(a.dtype()), " vs ",
                             dtype_name(b.dtype()), ")");
    const uint32_t types = ew_binary_types(op_);
    if (!in_mask(a.dtype(), types)) return unsupported_type(ctx, a.dtype(), types);
    Dims bd_legacy;
    const Dims* bd = &b.dims();
    if (legacy_.enabled) {
      ASSIGN_OR_RETURN(bd_legacy, legacy_.b_dims(ctx, a.dims(), b.dims()));
      bd = &bd_legacy;
    }
    ASSIGN_OR_RETURN(Dims od, broadcast_shape(ctx, a.dims(), *bd));
    const DataType out_type = ew_binary_bool_out(op_) ? DataType::kBool : a.dtype();
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, out_type, od));
    if (out->numel() == 0) return OkStatus();
    EwBroadcast m;
    RETURN_IF_ERROR(make_broadcast<2>(ctx, od, {&a.dims(), bd}, &m));
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    CUDA_RETURN_IF_ERROR(launch_binary(op_, code(a.dtype()), a.raw(), b.raw(), out->raw(), m, l.stream));
    return OkStatus();
  }

 private:
  EwBinary op_ = EwBinary::kAdd;
  elementwise::LegacyBroadcast legacy_;
};

// ---- Pow: base and exponent may have different types (opset 12+) -------------

class PowKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    RETURN_IF_ERROR(require_tensor(ctx, 0, "X"));
    RETURN_IF_ERROR(require_tensor(ctx, 1, "Y"));
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (!in_mask(a.dtype(), kEwPowTypes)) return unsupported_type(ctx, a.dtype(), kEwPowTypes);
    if (!in_mask(b.dtype(), kEwPowTypes)) return unsupported_type(ctx, b.dtype(), kEwPowTypes);
    ASSIGN_OR_RETURN(Dims od, broadcast_shape(ctx, a.dims(), b.dims()));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, a.dtype(), od));
    if (out->numel() == 0) return OkStatus();
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    // Mixed types: widen the exponent to int64 (integer exponents) or double
    // first, as the CPU kernel does, so only three exponent types exist per
    // base type on the device.
    Tensor wide;
    const Tensor* e = &b;
    if (b.dtype() != a.dtype()) {
      const DataType wt = dtype_is_integer(b.dtype()) ? DataType::kInt64 : DataType::kDouble;
      if (b.dtype() != wt) {
        ASSIGN_OR_RETURN(wide, ctx.device().allocate(wt, b.dims()));
        CUDA_RETURN_IF_ERROR(launch_cast(code(b.dtype()), code(wt), b.raw(), wide.raw(), b.numel(), l.stream));
        e = &wide;
      }
    }
    EwBroadcast m;
    RETURN_IF_ERROR(make_broadcast<2>(ctx, od, {&a.dims(), &e->dims()}, &m));
    CUDA_RETURN_IF_ERROR(launch_pow(code(a.dtype()), code(e->dtype()), a.raw(), e->raw(), out->raw(), m, l.stream));
    return OkStatus();
  }
};

// ---- variadic Max / Min / Sum / Mean -----------------------------------------

template <int K>  // 0 Max, 1 Min, 2 Sum, 3 Mean
class VariadicKernel final : public Kernel {
  static constexpr EwBinary kOp = K == 0 ? EwBinary::kMax : K == 1 ? EwBinary::kMin : EwBinary::kAdd;

 public:
  Status compute(KernelContext& ctx) const override {
    const size_t n = ctx.num_inputs();
    if (n == 0) return InvalidArgument(ctx.node().describe(), ": needs at least one input");
    for (size_t i = 0; i < n; ++i) RETURN_IF_ERROR(require_tensor(ctx, i, "data"));
    const DataType dt = ctx.input(0).dtype();
    if (!in_mask(dt, kEwNumeric)) return unsupported_type(ctx, dt, kEwNumeric);
    Dims od = ctx.input(0).dims();
    for (size_t i = 1; i < n; ++i) {
      if (ctx.input(i).dtype() != dt)
        return InvalidArgument(ctx.node().describe(), ": input ", i, " has type ", dtype_name(ctx.input(i).dtype()),
                               ", expected ", dtype_name(dt));
      ASSIGN_OR_RETURN(od, broadcast_shape(ctx, od, ctx.input(i).dims()));
    }
    if (n == 1) {
      // max/min/sum/mean of one tensor is the tensor: share it.
      ctx.set_output(0, ctx.input_value(0));
      return OkStatus();
    }
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, dt, od));
    if (out->numel() == 0) return OkStatus();
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    EwBroadcast m;
    const Tensor& x0 = ctx.input(0);
    const Tensor& x1 = ctx.input(1);
    RETURN_IF_ERROR(make_broadcast<2>(ctx, od, {&x0.dims(), &x1.dims()}, &m));
    CUDA_RETURN_IF_ERROR(launch_binary(kOp, code(dt), x0.raw(), x1.raw(), out->raw(), m, l.stream));
    // Later inputs fold into the output in place (same index in and out).
    for (size_t i = 2; i < n; ++i) {
      const Tensor& xi = ctx.input(i);
      RETURN_IF_ERROR(make_broadcast<2>(ctx, od, {&od, &xi.dims()}, &m));
      CUDA_RETURN_IF_ERROR(launch_binary(kOp, code(dt), out->raw(), xi.raw(), out->raw(), m, l.stream));
    }
    if constexpr (K == 3) {
      CUDA_RETURN_IF_ERROR(
          launch_div_count(code(dt), out->raw(), out->numel(), static_cast<int64_t>(n), l.stream));
    }
    return OkStatus();
  }
};

// ---- Where ------------------------------------------------------------------------

class WhereKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    RETURN_IF_ERROR(require_tensor(ctx, 0, "condition"));
    RETURN_IF_ERROR(require_tensor(ctx, 1, "X"));
    RETURN_IF_ERROR(require_tensor(ctx, 2, "Y"));
    const Tensor& c = ctx.input(0);
    const Tensor& x = ctx.input(1);
    const Tensor& y = ctx.input(2);
    if (c.dtype() != DataType::kBool)
      return InvalidArgument(ctx.node().describe(), ": condition must be bool, got ", dtype_name(c.dtype()));
    if (x.dtype() != y.dtype())
      return InvalidArgument(ctx.node().describe(), ": X and Y types differ (", dtype_name(x.dtype()), " vs ",
                             dtype_name(y.dtype()), ")");
    if (!in_mask(x.dtype(), kEwNumericBool)) return unsupported_type(ctx, x.dtype(), kEwNumericBool);
    ASSIGN_OR_RETURN(Dims od, broadcast_shape(ctx, c.dims(), x.dims()));
    ASSIGN_OR_RETURN(od, broadcast_shape(ctx, od, y.dims()));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), od));
    if (out->numel() == 0) return OkStatus();
    EwBroadcast m;
    RETURN_IF_ERROR(make_broadcast<3>(ctx, od, {&c.dims(), &x.dims(), &y.dims()}, &m));
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    CUDA_RETURN_IF_ERROR(launch_where(static_cast<int>(dtype_size(x.dtype())), c.data<bool>(), x.raw(), y.raw(),
                                      out->raw(), m, l.stream));
    return OkStatus();
  }
};

// ---- unary ops ------------------------------------------------------------------

struct NamedUnary {
  const char* name;
  EwUnary op;
  int since;
};
constexpr NamedUnary kUnaryOps[] = {
    {"Abs", EwUnary::kAbs, 1},
    {"Neg", EwUnary::kNeg, 1},
    {"Reciprocal", EwUnary::kReciprocal, 1},
    {"Sqrt", EwUnary::kSqrt, 1},
    {"Exp", EwUnary::kExp, 1},
    {"Log", EwUnary::kLog, 1},
    {"Floor", EwUnary::kFloor, 1},
    {"Ceil", EwUnary::kCeil, 1},
    {"Round", EwUnary::kRound, 11},
    {"Sign", EwUnary::kSign, 9},
    {"Erf", EwUnary::kErf, 9},
    {"Sin", EwUnary::kSin, 7},
    {"Cos", EwUnary::kCos, 7},
    {"Tan", EwUnary::kTan, 7},
    {"Asin", EwUnary::kAsin, 7},
    {"Acos", EwUnary::kAcos, 7},
    {"Atan", EwUnary::kAtan, 7},
    {"Sinh", EwUnary::kSinh, 9},
    {"Cosh", EwUnary::kCosh, 9},
    {"Asinh", EwUnary::kAsinh, 9},
    {"Acosh", EwUnary::kAcosh, 9},
    {"Atanh", EwUnary::kAtanh, 9},
    {"Not", EwUnary::kNot, 1},
    {"BitwiseNot", EwUnary::kBitNot, 18},
    {"IsNaN", EwUnary::kIsNaN, 9},
    {"IsInf", EwUnary::kIsInf, 10},
    {"Relu", EwUnary::kRelu, 1},
    {"LeakyRelu", EwUnary::kLeakyRelu, 1},
    {"Elu", EwUnary::kElu, 1},
    {"Selu", EwUnary::kSelu, 1},
    {"Celu", EwUnary::kCelu, 12},
    {"Sigmoid", EwUnary::kSigmoid, 1},
    {"HardSigmoid", EwUnary::kHardSigmoid, 1},
    {"HardSwish", EwUnary::kHardSwish, 14},
    {"Tanh", EwUnary::kTanh, 1},
    {"Softplus", EwUnary::kSoftplus, 1},
    {"Softsign", EwUnary::kSoftsign, 1},
    {"ThresholdedRelu", EwUnary::kThresholdedRelu, 10},
    {"Mish", EwUnary::kMish, 18},
    {"Gelu", EwUnary::kGeluErf, 20},  // kGeluTanh where approximate="tanh"
    {"Shrink", EwUnary::kShrink, 9},
};

class UnaryKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    bool found = false;
    for (const NamedUnary& u : kUnaryOps) {
      if (node.op_type == u.name) {
        op_ = u.op;
        found = true;
        break;
      }
    }
    if (!found) return Unimplemented(node.describe(), ": not a CUDA unary elementwise op");
    // Defaults as in the CPU kernels (elementwise_unary.cc).
    switch (op_) {
      case EwUnary::kLeakyRelu: p_.alpha = node.attr_float("alpha", 0.01f); break;
      case EwUnary::kElu: case EwUnary::kThresholdedRelu: p_.alpha = node.attr_float("alpha", 1.0f); break;
      case EwUnary::kCelu:
        p_.alpha = node.attr_float("alpha", 1.0f);
        if (p_.alpha == 0.0f) return InvalidArgument(node.describe(), ": alpha must not be 0");
        break;
      case EwUnary::kSelu:
        p_.alpha = node.attr_float("alpha", 1.67326319217681884765625f);
        p_.gamma = node.attr_float("gamma", 1.05070102214813232421875f);
        break;
      case EwUnary::kHardSigmoid:
        p_.alpha = node.attr_float("alpha", 0.2f);
        p_.beta = node.attr_float("beta", 0.5f);
        break;
      case EwUnary::kShrink:
        p_.alpha = node.attr_float("lambd", 0.5f);
        p_.beta = node.attr_float("bias", 0.0f);
        break;
      case EwUnary::kGeluErf: {
        const std::string approximate = node.attr_string("approximate", "none");
        if (approximate == "tanh") op_ = EwUnary::kGeluTanh;
        else if (approximate != "none")
          return InvalidArgument(node.describe(), ": approximate must be 'none' or 'tanh', got '", approximate, "'");
        break;
      }
      case EwUnary::kIsInf:
        p_.detect_negative = node.attr_int("detect_negative", 1) != 0;
        p_.detect_positive = node.attr_int("detect_positive", 1) != 0;
        break;
      default: break;
    }
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    RETURN_IF_ERROR(require_tensor(ctx, 0, "X"));
    const Tensor& x = ctx.input(0);
    const uint32_t types = ew_unary_types(op_);
    if (!in_mask(x.dtype(), types)) return unsupported_type(ctx, x.dtype(), types);
    const DataType out_type = ew_unary_bool_out(op_) ? DataType::kBool : x.dtype();
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, out_type, x.dims()));
    if (out->numel() == 0) return OkStatus();
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    CUDA_RETURN_IF_ERROR(launch_unary(op_, code(x.dtype()), x.raw(), out->raw(), x.numel(), p_, l.stream));
    return OkStatus();
  }

 private:
  EwUnary op_ = EwUnary::kAbs;
  EwUnaryParams p_;
};

// ---- Clip ------------------------------------------------------------------------

// Before opset 11 min/max are attributes; from 11 they are optional scalar
// inputs, read on the host (registered as host inputs 1 and 2).
class ClipKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    attrs_ = node.opset < 11;
    if (attrs_) {
      if (node.has_attr("min")) min_attr_ = node.attr_float("min", 0);
      if (node.has_attr("max")) max_attr_ = node.attr_float("max", 0);
    }
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    RETURN_IF_ERROR(require_tensor(ctx, 0, "input"));
    const Tensor& x = ctx.input(0);
    if (!in_mask(x.dtype(), kEwNumeric)) return unsupported_type(ctx, x.dtype(), kEwNumeric);
    for (size_t i = 1; i < 3 && !attrs_; ++i) {
      if (!ctx.has_input(i)) continue;
      const Tensor& b = ctx.input(i);
      const char* what = i == 1 ? "min" : "max";
      if (!b.defined()) return InvalidArgument(ctx.node().describe(), ": input ", i, " must be a tensor");
      if (b.dtype() != x.dtype())
        return InvalidArgument(ctx.node().describe(), ": ", what, " has type ", dtype_name(b.dtype()), ", expected ",
                               dtype_name(x.dtype()));
      if (b.numel() != 1)
        return InvalidArgument(ctx.node().describe(), ": ", what, " must be a scalar, got shape ",
                               b.dims().to_string());
      if (!b.space().is_host_accessible())
        return FailedPrecondition(ctx.node().describe(), ": ", what, " must be in host memory");
    }
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), x.dims()));
    if (out->numel() == 0) return OkStatus();
    EwScalar lo, hi;
    visit_numeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        using C = elementwise::Compute<T>;
        static_assert(sizeof(C) <= sizeof(lo.bytes));
        C min_v = std::numeric_limits<C>::lowest();
        C max_v = std::numeric_limits<C>::max();
        if constexpr (std::is_floating_point_v<C>) {
          min_v = -std::numeric_limits<C>::infinity();
          max_v = std::numeric_limits<C>::infinity();
        }
        if (attrs_) {
          if (min_attr_) min_v = elementwise::cvt<C>(*min_attr_);
          if (max_attr_) max_v = elementwise::cvt<C>(*max_attr_);
        } else {
          if (ctx.has_input(1)) min_v = elementwise::cvt<C>(ctx.input(1).data<T>()[0]);
          if (ctx.has_input(2)) max_v = elementwise::cvt<C>(ctx.input(2).data<T>()[0]);
        }
        std::memcpy(lo.bytes, &min_v, sizeof(C));
        std::memcpy(hi.bytes, &max_v, sizeof(C));
      }
    });
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    CUDA_RETURN_IF_ERROR(launch_clip(code(x.dtype()), x.raw(), out->raw(), x.numel(), lo, hi, l.stream));
    return OkStatus();
  }

 private:
  bool attrs_ = false;
  std::optional<float> min_attr_, max_attr_;
};

// ---- Cast, CastLike, Identity ---------------------------------------------------

Status cast_tensor(KernelContext& ctx, const Tensor& x, DataType to) {
  if (!in_mask(x.dtype(), kEwCastTypes)) return unsupported_type(ctx, x.dtype(), kEwCastTypes);
  if (!in_mask(to, kEwCastTypes)) return unsupported_type(ctx, to, kEwCastTypes);
  if (x.dtype() == to) {
    ctx.set_output(0, RuntimeValue(x));  // same type: share the buffer
    return OkStatus();
  }
  ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, to, x.dims()));
  if (out->numel() == 0) return OkStatus();
  ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
  CUDA_RETURN_IF_ERROR(launch_cast(code(x.dtype()), code(to), x.raw(), out->raw(), x.numel(), l.stream));
  return OkStatus();
}

class CastKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    const Attribute* a = node.attr("to");
    if (!a) return InvalidArgument(node.describe(), ": missing attribute 'to'");
    // Opsets 1-5 name the type as a string; rare enough to leave to the CPU.
    if (a->kind == Attribute::Kind::kString)
      return Unimplemented(node.describe(), ": the string form of 'to' is not supported on CUDA");
    if (!dtype_is_valid(static_cast<int>(a->i)))
      return InvalidArgument(node.describe(), ": 'to' = ", a->i, " is not a valid ONNX type");
    to_ = static_cast<DataType>(a->i);
    if (!in_mask(to_, kEwCastTypes))
      return Unimplemented(node.describe(), ": cast to ", dtype_name(to_), " is not supported on CUDA");
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    RETURN_IF_ERROR(require_tensor(ctx, 0, "input"));
    return cast_tensor(ctx, ctx.input(0), to_);
  }

 private:
  DataType to_ = DataType::kUndefined;
};

class CastLikeKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    RETURN_IF_ERROR(require_tensor(ctx, 0, "input"));
    RETURN_IF_ERROR(require_tensor(ctx, 1, "target_type"));
    return cast_tensor(ctx, ctx.input(0), ctx.input(1).dtype());
  }
};

// Zero-copy, whatever the value holds (tensor, sequence, empty optional), as
// on the CPU.
class IdentityKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    ctx.set_output(0, ctx.input_value(0));
    return OkStatus();
  }
};

std::vector<DataType> types_of(uint32_t mask) { return elementwise::types_of(mask); }

void add_binary(KernelRegistry& r, const char* op, EwBinary e, int since) {
  add_cuda_kernel<BinaryKernel>(r, op, since, types_of(ew_binary_types(e)));
}

}  // namespace

void register_cuda_elementwise_kernels(KernelRegistry& r) {
  // Opset ranges and types follow the CPU registration (elementwise_*.cc).
  for (const NamedBinary& b : kBinaryOps) {
    int since = 1;
    if (b.op == EwBinary::kLessOrEqual || b.op == EwBinary::kGreaterOrEqual) since = 12;
    if (b.op == EwBinary::kBitAnd || b.op == EwBinary::kBitOr || b.op == EwBinary::kBitXor) since = 18;
    add_binary(r, b.name, b.op, since);
  }
  add_binary(r, "Mod", EwBinary::kMod, 10);
  add_binary(r, "BitShift", EwBinary::kShiftLeft, 11);
  add_cuda_kernel<PowKernel>(r, "Pow", 1, types_of(kEwPowTypes));
  add_cuda_kernel<VariadicKernel<0>>(r, "Max", 1, types_of(kEwNumeric));
  add_cuda_kernel<VariadicKernel<1>>(r, "Min", 1, types_of(kEwNumeric));
  add_cuda_kernel<VariadicKernel<2>>(r, "Sum", 1, types_of(kEwNumeric));
  add_cuda_kernel<VariadicKernel<3>>(r, "Mean", 1, types_of(kEwNumeric));
  add_cuda_kernel<WhereKernel>(r, "Where", 9, {DataType::kBool});
  for (const NamedUnary& u : kUnaryOps) add_cuda_kernel<UnaryKernel>(r, u.name, u.since, types_of(ew_unary_types(u.op)));
  // OpFusion's Gelu, made from the erf arithmetic of float models before
  // opset 20.
  KernelDef fused_gelu = cuda_kernel_def<UnaryKernel>(kFusedGelu, 1, {DataType::kFloat});
  fused_gelu.domain = kSwitchyardDomain;
  r.add(std::move(fused_gelu));
  add_cuda_kernel<ClipKernel>(r, "Clip", 1, types_of(kEwNumeric), 0, 10);
  add_cuda_kernel<ClipKernel>(r, "Clip", 11, types_of(kEwNumeric), 0b110);
  add_cuda_kernel<CastKernel>(r, "Cast", 1, types_of(kEwCastTypes));
  add_cuda_kernel<CastLikeKernel>(r, "CastLike", 15, types_of(kEwCastTypes));
  add_cuda_kernel<IdentityKernel>(r, "Identity", 1, types_of(kEwNumericBool));
}

}  // namespace sy::cuda

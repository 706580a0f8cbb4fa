// CPU elementwise kernels, part 1: binary arithmetic, logic, bitwise and
// comparison ops, Pow, Mod, PRelu, the variadic Max/Min/Sum/Mean and Where,
// plus the family's shared helpers and its registration entry point.
// Unary math/activations live in elementwise_unary.cc, Cast/CastLike in
// elementwise_cast.cc, quantization and Dropout in elementwise_quant.cc.
// Built with elementwise_unary.cc's options (-fno-math-errno and
// -fno-trapping-math: CMakeLists.txt).
//
// Thread-safety: every kernel's compute() is const and keeps no state beyond
// attributes parsed in init(), so it may run from several runs at once.
// First: it sets this family's optimisation options for the whole TU.
#include "devices/cpu/kernels/elementwise_common.h"

#include <bit>
#include <climits>
#include <cmath>
#include <limits>
#include <type_traits>

namespace sy {
namespace elementwise {

std::vector<DataType> types_of(uint32_t mask) {
  std::vector<DataType> out;
  for (int t = 1; t <= kMaxDataType; ++t)
    if (mask & (1u << t)) out.push_back(static_cast<DataType>(t));
  return out;
}

std::string mask_names(uint32_t mask) {
  std::string s;
  for (DataType t : types_of(mask)) {
    if (!s.empty()) s += ", ";
    s += dtype_name(t);
  }
  return s;
}

Status missing_tensor(const KernelContext& ctx, size_t i, const char* what) {
  return InvalidArgument(ctx.node().describe(), ": input ", i, " (", what, ") must be a tensor");
}

StatusOr<Dims> broadcast_shape(const KernelContext& ctx, const Dims& a, const Dims& b) {
  if (a == b) return a;
  auto r = broadcast_dims(a, b);
  if (!r.ok()) return r.status().with_context(ctx.node().describe());
  return r;
}

Status unsupported_type(const KernelContext& ctx, DataType t, uint32_t mask) {
  return Unimplemented(ctx.node().describe(), ": element type ", dtype_name(t),
                       " is not supported (supported: ", mask_names(mask), ")");
}

void add_def(KernelRegistry& r, const char* op, int since, int end, KernelFactory f, uint32_t types) {
  KernelDef d;
  d.op = op;
  d.since_version = since;
  d.end_version = end;
  d.device = DeviceKind::kCpu;
  if (types) d.types = types_of(types);
  d.factory = f;
  r.add(std::move(d));
}

namespace {

// ---- binary op functors --------------------------------------------------------
// Each has kTypes (accepted input types), kBoolOut (output is bool), and an
// operator() on Compute<T> values. init() parses attributes; validate<T>()
// rejects attribute/type combinations at run time.

struct OpBase {
  static constexpr bool kBoolOut = false;
  Status init(const Node&) { return OkStatus(); }
  template <typename T>
  Status validate(const Node&) const { return OkStatus(); }
};

struct AddOp : OpBase {
  static constexpr uint32_t kTypes = kNumeric;
  template <typename C> C operator()(C a, C b) const { return wrap_add(a, b); }
};
struct SubOp : OpBase {
  static constexpr uint32_t kTypes = kNumeric;
  template <typename C> C operator()(C a, C b) const { return wrap_sub(a, b); }
};
struct MulOp : OpBase {
  static constexpr uint32_t kTypes = kNumeric;
  template <typename C> C operator()(C a, C b) const { return wrap_mul(a, b); }
};
struct DivOp : OpBase {
  static constexpr uint32_t kTypes = kNumeric;
  template <typename C> C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      // Integer division by zero (or INT_MIN / -1) would trap: define it.
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<C>)
        if (b == -1) return wrap_neg(a);
    }
    return static_cast<C>(a / b);
  }
};

// fmod(a, b), exactly as std::fmod, for float by a - q b with q = trunc(a
// / b): glibc's fmodf subtracts bit by bit, 15 ns an element. The rounded
// quotient is never below the true one's integer part and at most one
// above it while under 2^23, and a - q b is then exact in one fma (the
// remainder, or the remainder minus b, both on b's grid), so one step
// back fixes the sign. The sign of a zero is a's, as fmod's. Larger
// quotients, zero or infinite divisors, infinities and NaNs go to
// std::fmod; double (whose quotient's rounding leaves no such bound
// cheaply) always does.
template <typename C>
inline C exact_fmod(C a, C b) {
  if constexpr (std::is_same_v<C, float>) {
    const float q = std::trunc(a / b);
    if (std::fabs(q) < 0x1p23f && std::fabs(b) < std::numeric_limits<float>::infinity()) {
      float r = std::fma(-q, b, a);
      if (r != 0 && std::signbit(r) != std::signbit(a)) r += std::copysign(b, a);
      return std::copysign(r, a);
    }
  }
  return std::fmod(a, b);
}

struct ModOp : OpBase {
  static constexpr uint32_t kTypes = kNumeric;
  bool fmod = false;
  Status init(const Node& n) {
    int64_t v = n.attr_int("fmod", 0);
    if (v != 0 && v != 1) return InvalidArgument(n.describe(), ": fmod must be 0 or 1, got ", v);
    fmod = v == 1;
    return OkStatus();
  }
  template <typename C> C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<C>) {
        if (b == -1) return 0;
        C r = static_cast<C>(a % b);
        if (!fmod && r != 0 && ((r < 0) != (b < 0))) r = static_cast<C>(r + b);
        return r;
      } else {
        return static_cast<C>(a % b);
      }
    } else {
      C r = exact_fmod(a, b);
      // Python-style (sign of the divisor) when fmod=0. ONNX requires fmod=1
      // for floats; the floored variant is the natural lenient reading.
      if (!fmod && r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    }
  }
};

struct BitShiftOp : OpBase {
  static constexpr uint32_t kTypes = kUnsignedInts;
  bool left = true;
  Status init(const Node& n) {
    std::string d = n.attr_string("direction", "");
    if (d == "LEFT") left = true;
    else if (d == "RIGHT") left = false;
    else return InvalidArgument(n.describe(), ": direction must be \"LEFT\" or \"RIGHT\", got \"", d, "\"");
    return OkStatus();
  }
  template <typename C> C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      if (b >= static_cast<C>(sizeof(C) * 8)) return 0;
      return static_cast<C>(left ? a << b : a >> b);
    } else {
      return a;
    }
  }
};

template <int K>
struct BitwiseOp : OpBase {
  static constexpr uint32_t kTypes = kInts;
  template <typename C> C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      if constexpr (K == 0) return static_cast<C>(a & b);
      if constexpr (K == 1) return static_cast<C>(a | b);
      if constexpr (K == 2) return static_cast<C>(a ^ b);
    }
    return a;
  }
};

template <int K>
struct LogicOp : OpBase {
  static constexpr uint32_t kTypes = kBoolType;
  static constexpr bool kBoolOut = true;
  template <typename C> bool operator()(C a, C b) const {
    if constexpr (K == 0) return a && b;
    if constexpr (K == 1) return a || b;
    return a != b;
  }
};

template <int K>
struct CompareOp : OpBase {
  static constexpr uint32_t kTypes = kNumericBool;
  static constexpr bool kBoolOut = true;
  static constexpr bool kStrings = K == 0;  // Equal, from opset 19
  template <typename C> bool operator()(C a, C b) const {
    if constexpr (K == 0) return a == b;
    if constexpr (K == 1) return a < b;
    if constexpr (K == 2) return a <= b;
    if constexpr (K == 3) return a > b;
    return a >= b;
  }
};

struct PReluOp : OpBase {
  static constexpr uint32_t kTypes = kFloatTypes | kSignedInts | kUnsignedInts;
  template <typename C> C operator()(C x, C slope) const { return x < C(0) ? static_cast<C>(x * slope) : x; }
};

// Max/Min/Sum/Mean share the binary step; NaN propagates like np.maximum.
template <int K>
struct FoldOp : OpBase {
  static constexpr uint32_t kTypes = K <= 1 ? kNumeric : kFloatTypes | kInts;
  template <typename C> C operator()(C a, C b) const {
    if constexpr (K <= 1) {
      if constexpr (std::is_floating_point_v<C>) {
        if (std::isnan(a)) return a;
        if (std::isnan(b)) return b;
      }
      if constexpr (K == 0) return a < b ? b : a;
      return b < a ? b : a;
    } else {
      return wrap_add(a, b);
    }
  }
};

// Applies op element by element: O out from raw T values, via Compute<T>.
template <typename O, typename T, typename Op>
struct Lifted {
  const Op& op;
  O operator()(T a, T b) const { return cvt<O>(op(cvt<Compute<T>>(a), cvt<Compute<T>>(b))); }
};

template <typename Op>
class BinaryKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    legacy_.init(node);
    return op_.init(node);
  }

  Status compute(KernelContext& ctx) const override {
    RETURN_IF_ERROR(require_tensor(ctx, 0, "A"));
    RETURN_IF_ERROR(require_tensor(ctx, 1, "B"));
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != b.dtype())
      return InvalidArgument(ctx.node().describe(), ": input types differ (", dtype_name(a.dtype()), " vs ",
                             dtype_name(b.dtype()), ")");
    if constexpr (requires { Op::kStrings; }) {
      if (Op::kStrings && a.dtype() == DataType::kString)
        return string_binary<bool>(ctx, a, b, DataType::kBool,
                                   [](const std::string& x, const std::string& y) { return x == y; });
    }
    if (!dtype_in_mask(a.dtype(), Op::kTypes)) return unsupported_type(ctx, a.dtype(), Op::kTypes);
    Dims bd_legacy;
    const Dims* bd = &b.dims();
    if (legacy_.enabled) {
      ASSIGN_OR_RETURN(bd_legacy, legacy_.b_dims(ctx, a.dims(), b.dims()));
      bd = &bd_legacy;
    }
    ASSIGN_OR_RETURN(Dims od, broadcast_shape(ctx, a.dims(), *bd));
    Status st;
    visit_numeric(a.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (in_mask<T>(Op::kTypes)) {
        using O = std::conditional_t<Op::kBoolOut, bool, T>;
        st = op_.template validate<T>(ctx.node());
        if (!st.ok()) return;
        auto out = ctx.allocate_output(0, DataTypeOf<O>::value, od);
        if (!out.ok()) {
          st = out.status();
          return;
        }
        binary_loop<O, T, T>(a.data<T>(), a.dims(), b.data<T>(), *bd, (*out)->template data<O>(), od,
                             Lifted<O, T, Op>{op_});
      }
    });
    return st;
  }

 private:
  Op op_;
  LegacyBroadcast legacy_;
};

// ---- Pow: base and exponent may have different types (opset 12+) -------------

constexpr uint32_t kPowTypes = kNumeric;

template <typename C, typename E>
C pow_value(C base, E e) {
  if constexpr (std::is_integral_v<C> && std::is_integral_v<E>) {
    if constexpr (std::is_signed_v<E>) {
      if (e < 0) return cvt<C>(std::pow(static_cast<double>(base), static_cast<double>(e)));
    }
    // Exact integer power by squaring (wraps like numpy on overflow).
    C result = 1, b = base;
    auto n = static_cast<std::make_unsigned_t<E>>(e);
    while (n) {
      if (n & 1) result = wrap_mul(result, b);
      b = wrap_mul(b, b);
      n >>= 1;
    }
    return result;
  } else if constexpr (std::is_same_v<C, float> && std::is_same_v<E, float>) {
    return std::pow(base, e);
  } else {
    return cvt<C>(std::pow(static_cast<double>(base), static_cast<double>(e)));
  }
}

// x^e for a float tensor x and a common scalar exponent e (2 in norms and
// variances, 3 in GELU's tanh form, 0.5, 1, -1) as a product, a square root
// or a reciprocal, which vectorise, where powf took about 5 ns an element
// (1.2 ms for [256, 1024], 24x ONNX Runtime's time). Each gives powf's
// result on every input, signed zeros and infinities included (the square
// root's two differences are fixed up), but x^3, whose two roundings keep
// it within 2 ulp. False, with no output allocated, for any other
// exponent.
StatusOr<bool> pow_by_scalar(KernelContext& ctx, const Tensor& x, double e) {
  auto run = [&](auto f) -> StatusOr<bool> {
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, DataType::kFloat, x.dims()));
    parallel_ranges(x.numel(), [in = x.data<float>(), y = out->data<float>(), f](int64_t b, int64_t end) {
      for (int64_t i = b; i < end; ++i) y[i] = f(in[i]);
    });
    return true;
  };
  if (e == 2) return run([](float v) { return v * v; });
  if (e == 3) return run([](float v) { return v * v * v; });
  if (e == 1) return run([](float v) { return v; });
  if (e == -1) return run([](float v) { return 1.f / v; });
  // pow(-0, 0.5) is +0 and pow(-inf, 0.5) is +inf, where sqrt gives -0 and NaN.
  if (e == 0.5)
    return run([](float v) { return v == -std::numeric_limits<float>::infinity() ? -v : std::sqrt(v) + 0.f; });
  return false;
}

class PowKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    RETURN_IF_ERROR(require_tensor(ctx, 0, "X"));
    RETURN_IF_ERROR(require_tensor(ctx, 1, "Y"));
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (!dtype_in_mask(a.dtype(), kPowTypes)) return unsupported_type(ctx, a.dtype(), kPowTypes);
    if (!dtype_in_mask(b.dtype(), kPowTypes)) return unsupported_type(ctx, b.dtype(), kPowTypes);
    ASSIGN_OR_RETURN(Dims od, broadcast_shape(ctx, a.dims(), b.dims()));
    if (a.dtype() == DataType::kFloat && b.numel() == 1 && od == a.dims() &&
        (b.dtype() == DataType::kFloat || b.dtype() == DataType::kDouble)) {
      const double e = b.dtype() == DataType::kFloat ? b.data<float>()[0] : b.data<double>()[0];
      ASSIGN_OR_RETURN(bool done, pow_by_scalar(ctx, a, e));
      if (done) return OkStatus();
    }
    // Mixed types: widen the exponent to double (or int64 for integer
    // exponents) once, so only one loop per base type is instantiated.
    Tensor exp_buf;
    const Tensor* e = &b;
    bool int_exp = dtype_is_integer(b.dtype());
    if (b.dtype() != a.dtype()) {
      DataType wide = int_exp ? DataType::kInt64 : DataType::kDouble;
      ASSIGN_OR_RETURN(exp_buf, Tensor::host(wide, b.dims()));
      visit_numeric(b.dtype(), [&](auto tag) {
        using E = decltype(tag);
        const E* src = b.data<E>();
        for (int64_t i = 0; i < b.numel(); ++i) {
          if (int_exp)
            exp_buf.data<int64_t>()[i] = cvt<int64_t>(src[i]);
          else
            exp_buf.data<double>()[i] = cvt<double>(src[i]);
        }
      });
      e = &exp_buf;
    }
    Status st;
    visit_numeric(a.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (in_mask<T>(kPowTypes)) {
        auto out = ctx.allocate_output(0, DataTypeOf<T>::value, od);
        if (!out.ok()) {
          st = out.status();
          return;
        }
        T* o = (*out)->template data<T>();
        using C = Compute<T>;
        auto run = [&](auto etag) {
          using E = decltype(etag);
          binary_loop<T, T, E>(a.data<T>(), a.dims(), e->data<E>(), e->dims(), o, od, [](T x, E y) {
            return cvt<T>(pow_value(cvt<C>(x), cvt<Compute<E>>(y)));
          });
        };
        if (e->dtype() == a.dtype())
          run(T{});
        else if (e->dtype() == DataType::kInt64)
          run(int64_t{});
        else
          run(double{});
      }
    });
    return st;
  }
};

// ---- variadic Max / Min / Sum / Mean -----------------------------------------

template <int K>  // 0 Max, 1 Min, 2 Sum, 3 Mean
class VariadicKernel final : public Kernel {
  using Op = FoldOp<(K == 3 ? 2 : K)>;
  static constexpr uint32_t kTypes = K >= 2 ? (kFloatTypes | kInts) : kNumeric;

 public:
  Status compute(KernelContext& ctx) const override {
    const size_t n = ctx.num_inputs();
    if (n == 0) return InvalidArgument(ctx.node().describe(), ": needs at least one input");
    for (size_t i = 0; i < n; ++i) RETURN_IF_ERROR(require_tensor(ctx, i, "data"));
    const DataType dt = ctx.input(0).dtype();
    if (!dtype_in_mask(dt, kTypes)) return unsupported_type(ctx, dt, kTypes);
    Dims od = ctx.input(0).dims();
    for (size_t i = 1; i < n; ++i) {
      if (ctx.input(i).dtype() != dt)
        return InvalidArgument(ctx.node().describe(), ": input ", i, " has type ", dtype_name(ctx.input(i).dtype()),
                               ", expected ", dtype_name(dt));
      ASSIGN_OR_RETURN(od, broadcast_shape(ctx, od, ctx.input(i).dims()));
    }
    Status st;
    visit_numeric(dt, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (in_mask<T>(kTypes)) {
        auto out = ctx.allocate_output(0, dt, od);
        if (!out.ok()) {
          st = out.status();
          return;
        }
        T* o = (*out)->template data<T>();
        Op op;
        Lifted<T, T, Op> f{op};
        if (n == 1) {
          broadcast_copy<T>(ctx.input(0).data<T>(), ctx.input(0).dims(), o, od);
        } else {
          binary_loop<T, T, T>(ctx.input(0).data<T>(), ctx.input(0).dims(), ctx.input(1).data<T>(),
                               ctx.input(1).dims(), o, od, f);
          for (size_t i = 2; i < n; ++i)
            binary_loop<T, T, T>(o, od, ctx.input(i).data<T>(), ctx.input(i).dims(), o, od, f);
        }
        if constexpr (K == 3) {
          const int64_t total = od.numel();
          parallel_ranges(total, [&](int64_t b, int64_t e) {
            if constexpr (std::is_integral_v<T>) {
              // In 64 bits: the count as a T wraps (uint8 256 -> 0, a
              // division by zero; int8 128 -> -128).
              using W = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
              for (int64_t i = b; i < e; ++i) o[i] = static_cast<T>(static_cast<W>(o[i]) / static_cast<W>(n));
            } else {
              const Compute<T> count = static_cast<Compute<T>>(n);
              for (int64_t i = b; i < e; ++i) o[i] = cvt<T>(cvt<Compute<T>>(o[i]) / count);
            }
          });
        }
      }
    });
    return st;
  }
};

// ---- Where ------------------------------------------------------------------------

// Calls f(T{}) for numeric types and std::string.
template <typename F>
bool visit_any(DataType t, F&& f) {
  if (t == DataType::kString) {
    f(std::string{});
    return true;
  }
  return visit_numeric(t, f);
}

// f(a, b, c) with each flag as a std::bool_constant, so that f's loops are
// compiled for every combination.
template <typename F>
void with_flags(bool a, bool b, bool c, F&& f) {
  auto pick = [](bool v, auto&& g) { v ? g(std::true_type{}) : g(std::false_type{}); };
  pick(a, [&](auto x) { pick(b, [&](auto y) { pick(c, [&](auto z) { f(x, y, z); }); }); });
}

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
    ASSIGN_OR_RETURN(Dims od, broadcast_shape(ctx, c.dims(), x.dims()));
    ASSIGN_OR_RETURN(od, broadcast_shape(ctx, od, y.dims()));
    Status st;
    bool known = visit_any(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      auto out = ctx.allocate_output(0, x.dtype(), od);
      if (!out.ok()) {
        st = out.status();
        return;
      }
      const bool* pc = c.data<bool>();
      const T* px = x.data<T>();
      const T* py = y.data<T>();
      T* o = (*out)->template data<T>();
      BroadcastPlan<3> plan;
      plan.build(od, {&c.dims(), &x.dims(), &y.dims()});
      run_plan<3>(plan, [&](int64_t oo, const int64_t* off, int64_t len, const int64_t* s) {
        const bool* cc = pc + off[0];
        const T* xx = px + off[1];
        const T* yy = py + off[2];
        T* po = o + oo;
        if constexpr (std::is_arithmetic_v<T>) {
          // A select by bit mask, without a branch: the compiler's branch on
          // random conditions mispredicted half the time ([256, 1024]
          // floats: 4x ONNX Runtime's time), and with same shapes the
          // select vectorises. The condition is read as bytes: a bool
          // tensor from a file may hold any nonzero byte for true.
          using U = std::conditional_t<sizeof(T) == 8, uint64_t,
                                       std::conditional_t<sizeof(T) == 4, uint32_t,
                                                          std::conditional_t<sizeof(T) == 2, uint16_t, uint8_t>>>;
          const auto* cb = reinterpret_cast<const uint8_t*>(cc);
          auto select = [](uint8_t c, T a, T b) {
            const U mask = U(0) - static_cast<U>(c != 0);  // all ones where true
            return std::bit_cast<T>(
                static_cast<U>((std::bit_cast<U>(a) & mask) | (std::bit_cast<U>(b) & static_cast<U>(~mask))));
          };
          // Each operand's stride is most often 1 or 0 (a broadcast row or
          // value), and the loop with those as constants vectorises; with
          // them as variables a [256, 1] condition took 2.3x ONNX
          // Runtime's time.
          auto unit = [](int64_t st) { return st == 0 || st == 1; };
          if (unit(s[0]) && unit(s[1]) && unit(s[2])) {
            with_flags(s[0] == 1, s[1] == 1, s[2] == 1, [&](auto c1, auto x1, auto y1) {
              for (int64_t i = 0; i < len; ++i) po[i] = select(cb[c1 ? i : 0], xx[x1 ? i : 0], yy[y1 ? i : 0]);
            });
          } else {
            for (int64_t i = 0; i < len; ++i) po[i] = select(cb[i * s[0]], xx[i * s[1]], yy[i * s[2]]);
          }
        } else {
          for (int64_t i = 0; i < len; ++i) po[i] = cc[i * s[0]] ? xx[i * s[1]] : yy[i * s[2]];
        }
      });
    });
    if (!known) return unsupported_type(ctx, x.dtype(), kNumericBool | kStringType);
    return st;
  }
};

template <typename Op>
void add_binary(KernelRegistry& r, const char* op, int since, int end = INT_MAX) {
  add_def(r, op, since, end, &make_kernel<BinaryKernel<Op>>, Op::kTypes);
}

}  // namespace
}  // namespace elementwise

void register_cpu_elementwise_kernels(KernelRegistry& r) {
  using namespace elementwise;
  add_binary<AddOp>(r, "Add", 1);
  add_binary<SubOp>(r, "Sub", 1);
  add_binary<MulOp>(r, "Mul", 1);
  add_binary<DivOp>(r, "Div", 1);
  add_binary<ModOp>(r, "Mod", 10);
  add_binary<BitShiftOp>(r, "BitShift", 11);
  add_binary<BitwiseOp<0>>(r, "BitwiseAnd", 18);
  add_binary<BitwiseOp<1>>(r, "BitwiseOr", 18);
  add_binary<BitwiseOp<2>>(r, "BitwiseXor", 18);
  add_binary<LogicOp<0>>(r, "And", 1);
  add_binary<LogicOp<1>>(r, "Or", 1);
  add_binary<LogicOp<2>>(r, "Xor", 1);
  add_binary<CompareOp<0>>(r, "Equal", 1, 18);
  add_def(r, "Equal", 19, INT_MAX, &make_kernel<BinaryKernel<CompareOp<0>>>, kNumericBool | kStringType);
  add_binary<CompareOp<1>>(r, "Less", 1);
  add_binary<CompareOp<2>>(r, "LessOrEqual", 12);
  add_binary<CompareOp<3>>(r, "Greater", 1);
  add_binary<CompareOp<4>>(r, "GreaterOrEqual", 12);
  add_binary<PReluOp>(r, "PRelu", 1);
  add_def(r, "Pow", 1, INT_MAX, &make_kernel<PowKernel>, kPowTypes);
  add_def(r, "Max", 1, INT_MAX, &make_kernel<VariadicKernel<0>>, kNumeric);
  add_def(r, "Min", 1, INT_MAX, &make_kernel<VariadicKernel<1>>, kNumeric);
  add_def(r, "Sum", 1, INT_MAX, &make_kernel<VariadicKernel<2>>, kFloatTypes | kInts);
  add_def(r, "Mean", 1, INT_MAX, &make_kernel<VariadicKernel<3>>, kFloatTypes | kInts);
  add_def(r, "Where", 9, INT_MAX, &make_kernel<WhereKernel>, kBoolType);
  register_unary_kernels(r);
  register_cast_kernels(r);
  register_quant_kernels(r);
}

}  // namespace sy

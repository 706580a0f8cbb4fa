// CPU elementwise kernels, part 3: Cast and CastLike between every numeric
// type, bool and string.
//
// Numbers become strings the way numpy's astype(str) writes them (shortest
// round-trip digits, positional for 1e-4 <= |x| < 1e16, "1e-05" style
// otherwise), except NaN/Inf which use ONNX's "NaN", "INF", "-INF". Strings
// parse with those spellings too (case-insensitive, optional sign).
//
// Thread-safety: compute() is const; the target type is parsed in init().
// First: it sets this family's optimisation options for the whole TU.
#include <cctype>
#include <charconv>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "devices/cpu/kernels/elementwise_common.h"
#include "devices/cpu/kernels/target_clones.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace sy::elementwise {
namespace {

constexpr uint32_t kCastTypes = kNumericBool | kStringType;

// float <-> float16 with the F16C instructions, where the CPU has them: the
// portable conversion is an out-of-line, branchy function of about 8 ns an
// element (a [256, 1024] Cast took 1 ms, ONNX Runtime 35 us). Both round to
// nearest even and keep infinities and NaN (the payload may differ).
#if defined(__x86_64__)
bool has_f16c() {
  static const bool yes = __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
  return yes;
}
__attribute__((target("avx,f16c"))) void f32_to_f16(const float* in, Float16* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT));
  for (; i < n; ++i) out[i] = Float16(in[i]);
}
__attribute__((target("avx,f16c"))) void f16_to_f32(const Float16* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
  for (; i < n; ++i) out[i] = static_cast<float>(in[i]);
}
#endif

// Converts in[0, n) with the F16C instructions if this pair of types has
// them here; false otherwise.
template <typename From, typename To>
bool convert_f16c(const From* in, To* out, int64_t n) {
#if defined(__x86_64__)
  if constexpr (std::is_same_v<From, float> && std::is_same_v<To, Float16>) {
    if (has_f16c()) return f32_to_f16(in, out, n), true;
  } else if constexpr (std::is_same_v<From, Float16> && std::is_same_v<To, float>) {
    if (has_f16c()) return f16_to_f32(in, out, n), true;
  }
#endif
  (void)in, (void)out, (void)n;
  return false;
}

// out[i] = cvt<To>(in[i]), cloned for x86-64-v3 and v4: at the baseline,
// float to int32 or uint8 and bool to float stayed scalar (a [256, 1024]
// Cast from float to int32 took 9.5x ONNX Runtime's time).
template <typename From, typename To>
SY_TARGET_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")
void convert_run(const From* __restrict in, To* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = cvt<To>(in[i]);
}

// Formats `sci` ("d.ddde+XX", shortest digits of value) numpy-style.
std::string numpy_style(double value, const char* sci) {
  std::string_view s(sci);
  bool neg = false;
  if (!s.empty() && s[0] == '-') {
    neg = true;
    s.remove_prefix(1);
  }
  size_t epos = s.find_first_of("eE");
  std::string digits;
  for (char c : s.substr(0, epos))
    if (c >= '0' && c <= '9') digits.push_back(c);
  int exp10 = epos == std::string_view::npos ? 0 : std::atoi(std::string(s.substr(epos + 1)).c_str());
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out = neg ? "-" : "";
  if (value == 0) return out + "0.0";
  double mag = std::fabs(value);
  if (mag >= 1e-4 && mag < 1e16) {
    if (exp10 >= 0) {
      size_t int_len = static_cast<size_t>(exp10) + 1;
      if (digits.size() <= int_len) {
        out += digits + std::string(int_len - digits.size(), '0') + ".0";
      } else {
        out += digits.substr(0, int_len) + "." + digits.substr(int_len);
      }
    } else {
      out += "0." + std::string(static_cast<size_t>(-exp10 - 1), '0') + digits;
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  char ebuf[16];
  std::snprintf(ebuf, sizeof(ebuf), "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
  return out + ebuf;
}

template <typename T>
std::string to_string_value(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "True" : "False";
  } else if constexpr (std::is_integral_v<T>) {
    return std::to_string(v);
  } else {
    double d = static_cast<double>(static_cast<Compute<T>>(v));
    if (std::isnan(d)) return "NaN";
    if (std::isinf(d)) return d > 0 ? "INF" : "-INF";
    char buf[64];
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      auto r = std::to_chars(buf, buf + sizeof(buf) - 1, v, std::chars_format::scientific);
      *r.ptr = '\0';
    } else {
      // 16-bit floats: fewest digits that read back to the same bits.
      for (int p = 1; p <= 9; ++p) {
        std::snprintf(buf, sizeof(buf), "%.*e", p - 1, d);
        if (T(static_cast<float>(std::strtod(buf, nullptr))).bits == v.bits) break;
      }
    }
    return numpy_style(d, buf);
  }
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

// Parses a whole string as a double; accepts NaN/INF spellings and a sign.
bool parse_double(std::string_view s, double* out) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  if (s.empty()) return false;
  std::string tmp(s);
  char* end = nullptr;
  *out = std::strtod(tmp.c_str(), &end);
  return end == tmp.c_str() + tmp.size();
}

template <typename T>
bool from_string_value(const std::string& s, T* out) {
  if constexpr (std::is_same_v<T, bool>) {
    if (iequals(s, "true")) { *out = true; return true; }
    if (iequals(s, "false") || s.empty()) { *out = false; return true; }
    double d;
    if (!parse_double(s, &d)) return false;
    *out = d != 0;
    return true;
  } else if constexpr (std::is_integral_v<T>) {
    std::string_view sv(s);
    if (!sv.empty() && sv[0] == '+') sv.remove_prefix(1);
    T v{};
    auto r = std::from_chars(sv.data(), sv.data() + sv.size(), v);
    if (r.ec == std::errc() && r.ptr == sv.data() + sv.size()) {
      *out = v;
      return true;
    }
    double d;
    if (!parse_double(s, &d)) return false;
    *out = cvt<T>(d);
    return true;
  } else if constexpr (std::is_same_v<T, float>) {
    double d;
    if (!parse_double(s, &d)) return false;
    *out = std::strtof(s.c_str(), nullptr);  // direct: avoids double rounding
    return true;
  } else {
    double d;
    if (!parse_double(s, &d)) return false;
    *out = cvt<T>(d);
    return true;
  }
}

template <typename F>
bool visit_castable(DataType t, F&& f) {
  if (t == DataType::kString) {
    f(std::string{});
    return true;
  }
  return visit_numeric(t, f);
}

// Converts `x` into a new output 0 of type `to`.
Status cast_tensor(KernelContext& ctx, const Tensor& x, DataType to) {
  if (!dtype_in_mask(x.dtype(), kCastTypes)) return unsupported_type(ctx, x.dtype(), kCastTypes);
  if (!dtype_in_mask(to, kCastTypes)) return unsupported_type(ctx, to, kCastTypes);
  if (x.dtype() == to) {
    ctx.set_output(0, RuntimeValue(x));  // same type: share the buffer
    return OkStatus();
  }
  ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, to, x.dims()));
  const int64_t n = x.numel();
  Status st;
  visit_castable(x.dtype(), [&](auto ftag) {
    using From = decltype(ftag);
    const From* in = x.data<From>();
    visit_castable(to, [&](auto ttag) {
      using To = decltype(ttag);
      To* o = out->data<To>();
      if constexpr (std::is_same_v<From, std::string>) {
        if constexpr (!std::is_same_v<To, std::string>) {
          for (int64_t i = 0; i < n; ++i) {
            if (!from_string_value<To>(in[i], &o[i])) {
              st = InvalidArgument(ctx.node().describe(), ": cannot parse \"", in[i], "\" as ", dtype_name(to));
              return;
            }
          }
        }
      } else if constexpr (std::is_same_v<To, std::string>) {
        for (int64_t i = 0; i < n; ++i) o[i] = to_string_value<From>(in[i]);
      } else {
        parallel_ranges(n, [&](int64_t b, int64_t e) {
          if (convert_f16c(in + b, o + b, e - b)) return;
          if constexpr (is_half_v<From> || is_half_v<To>) {
            for (int64_t i = b; i < e; ++i) o[i] = cvt<To>(in[i]);
          } else if constexpr (std::is_same_v<From, bool>) {
            // As the bytes 0 and 1 they are: loops over bools stay scalar.
            convert_run(reinterpret_cast<const uint8_t*>(in) + b, o + b, e - b);
          } else {
            convert_run(in + b, o + b, e - b);
          }
        });
      }
    });
  });
  return st;
}

// Opset 1-5 spell `to` as a type name.
DataType type_from_name(const std::string& s) {
  static const struct { const char* name; DataType t; } kNames[] = {
      {"FLOAT", DataType::kFloat},     {"UINT8", DataType::kUInt8},       {"INT8", DataType::kInt8},
      {"UINT16", DataType::kUInt16},   {"INT16", DataType::kInt16},       {"INT32", DataType::kInt32},
      {"INT64", DataType::kInt64},     {"STRING", DataType::kString},     {"BOOL", DataType::kBool},
      {"FLOAT16", DataType::kFloat16}, {"DOUBLE", DataType::kDouble},     {"UINT32", DataType::kUInt32},
      {"UINT64", DataType::kUInt64},   {"BFLOAT16", DataType::kBFloat16},
  };
  for (const auto& e : kNames)
    if (iequals(s, e.name)) return e.t;
  return DataType::kUndefined;
}

class CastKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    const Attribute* a = node.attr("to");
    if (!a) return InvalidArgument(node.describe(), ": missing attribute 'to'");
    if (a->kind == Attribute::Kind::kString) {
      to_ = type_from_name(a->s);
      if (to_ == DataType::kUndefined) return InvalidArgument(node.describe(), ": unknown type name '", a->s, "'");
    } else {
      if (!dtype_is_valid(static_cast<int>(a->i)))
        return InvalidArgument(node.describe(), ": 'to' = ", a->i, " is not a valid ONNX type");
      to_ = static_cast<DataType>(a->i);
    }
    if (!dtype_in_mask(to_, kCastTypes))
      return Unimplemented(node.describe(), ": cast to ", dtype_name(to_), " is not supported");
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

}  // namespace

void register_cast_kernels(KernelRegistry& r) {
  add_def(r, "Cast", 1, INT_MAX, &make_kernel<CastKernel>, kCastTypes);
  add_def(r, "CastLike", 15, INT_MAX, &make_kernel<CastLikeKernel>, kCastTypes);
}

}  // namespace sy::elementwise

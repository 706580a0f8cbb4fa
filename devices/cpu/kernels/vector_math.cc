#include "devices/cpu/kernels/vector_math.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "devices/cpu/kernels/avx512.h"
#include "devices/cpu/kernels/elementwise_common.h"
#include "devices/cpu/kernels/target_clones.h"

#if defined(__x86_64__) && defined(__GLIBC__)
#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <string>
#define SY_VECTOR_MATH 1
#endif

namespace sy::elementwise {
namespace {

// The sum of y[0, n) in eight independent chains, which vectorise.
float lane_sum(const float* y, int64_t n) {
  float lane[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; ++l) lane[l] += y[i + l];
  float s = 0;
  for (float v : lane) s += v;
  for (; i < n; ++i) s += y[i];
  return s;
}

}  // namespace

#if SY_VECTOR_MATH
namespace {

using V4 = __m128 (*)(__m128);
using V8 = __m256 (*)(__m256);
using V16 = __m512 (*)(__m512);

// The libm functions behind each VecFn but the sigmoid, in its order.
constexpr const char* kNames[] = {"expf",  "logf",  "erff",   "sinf",   "cosf",   "tanf",  "asinf", "acosf",
                                  "atanf", "sinhf", "coshf", "tanhf", "asinhf", "acoshf", "atanhf", "expm1f", "log1pf"};
constexpr int kBase = static_cast<int>(std::size(kNames));
static_assert(kBase == static_cast<int>(VecFn::kSigmoid));

struct Mvec {
  bool avx2 = false, avx512 = false;
  V4 f4[kBase] = {};
  V8 f8[kBase] = {};
  V16 f16[kBase] = {};
};

const Mvec& mvec() {
  static const Mvec m = [] {
    Mvec m;
    void* lib = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);  // never closed: the pointers outlive any caller
    if (!lib) return m;
    m.avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    m.avx512 = m.avx2 && __builtin_cpu_supports("avx512f");
    for (int i = 0; i < kBase; ++i) {
      // The x86-64 vector ABI names: b = SSE, 4 lanes; d = AVX2, 8 lanes;
      // e = AVX-512, 16 lanes.
      m.f4[i] = reinterpret_cast<V4>(dlsym(lib, (std::string("_ZGVbN4v_") + kNames[i]).c_str()));
      m.f8[i] = reinterpret_cast<V8>(dlsym(lib, (std::string("_ZGVdN8v_") + kNames[i]).c_str()));
      m.f16[i] = reinterpret_cast<V16>(dlsym(lib, (std::string("_ZGVeN16v_") + kNames[i]).c_str()));
    }
    return m;
  }();
  return m;
}

// The sigmoid's loops around its exp, in the widest vectors the CPU has:
// built for baseline SSE they took as long as the exp itself.
SY_TARGET_CLONES("avx512f", "avx2", "default")
void negated_abs(const float* __restrict x, float* __restrict t, int64_t n) {
  for (int64_t i = 0; i < n; ++i) t[i] = -std::fabs(x[i]);
}
// t = e^-|x| in, the sigmoid out. x and t are apart, so that the loop
// vectorises without a run-time overlap check.
SY_TARGET_CLONES("avx512f", "avx2", "default")
void sigmoid_from_exp(const float* __restrict x, float* __restrict t, int64_t n) {
  for (int64_t i = 0; i < n; ++i) t[i] = (x[i] >= 0 ? 1.f : t[i]) / (1.f + t[i]);
}

// x = n ln2 + r with n an integer and |r| <= ln2/2, for exp16 and tanh16:
// returns r and sets n. ln2 goes in two parts, its top 16 bits first, so
// that n times it is exact and r is exact to float precision for
// |n| <= 150.
__attribute__((target("avx512f"))) inline __m512 reduce_ln2(__m512 x, __m512& n) {
  n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                           _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145751953125f), x);
  return _mm512_fnmadd_ps(n, _mm512_set1_ps(1.428606765330187045e-6f), r);
}

// (e^r - 1) / r by its Taylor series, 1 + r/2 + ... + r^6/7!: e^r is then
// 1 + r times it, e^r - 1 r times it; truncated after r^7, both are within
// 6e-9 relative for |r| <= ln2/2, below half an ulp.
__attribute__((target("avx512f"))) inline __m512 expm1_over_r(__m512 r) {
  __m512 p = _mm512_set1_ps(1.f / 5040);
  for (const float c : {1.f / 720, 1.f / 120, 1.f / 24, 1.f / 6, 0.5f, 1.f})
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(c));
  return p;
}

// e^x in 16 lanes, our own rather than libmvec's: 13 us for 64K elements
// in cache against libmvec's 20, where exp is most of Softmax and Sigmoid
// and ONNX Runtime's MLAS is as fast. e^x = 2^n e^r (reduce_ln2), and
// scalef multiplies by 2^n with a single rounding, which also gives the
// overflow to inf, the denormals and the underflow to 0. Measured over
// every 98th float in [-110, 90]: within 0.89 ulp of the exact value. The
// clamps keep n finite for +-inf and huge x; min/max return their second
// operand when one is NaN, so NaN passes through.
__attribute__((target("avx512f"))) inline __m512 exp16(__m512 x) {
  x = _mm512_max_ps(_mm512_set1_ps(-104.f), _mm512_min_ps(_mm512_set1_ps(89.f), x));
  __m512 n;
  const __m512 r = reduce_ln2(x, n);
  return _mm512_scalef_ps(_mm512_fmadd_ps(expm1_over_r(r), r, _mm512_set1_ps(1.f)), n);
}

// tanh x = sign(x) * e / (e + 2) with e = e^(2|x|) - 1, our own as exp16
// (libmvec's tanhf took 3x as long, 2.5x ONNX Runtime's Tanh). e goes
// without cancellation as 2^n (e^r - 1) + (2^n - 1), so small |x| keep
// their precision; |x| is capped at 9, where tanh is 1 in float, so that
// e stays finite. Within 2.75 ulp; the sign is x's own, -0 and NaN
// included.
__attribute__((target("avx512f"))) inline __m512 tanh16(__m512 x) {
  const __m512 a = _mm512_min_ps(_mm512_set1_ps(9.f), _mm512_abs_ps(x));  // NaN passes through
  __m512 n;
  const __m512 r = reduce_ln2(_mm512_add_ps(a, a), n);
  const __m512 p = _mm512_mul_ps(expm1_over_r(r), r);  // e^r - 1
  const __m512 t = _mm512_scalef_ps(_mm512_set1_ps(1.f), n);
  const __m512 e = _mm512_fmadd_ps(t, p, _mm512_sub_ps(t, _mm512_set1_ps(1.f)));
  const __m512 mag = _mm512_div_ps(e, _mm512_add_ps(e, _mm512_set1_ps(2.f)));
  const __m512i sign = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN));
  return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(mag), sign));
}

// 1 / (1 + e^-x) for x >= 0, e^x / (1 + e^x) below: e^-|x| never
// overflows. NaN stays NaN.
__attribute__((target("avx512f"))) inline __m512 sigmoid16(__m512 x) {
  const __m512 t = exp16(_mm512_sub_ps(_mm512_setzero_ps(), _mm512_abs_ps(x)));
  const __mmask16 nonneg = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GE_OQ);
  const __m512 num = _mm512_mask_blend_ps(nonneg, t, _mm512_set1_ps(1.f));
  return _mm512_div_ps(num, _mm512_add_ps(_mm512_set1_ps(1.f), t));
}

// ln x in 16 lanes, our own: libmvec's logf runs every lane that is
// negative, zero, infinite, NaN or denormal through its scalar code, so a
// tensor with half its values negative took 17x as long as a positive one
// (and 3.4x ONNX Runtime's Log). getexp and getmant split x = m 2^e
// exactly, denormals included; m is brought into [sqrt(1/2), sqrt(2)), and
// ln m = r - r^2/2 + r^3 P(r) with r = m - 1 (exact). P is a least-squares
// fit of degree 7, within 7e-9 relative. e ln2 goes in two parts: ln2's
// first 9 bits (0.693359375), whose product with e is exact, are added
// last. Checked against the double log on all 2^32 floats: within 0.85
// ulp, NaN for x < 0 and NaN, -inf for +-0, inf for inf.
__attribute__((target("avx512f"))) inline __m512 log16(__m512 x) {
  __m512 m = _mm512_getmant_ps(x, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_nan);  // NaN where x < 0
  __m512 e = _mm512_getexp_ps(x);
  const __mmask16 high = _mm512_cmp_ps_mask(m, _mm512_set1_ps(1.41421356f), _CMP_GT_OQ);
  m = _mm512_mask_mul_ps(m, high, m, _mm512_set1_ps(0.5f));
  e = _mm512_mask_add_ps(e, high, e, _mm512_set1_ps(1.f));
  const __m512 r = _mm512_sub_ps(m, _mm512_set1_ps(1.f));
  __m512 p = _mm512_set1_ps(-7.373266667e-02f);
  for (const float c : {1.262555271e-01f, -1.320042759e-01f, 1.422618032e-01f, -1.662145853e-01f, 1.999987662e-01f,
                        -2.500084937e-01f, 3.333335221e-01f})
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(c));
  const __m512 r2 = _mm512_mul_ps(r, r);
  __m512 y = _mm512_mul_ps(_mm512_mul_ps(r, r2), p);
  y = _mm512_fmadd_ps(e, _mm512_set1_ps(-2.12194440e-4f), y);
  y = _mm512_fmadd_ps(_mm512_set1_ps(-0.5f), r2, y);
  const __m512 ln = _mm512_fmadd_ps(e, _mm512_set1_ps(0.693359375f), _mm512_add_ps(r, y));
  // For +-0 and inf, e is -inf or inf, and its two parts' products would
  // cancel to NaN: the answer is e itself.
  const __mmask16 edge = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_EQ_OQ) |
                         _mm512_cmp_ps_mask(x, _mm512_set1_ps(std::numeric_limits<float>::infinity()), _CMP_EQ_OQ);
  return _mm512_mask_mov_ps(ln, edge, e);
}

// erf x in 16 lanes, our own: 1.6x libmvec's speed (7.0 us for 16K
// floats in cache against 11.3), where Erf and Gelu took 1.4-1.6x ONNX
// Runtime's time. No exp and no division, only two polynomials: for
// |x| <= 1.05, |x| + |x| P(x^2) (P of degree 6, so that 2/sqrt(pi) - 1,
// not 2/sqrt(pi), is the rounded leading term: the tiny x come out
// correctly rounded); above, 1 - Q(|x| - 2.485) with Q of degree 13 fitted
// to erfc, whose leading coefficient is small where erf's own (0.9996)
// would carry half an ulp of rounding into every result. From 3.92 on, erf
// is 1 in float. The coefficients were fitted in double (weighted least
// squares towards the minimax error, relative for P, absolute for Q) and
// rounded to float one at a time from the lowest, refitting the rest after
// each. Checked against the double erf on all 2^32 floats: within 1.23
// ulp (4,088 floats beyond 1 ulp, all just above 1.05); the sign is x's,
// -0 and NaN included, and +-inf give +-1.
__attribute__((target("avx512f"))) inline __m512 erf16(__m512 x) {
  static constexpr float kSmall[] = {7.531913433922455e-05f, -0.0007917893235571682f, 0.005178557708859444f,
                                     -0.0268491692841053f,   0.11283490806818008f,    -0.3761261999607086f,
                                     0.12837916612625122f};
  static constexpr float kLarge[] = {-3.6638198253058363e-07f, 9.426427823200356e-06f, -2.0283607227611355e-05f,
                                     -6.002798181725666e-05f,  0.0002818976645357907f, -0.0003210121067240834f,
                                     -0.0005264937062747777f,  0.002872490556910634f,  -0.006363700143992901f,
                                     0.009084254503250122f,    -0.008883052505552769f, 0.005834137089550495f,
                                     -0.002347309375181794f,   0.0004408634558785707f};
  const __m512 a = _mm512_abs_ps(x);
  const __m512 u = _mm512_mul_ps(a, a);
  __m512 p = _mm512_set1_ps(kSmall[0]);
  for (size_t i = 1; i < std::size(kSmall); ++i) p = _mm512_fmadd_ps(p, u, _mm512_set1_ps(kSmall[i]));
  p = _mm512_fmadd_ps(p, a, a);
  const __m512 t = _mm512_sub_ps(a, _mm512_set1_ps(2.484999895095825f));
  __m512 q = _mm512_set1_ps(kLarge[0]);
  for (size_t i = 1; i < std::size(kLarge); ++i) q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(kLarge[i]));
  q = _mm512_sub_ps(_mm512_set1_ps(1.f), q);
  // NaN compares false both times and keeps P's NaN.
  __m512 r = _mm512_mask_mov_ps(p, _mm512_cmp_ps_mask(a, _mm512_set1_ps(1.05f), _CMP_GT_OQ), q);
  r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(a, _mm512_set1_ps(3.92f), _CMP_GE_OQ), _mm512_set1_ps(1.f));
  // r | (x & sign): x's sign on |erf x|.
  return _mm512_castsi512_ps(
      _mm512_ternarylogic_epi32(_mm512_castps_si512(r), _mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN), 0xF8));
}

// Gelu's exact form in one pass: through a buffer, the scaling before
// erf and the product after it took half as long again as erf itself
// (Gelu [8, 128, 768]: 241 us, Erf alone 157; in one pass 175). h + h erf(...) with
// h = x/2 rounds once where the formula rounds twice.
__attribute__((target("avx512f"))) inline __m512 gelu_erf16(__m512 x) {
  const __m512 h = _mm512_mul_ps(x, _mm512_set1_ps(0.5f));
  return _mm512_fmadd_ps(h, erf16(_mm512_mul_ps(x, _mm512_set1_ps(0.70710678118654752f))), h);
}

// f over [0, n), the tail under a mask.
template <__m512 (*F)(__m512)>
__attribute__((target("avx512f"))) void own16(const float* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, F(_mm512_loadu_ps(in + i)));
  if (i == n) return;
  const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
  _mm512_mask_storeu_ps(out + i, m, F(_mm512_maskz_loadu_ps(m, in + i)));
}

__attribute__((target("avx512f"))) float exp_shifted_sum16(const float* x, float shift, float* y, int64_t n) {
  const __m512 s = _mm512_set1_ps(shift);
  __m512 a0 = _mm512_setzero_ps(), a1 = a0;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 e0 = exp16(_mm512_sub_ps(_mm512_loadu_ps(x + i), s));
    const __m512 e1 = exp16(_mm512_sub_ps(_mm512_loadu_ps(x + i + 16), s));
    _mm512_storeu_ps(y + i, e0);
    _mm512_storeu_ps(y + i + 16, e1);
    a0 = _mm512_add_ps(a0, e0);
    a1 = _mm512_add_ps(a1, e1);
  }
  for (; i < n; i += 16) {
    const __mmask16 m = avx512::first_lanes(n - i);
    const __m512 e = _mm512_maskz_mov_ps(m, exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + i), s)));
    _mm512_mask_storeu_ps(y + i, m, e);
    a0 = _mm512_add_ps(a0, e);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(a0, a1));
}

// The tail (fewer elements than lanes) goes through a padded block, so
// every element comes from the same implementation.
__attribute__((target("avx512f"))) void run16(V16 f, const float* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, f(_mm512_loadu_ps(in + i)));
  if (i == n) return;
  float pad[16] = {};
  std::memcpy(pad, in + i, static_cast<size_t>(n - i) * sizeof(float));
  _mm512_storeu_ps(pad, f(_mm512_loadu_ps(pad)));
  std::memcpy(out + i, pad, static_cast<size_t>(n - i) * sizeof(float));
}

__attribute__((target("avx2,fma"))) void run8(V8 f, const float* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, f(_mm256_loadu_ps(in + i)));
  if (i == n) return;
  float pad[8] = {};
  std::memcpy(pad, in + i, static_cast<size_t>(n - i) * sizeof(float));
  _mm256_storeu_ps(pad, f(_mm256_loadu_ps(pad)));
  std::memcpy(out + i, pad, static_cast<size_t>(n - i) * sizeof(float));
}

void run4(V4 f, const float* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) _mm_storeu_ps(out + i, f(_mm_loadu_ps(in + i)));
  if (i == n) return;
  float pad[4] = {};
  std::memcpy(pad, in + i, static_cast<size_t>(n - i) * sizeof(float));
  _mm_storeu_ps(pad, f(_mm_loadu_ps(pad)));
  std::memcpy(out + i, pad, static_cast<size_t>(n - i) * sizeof(float));
}

}  // namespace

bool vector_math(VecFn f, const float* in, float* out, int64_t n) {
  if (avx512::supported()) {
    void (*own)(const float*, float*, int64_t) = nullptr;
    switch (f) {
      case VecFn::kExp: own = own16<exp16>; break;
      case VecFn::kSigmoid: own = own16<sigmoid16>; break;
      case VecFn::kLog: own = own16<log16>; break;
      case VecFn::kErf: own = own16<erf16>; break;
      case VecFn::kGeluErf: own = own16<gelu_erf16>; break;
      case VecFn::kTanh: own = own16<tanh16>; break;
      default: break;
    }
    if (own) {
      parallel_ranges(n, [&](int64_t b, int64_t e) { own(in + b, out + b, e - b); });
      return true;
    }
  }
  if (f == VecFn::kGeluErf) return false;
  const Mvec& m = mvec();
  const int base = f == VecFn::kSigmoid ? static_cast<int>(VecFn::kExp) : static_cast<int>(f);
  // The widest variant the CPU runs.
  const V16 f16 = m.avx512 ? m.f16[base] : nullptr;
  const V8 f8 = m.avx2 ? m.f8[base] : nullptr;
  const V4 f4 = m.f4[base];
  if (!f16 && !f8 && !f4) return false;
  auto apply = [&](const float* x, float* y, int64_t len) {
    f16 ? run16(f16, x, y, len) : f8 ? run8(f8, x, y, len) : run4(f4, x, y, len);
  };
  parallel_ranges(n, [&](int64_t b, int64_t e) {
    const float* x = in + b;
    float* y = out + b;
    const int64_t len = e - b;
    if (f == VecFn::kSigmoid) {
      // 1 / (1 + e^-x) for x >= 0, e^x / (1 + e^x) below: e^-|x| never
      // overflows. Both loops around the exp vectorise; NaN stays NaN. A
      // block at a time through a buffer, so `out` may be `in`.
      constexpr int64_t kChunk = 256;
      float t[kChunk];
      for (int64_t c = 0; c < len; c += kChunk) {
        const int64_t k = std::min(kChunk, len - c);
        negated_abs(x + c, t, k);
        apply(t, t, k);
        sigmoid_from_exp(x + c, t, k);
        std::memcpy(y + c, t, static_cast<size_t>(k) * sizeof(float));
      }
    } else {
      apply(x, y, len);
    }
  });
  return true;
}

float exp_shifted_sum(const float* x, float shift, float* y, int64_t n) {
  if (avx512::supported()) return exp_shifted_sum16(x, shift, y, n);
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] - shift;
  if (!vector_math(VecFn::kExp, y, y, n))
    for (int64_t i = 0; i < n; ++i) y[i] = std::exp(y[i]);
  return lane_sum(y, n);
}

#else

bool vector_math(VecFn, const float*, float*, int64_t) { return false; }

float exp_shifted_sum(const float* x, float shift, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::exp(x[i] - shift);
  return lane_sum(y, n);
}

#endif

namespace {

#if defined(__x86_64__)
// extreme_skipping_nan's blocks of 64 in AVX-512 registers, from m, up to
// the returned index: the SSE loop took a sixth of Softmax's time.
template <bool kMax>
__attribute__((target("avx512f"))) int64_t extreme_blocks64(const float* x, int64_t n, float& m, bool& nan) {
  __m512 a[4];
  for (__m512& v : a) v = _mm512_set1_ps(m);
  __mmask16 bad = 0;
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    for (int q = 0; q < 4; ++q) {
      const __m512 v = _mm512_loadu_ps(x + i + 16 * q);
      a[q] = kMax ? _mm512_max_ps(v, a[q]) : _mm512_min_ps(v, a[q]);  // as pick below
      bad |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    }
  }
  // The accumulators hold no NaN, so a vector reduction finds their
  // extreme. Equal nonzero floats have the same bits, so which lane wins a
  // tie matters only for zeros (+0 and -0): then the lanes are scanned in
  // order, as a scan of all 64 did every time (its chain of dependent
  // selects took as long as the blocks for rows of 1000, LogSoftmax's).
  const __m512 r01 = kMax ? _mm512_max_ps(a[0], a[1]) : _mm512_min_ps(a[0], a[1]);
  const __m512 r23 = kMax ? _mm512_max_ps(a[2], a[3]) : _mm512_min_ps(a[2], a[3]);
  const __m512 r = kMax ? _mm512_max_ps(r01, r23) : _mm512_min_ps(r01, r23);
  const float e = kMax ? _mm512_reduce_max_ps(r) : _mm512_reduce_min_ps(r);
  if (e != 0) {
    m = (kMax ? e > m : e < m) ? e : m;
  } else {
    alignas(64) float lanes[4][16];
    for (int q = 0; q < 4; ++q) _mm512_store_ps(lanes[q], a[q]);
    for (const auto& l : lanes)
      for (float v : l) m = (kMax ? v > m : v < m) ? v : m;
  }
  nan |= bad != 0;
  return i;
}
#endif

// `pick(v, acc)` is _mm_max_ps or _mm_min_ps: where v is NaN they return
// acc, which skips it; the scalar tail does the same with v > m ? v : m.
template <bool kMax>
float extreme_skipping_nan(const float* x, int64_t n, bool* saw_nan) {
  float m = kMax ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  bool nan = false;
  int64_t i = 0;
#if defined(__x86_64__)
  if (n >= 64 && avx512::supported()) i = extreme_blocks64<kMax>(x, n, m, nan);
  auto pick = [](__m128 v, __m128 acc) { return kMax ? _mm_max_ps(v, acc) : _mm_min_ps(v, acc); };
  if (n - i >= 16) {
    __m128 a0 = _mm_set1_ps(m), a1 = a0, a2 = a0, a3 = a0, bad = _mm_setzero_ps();
    for (; i + 16 <= n; i += 16) {
      const __m128 v0 = _mm_loadu_ps(x + i), v1 = _mm_loadu_ps(x + i + 4), v2 = _mm_loadu_ps(x + i + 8),
                   v3 = _mm_loadu_ps(x + i + 12);
      a0 = pick(v0, a0);
      a1 = pick(v1, a1);
      a2 = pick(v2, a2);
      a3 = pick(v3, a3);
      bad = _mm_or_ps(bad, _mm_or_ps(_mm_cmpunord_ps(v0, v1), _mm_cmpunord_ps(v2, v3)));
    }
    float lanes[4];
    _mm_storeu_ps(lanes, pick(pick(a0, a1), pick(a2, a3)));
    for (float v : lanes) m = (kMax ? v > m : v < m) ? v : m;
    nan |= _mm_movemask_ps(bad) != 0;
  }
#endif
  for (; i < n; ++i) {
    m = (kMax ? x[i] > m : x[i] < m) ? x[i] : m;
    nan |= x[i] != x[i];
  }
  if (saw_nan) *saw_nan = nan;
  return m;
}

// Four SSE compares a step; the scalar scan then finds the element in the
// step that stopped the loop, or runs the tail.
template <bool kAbove, bool kNanCounts>
int64_t find_beyond_impl(const float* x, int64_t n, float t) {
  auto hit = [t](float v) { return (kAbove ? v > t : v < t) || (kNanCounts && v != v); };
  int64_t i = 0;
#if defined(__x86_64__)
  const __m128 tv = _mm_set1_ps(t);
  for (; i + 16 <= n; i += 16) {
    __m128 any = _mm_setzero_ps();
    for (int q = 0; q < 16; q += 4) {
      const __m128 v = _mm_loadu_ps(x + i + q);
      any = _mm_or_ps(any, kAbove ? _mm_cmpgt_ps(v, tv) : _mm_cmplt_ps(v, tv));
      if (kNanCounts) any = _mm_or_ps(any, _mm_cmpunord_ps(v, v));
    }
    if (_mm_movemask_ps(any)) break;
  }
#endif
  for (; i < n; ++i)
    if (hit(x[i])) return i;
  return n;
}

}  // namespace

float max_skipping_nan(const float* x, int64_t n, bool* saw_nan) { return extreme_skipping_nan<true>(x, n, saw_nan); }
float min_skipping_nan(const float* x, int64_t n, bool* saw_nan) { return extreme_skipping_nan<false>(x, n, saw_nan); }

int64_t find_beyond(const float* x, int64_t n, float t, bool above, bool nan_counts) {
  if (above) return nan_counts ? find_beyond_impl<true, true>(x, n, t) : find_beyond_impl<true, false>(x, n, t);
  return nan_counts ? find_beyond_impl<false, true>(x, n, t) : find_beyond_impl<false, false>(x, n, t);
}

}  // namespace sy::elementwise

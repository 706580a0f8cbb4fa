#include "devices/cpu/kernels/quantize_simd.h"

#include <limits>
#include <type_traits>

#include "devices/cpu/kernels/avx512.h"

namespace sy::elementwise {

#if defined(__x86_64__)
namespace {

// Bounds of t = in / scale before rounding: [lo - zero, hi - zero]. They
// are integers, so that rounding a clamped t equals clamping a rounded one.
template <typename Q>
struct Shifted {
  float lo, hi;
  explicit Shifted(int32_t zero)
      : lo(static_cast<float>(std::numeric_limits<Q>::lowest() - zero)),
        hi(static_cast<float>(std::numeric_limits<Q>::max() - zero)) {}
};

template <typename Q>
__attribute__((target("avx512f,avx512bw"))) int64_t quantize_avx512(const float* in, Q* o, int64_t n, float scale,
                                                                    int32_t zero) {
  const Shifted<Q> b(zero);
  const __m512 s = _mm512_set1_ps(scale), lo = _mm512_set1_ps(b.lo), hi = _mm512_set1_ps(b.hi);
  const __m512i z = _mm512_set1_epi32(zero);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 t = _mm512_div_ps(_mm512_loadu_ps(in + i), s);
    const __mmask16 number = _mm512_cmp_ps_mask(t, t, _CMP_ORD_Q);
    // MAXPS returns its second operand for a NaN first one; the NaN lanes
    // are zeroed below anyway.
    const __m512 c = _mm512_min_ps(_mm512_max_ps(t, lo), hi);
    // Round to nearest even: MXCSR's mode, as nearbyint's.
    const __m512i q = _mm512_maskz_add_epi32(number, _mm512_cvtps_epi32(c), z);
    const __m128i narrow = std::is_signed_v<Q> ? _mm512_cvtsepi32_epi8(q) : _mm512_cvtusepi32_epi8(q);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(o + i), narrow);
  }
  return i;
}

template <typename Q>
__attribute__((target("avx2"))) int64_t quantize_avx2(const float* in, Q* o, int64_t n, float scale, int32_t zero) {
  const Shifted<Q> b(zero);
  const __m256 s = _mm256_set1_ps(scale), lo = _mm256_set1_ps(b.lo), hi = _mm256_set1_ps(b.hi);
  const __m256i z = _mm256_set1_epi32(zero);
  // PACKS interleaves the 128-bit lanes of its two operands; this puts the
  // 32 bytes back in order.
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i q[4];
    for (int k = 0; k < 4; ++k) {
      const __m256 t = _mm256_div_ps(_mm256_loadu_ps(in + i + 8 * k), s);
      const __m256 number = _mm256_cmp_ps(t, t, _CMP_ORD_Q);
      const __m256 c = _mm256_min_ps(_mm256_max_ps(t, lo), hi);
      q[k] = _mm256_and_si256(_mm256_add_epi32(_mm256_cvtps_epi32(c), z), _mm256_castps_si256(number));
    }
    // The values are in Q's range already: the saturating packs only narrow.
    const __m256i w0 = _mm256_packs_epi32(q[0], q[1]), w1 = _mm256_packs_epi32(q[2], q[3]);
    const __m256i bytes = std::is_signed_v<Q> ? _mm256_packs_epi16(w0, w1) : _mm256_packus_epi16(w0, w1);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + i), _mm256_permutevar8x32_epi32(bytes, order));
  }
  return i;
}

template <typename Q>
int64_t quantize_any(const float* in, Q* o, int64_t n, float scale, int32_t zero, bool allow_avx512) {
  static const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx512 && allow_avx512) return quantize_avx512(in, o, n, scale, zero);
  if (avx2) return quantize_avx2(in, o, n, scale, zero);
  return 0;
}

}  // namespace

int64_t quantize_prefix(const float* in, uint8_t* o, int64_t n, float scale, int32_t zero, bool avx512) {
  return quantize_any(in, o, n, scale, zero, avx512);
}
int64_t quantize_prefix(const float* in, int8_t* o, int64_t n, float scale, int32_t zero, bool avx512) {
  return quantize_any(in, o, n, scale, zero, avx512);
}

#else

int64_t quantize_prefix(const float*, uint8_t*, int64_t, float, int32_t, bool) { return 0; }
int64_t quantize_prefix(const float*, int8_t*, int64_t, float, int32_t, bool) { return 0; }

#endif

}  // namespace sy::elementwise

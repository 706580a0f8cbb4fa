#include "devices/cpu/kernels/tap_gather.h"

#include "devices/cpu/kernels/avx512.h"

namespace sy::tap_gather {
namespace {

#if defined(__x86_64__)
// The elements of taps k (into a) and k + 1 (into b) of 16 points, given
// their offsets and validity masks. Where a point's tap k + 1 is the
// element after its tap k (linear and cubic taps along the last axis), the
// two load as one 8-byte element, so that 16 points take two 8-element
// gathers rather than two 16-element ones: a gather costs about a cycle an
// element here, and the loads were the whole of the time. Lanes without
// such a pair take single-element loads.
__attribute__((target("avx512f"))) inline void gather_pair(const float* src, __m512i lo, __m512i hi, __mmask16 m_lo,
                                                           __mmask16 m_hi, __m512& a, __m512& b) {
  const __mmask16 paired = m_lo & _mm512_cmpeq_epi32_mask(hi, _mm512_add_epi32(lo, _mm512_set1_epi32(1)));
  const __m512d zero = _mm512_setzero_pd();
  const __m512d p0 = _mm512_mask_i32gather_pd(zero, static_cast<__mmask8>(paired), _mm512_castsi512_si256(lo), src, 4);
  const __m512d p1 =
      _mm512_mask_i32gather_pd(zero, static_cast<__mmask8>(paired >> 8), _mm512_extracti64x4_epi64(lo, 1), src, 4);
  // p0, p1 hold (tap k, tap k + 1) of points 0-7 and 8-15, interleaved.
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  a = _mm512_permutex2var_ps(_mm512_castpd_ps(p0), even, _mm512_castpd_ps(p1));
  b = _mm512_permutex2var_ps(_mm512_castpd_ps(p0), odd, _mm512_castpd_ps(p1));
  const __mmask16 rest_lo = m_lo & ~paired, rest_hi = m_hi & ~paired;
  if (rest_lo) a = _mm512_mask_i32gather_ps(a, rest_lo, lo, src, 4);
  if (rest_hi) b = _mm512_mask_i32gather_ps(b, rest_hi, hi, src, 4);
}

// The loop of sum_scalar in 16 lanes. Masked lanes (negative offsets, a
// last group's unused lanes) keep their sum, as the scalar loop skips them.
__attribute__((target("avx512f"))) void sum_avx512(const float* src, const int32_t* off, const float* w, int64_t taps,
                                                   int64_t n, float* dst) {
  const __m512i zero_i = _mm512_setzero_si512();
  const __m512 zero = _mm512_setzero_ps();
  for (int64_t g = 0; g * kLanes < n; ++g) {
    const int32_t* go = off + g * taps * kLanes;
    const float* gw = w + g * taps * kLanes;
    __m512 v = zero;
    int64_t k = 0;
    for (; k + 1 < taps; k += 2) {
      const __m512i lo = _mm512_loadu_si512(go + k * kLanes), hi = _mm512_loadu_si512(go + (k + 1) * kLanes);
      const __mmask16 m_lo = _mm512_cmpge_epi32_mask(lo, zero_i), m_hi = _mm512_cmpge_epi32_mask(hi, zero_i);
      __m512 a, b;
      gather_pair(src, lo, hi, m_lo, m_hi, a, b);
      v = _mm512_mask_add_ps(v, m_lo, v, _mm512_mul_ps(_mm512_loadu_ps(gw + k * kLanes), a));
      v = _mm512_mask_add_ps(v, m_hi, v, _mm512_mul_ps(_mm512_loadu_ps(gw + (k + 1) * kLanes), b));
    }
    if (k < taps) {
      const __m512i o = _mm512_loadu_si512(go + k * kLanes);
      const __mmask16 m = _mm512_cmpge_epi32_mask(o, zero_i);
      const __m512 x = _mm512_mask_i32gather_ps(zero, m, o, src, 4);
      v = _mm512_mask_add_ps(v, m, v, _mm512_mul_ps(_mm512_loadu_ps(gw + k * kLanes), x));
    }
    _mm512_mask_storeu_ps(dst + g * kLanes, avx512::first_lanes(n - g * kLanes), v);
  }
}
#endif

}  // namespace

void sum(const float* src, const int32_t* off, const float* w, int64_t taps, int64_t n, float* dst, bool vector) {
#if defined(__x86_64__)
  if (vector && avx512::supported()) return sum_avx512(src, off, w, taps, n, dst);
#endif
  sum_scalar(
      src, off, w, taps, n, dst, [](float x) { return x; }, [](float v) { return v; });
}

}  // namespace sy::tap_gather

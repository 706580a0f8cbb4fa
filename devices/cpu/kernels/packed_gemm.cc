#include "devices/cpu/kernels/packed_gemm.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>

#include "devices/cpu/kernels/avx512.h"

namespace sy::nn {
namespace {

constexpr int64_t kPanel = 16;

#if defined(__x86_64__)
// Rows [0, R) of A against panels [p, p + P): R x P sums in registers,
// A's elements broadcast from memory once a k for P panels, which keeps
// the loads under the multiply-adds (one panel a pass was load-bound).
template <int R, int P>
__attribute__((target("avx512f"), always_inline)) inline void rows_panels(const float* A, int64_t k,
                                                                          const float* panels, int64_t n, int64_t p,
                                                                          float* C) {
  const float* b = panels + p * k * kPanel;
  __m512 acc[R][P];
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < P; ++j) acc[r][j] = _mm512_setzero_ps();
  for (int64_t q = 0; q < k; ++q) {
    __m512 bv[P];
    for (int j = 0; j < P; ++j) bv[j] = _mm512_loadu_ps(b + (j * k + q) * kPanel);
    for (int r = 0; r < R; ++r) {
      const __m512 a = _mm512_set1_ps(A[r * k + q]);
      for (int j = 0; j < P; ++j) acc[r][j] = _mm512_fmadd_ps(a, bv[j], acc[r][j]);
    }
  }
  for (int j = 0; j < P; ++j) {
    const __mmask16 out = avx512::first_lanes(n - (p + j) * kPanel);
    for (int r = 0; r < R; ++r) _mm512_mask_storeu_ps(C + r * n + (p + j) * kPanel, out, acc[r][j]);
  }
}

// Rows [0, R) against panels [p0, p1): two at a time, then an odd one.
template <int R>
__attribute__((target("avx512f"), always_inline)) inline void rows(const float* A, int64_t k, const float* panels,
                                                                   int64_t n, int64_t p0, int64_t p1, float* C) {
  int64_t p = p0;
  for (; p + 2 <= p1; p += 2) rows_panels<R, 2>(A, k, panels, n, p, C);
  if (p < p1) rows_panels<R, 1>(A, k, panels, n, p, C);
}

// Every row against panels [p0, p1). Eight rows a pass: with two panels,
// 16 sums hide the multiply-adds' latency.
__attribute__((target("avx512f"))) void multiply_avx512(const float* A, int64_t m, int64_t k, const float* panels,
                                                        int64_t n, int64_t p0, int64_t p1, float* C) {
  using Rows = void (*)(const float*, int64_t, const float*, int64_t, int64_t, int64_t, float*);
  static constexpr Rows kRows[] = {nullptr, rows<1>, rows<2>, rows<3>, rows<4>, rows<5>, rows<6>, rows<7>};
  int64_t i = 0;
  for (; i + 8 <= m; i += 8) rows<8>(A + i * k, k, panels, n, p0, p1, C + i * n);
  if (i < m) kRows[m - i](A + i * k, k, panels, n, p0, p1, C + i * n);
}
#endif

}  // namespace

bool PackedGemmNT::pack(const float* B, int64_t n, int64_t k, bool vector) {
#if defined(__x86_64__)
  if (!vector || !avx512::supported()) return false;
  n_ = n;
  k_ = k;
  const int64_t np = (n + kPanel - 1) / kPanel;
  panels_.assign(static_cast<size_t>(np * k * kPanel), 0.f);
  float* out = panels_.data();
  for (int64_t p = 0; p < np; ++p)  // written in order, read 16 rows at a time
    for (int64_t q = 0; q < k; ++q, out += kPanel)
      for (int64_t l = 0; l < kPanel && p * kPanel + l < n; ++l) out[l] = B[(p * kPanel + l) * k + q];
  ready_ = true;
  return true;
#else
  (void)B, (void)n, (void)k, (void)vector;
  return false;
#endif
}

void PackedGemmNT::multiply(const float* A, int64_t m, float* C, bool split) const {
#if defined(__x86_64__)
  if (k_ == 0) {
    std::fill(C, C + m * n_, 0.f);
    return;
  }
  const int64_t np = (n_ + kPanel - 1) / kPanel;
  const int64_t parts = split ? std::min<int64_t>(tbb::this_task_arena::max_concurrency(), np / 2) : 1;
  if (parts <= 1) return multiply_avx512(A, m, k_, panels_.data(), n_, 0, np, C);
  // Even panel counts a part, so that pairs stay whole.
  tbb::parallel_for(int64_t{0}, parts, [&](int64_t part) {
    const int64_t p0 = np * part / parts / 2 * 2, p1 = part + 1 == parts ? np : np * (part + 1) / parts / 2 * 2;
    multiply_avx512(A, m, k_, panels_.data(), n_, p0, p1, C);
  });
#else
  (void)A, (void)m, (void)C, (void)split;
#endif
}

}  // namespace sy::nn

#include "devices/cpu/kernels/few_rows_gemm.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <utility>

#include "devices/cpu/kernels/avx512.h"
#include "devices/host_allocator.h"

namespace sy::nn {
namespace {

// Eight rows of B a pass: eight memory streams kept the two cores' reads
// at a plain sum's speed, where one row a pass (with a load and a store of
// the sums for each row) ran at half of it, and sixteen at three quarters.
constexpr int kRows = 8;
constexpr int64_t kMaxChunks = 16;
// Two or more rows of A go through B's columns in blocks of this many, so
// that their sums stay in L1 across the passes: whole rows of 4096 (64 KB
// of sums for four rows) went through L2 on every pass, and MatMul
// [4,4096]x[4096,4096] took 1.25x its time for one row (now 1.1x). One
// row's sums fit whole.
constexpr int64_t kCols = 1024;
// B below this many elements is read on the calling thread: it comes from
// the caches, and a fork and join costs more than it saves.
constexpr int64_t kParallelElements = int64_t{1} << 17;

#if defined(__x86_64__)
// For each row i < M: P_i [j, j + 16) += A_i [R] B [R, j, j + 16), lanes
// outside `m` untouched. Each of B's vectors is loaded once for all M rows.
template <int R, int M, bool kMasked>
__attribute__((target("avx512f"), always_inline)) inline void add_vector(const float* A, int64_t lda, const float* B,
                                                                         int64_t ldb, int64_t j, __mmask16 m, float* P,
                                                                         int64_t ldp) {
  __m512 b[R];
  for (int r = 0; r < R; ++r)
    b[r] = kMasked ? _mm512_maskz_loadu_ps(m, B + r * ldb + j) : _mm512_loadu_ps(B + r * ldb + j);
  for (int i = 0; i < M; ++i) {
    float* p = P + i * ldp + j;
    __m512 s = kMasked ? _mm512_maskz_loadu_ps(m, p) : _mm512_loadu_ps(p);
    for (int r = 0; r < R; ++r) s = _mm512_fmadd_ps(_mm512_set1_ps(A[i * lda + r]), b[r], s);
    if (kMasked)
      _mm512_mask_storeu_ps(p, m, s);
    else
      _mm512_storeu_ps(p, s);
  }
}

// P [M, n] += A [M, R] B [R, n]: B's R rows read side by side, each sum one
// chain of fused multiply-adds in row order. Masked loads only for the
// last partial vector: on AMD Zen 5 a masked load every vector took the
// loop from the memory's speed to two thirds of it.
template <int R, int M>
__attribute__((target("avx512f"), always_inline)) inline void add_rows(const float* A, int64_t lda, const float* B,
                                                                       int64_t ldb, int64_t n, float* P, int64_t ldp) {
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) add_vector<R, M, false>(A, lda, B, ldb, j, 0xffff, P, ldp);
  if (j < n) add_vector<R, M, true>(A, lda, B, ldb, j, avx512::first_lanes(n - j), P, ldp);
}

// P [M, n] = A [M, k0:k1) B [k0:k1, n], B [k, n] row-major.
template <int M>
__attribute__((target("avx512f"))) void partial_sum(const float* A, int64_t lda, const float* B, int64_t ldb, int64_t n,
                                                    int64_t k0, int64_t k1, float* P, int64_t ldp) {
  for (int i = 0; i < M; ++i) std::fill(P + i * ldp, P + i * ldp + n, 0.f);
  const int64_t cols = M == 1 ? n : kCols;
  for (int64_t j0 = 0; j0 < n; j0 += cols) {
    const int64_t w = std::min(cols, n - j0);
    int64_t q = k0;
    for (; q + kRows <= k1; q += kRows) add_rows<kRows, M>(A + q, lda, B + q * ldb + j0, ldb, w, P + j0, ldp);
    for (; q < k1; ++q) add_rows<1, M>(A + q, lda, B + q * ldb + j0, ldb, w, P + j0, ldp);
  }
}

// C [i, j] = alpha * (parts[0][i, j] + parts[1][i, j] + ...) + beta * C [i, j]
// for j in [j0, j1), the parts (each [m, n]) added in order.
__attribute__((target("avx512f"))) void finish(const float* parts, int64_t nparts, int64_t m, int64_t n, int64_t i,
                                               int64_t j0, int64_t j1, float alpha, float beta, float* C, int64_t ldc) {
  const __m512 al = _mm512_set1_ps(alpha), be = _mm512_set1_ps(beta);
  const float* p = parts + i * n;
  float* c = C + i * ldc;
  for (int64_t j = j0; j < j1; j += 16) {
    const __mmask16 mask = avx512::first_lanes(j1 - j);
    __m512 s = _mm512_maskz_loadu_ps(mask, p + j);
    for (int64_t q = 1; q < nparts; ++q) s = _mm512_add_ps(s, _mm512_maskz_loadu_ps(mask, p + q * m * n + j));
    s = _mm512_mul_ps(al, s);
    if (beta != 0.f) s = _mm512_fmadd_ps(be, _mm512_maskz_loadu_ps(mask, c + j), s);
    _mm512_mask_storeu_ps(c + j, mask, s);
  }
}

// acc [i][r] += A_i [q, q + 16) . B_r [q, q + 16) for M rows of A and R rows
// of B (from `b`), lanes outside `m` left out.
template <int R, int M, bool kMasked>
__attribute__((target("avx512f"), always_inline)) inline void dot_step(const float* A, int64_t lda, const float* b,
                                                                       int64_t ldb, int64_t q, __mmask16 m,
                                                                       __m512 (&acc)[M][R]) {
  __m512 bv[R];
  for (int r = 0; r < R; ++r)
    bv[r] = kMasked ? _mm512_maskz_loadu_ps(m, b + r * ldb + q) : _mm512_loadu_ps(b + r * ldb + q);
  for (int i = 0; i < M; ++i) {
    const __m512 av = kMasked ? _mm512_maskz_loadu_ps(m, A + i * lda + q) : _mm512_loadu_ps(A + i * lda + q);
    for (int r = 0; r < R; ++r) acc[i][r] = _mm512_fmadd_ps(av, bv[r], acc[i][r]);
  }
}

// C [i, j0 + r] for i < M, r < R: dot products of A's M rows with R rows of
// B [n, k] read side by side; masked loads for the last partial vector.
template <int R, int M>
__attribute__((target("avx512f"), always_inline)) inline void dot_rows(const float* A, int64_t lda, const float* B,
                                                                       int64_t ldb, int64_t k, int64_t j0, float alpha,
                                                                       float beta, float* C, int64_t ldc) {
  __m512 acc[M][R];
  for (int i = 0; i < M; ++i)
    for (int r = 0; r < R; ++r) acc[i][r] = _mm512_setzero_ps();
  const float* b = B + j0 * ldb;
  int64_t q = 0;
  for (; q + 16 <= k; q += 16) dot_step<R, M, false>(A, lda, b, ldb, q, 0xffff, acc);
  if (q < k) dot_step<R, M, true>(A, lda, b, ldb, q, avx512::first_lanes(k - q), acc);
  for (int i = 0; i < M; ++i)
    for (int r = 0; r < R; ++r) {
      float& c = C[i * ldc + j0 + r];
      const float s = alpha * _mm512_reduce_add_ps(acc[i][r]);
      c = beta == 0.f ? s : s + beta * c;
    }
}

// C [M, j0:j1) for B [n, k]. Eight rows of B a pass for one row of A, fewer
// for more, so that the sums stay in registers.
template <int M>
__attribute__((target("avx512f"))) void dots(const float* A, int64_t lda, const float* B, int64_t ldb, int64_t k,
                                             int64_t j0, int64_t j1, float alpha, float beta, float* C, int64_t ldc) {
  constexpr int R = M == 1 ? 8 : 4;
  int64_t j = j0;
  for (; j + R <= j1; j += R) dot_rows<R, M>(A, lda, B, ldb, k, j, alpha, beta, C, ldc);
  for (; j < j1; ++j) dot_rows<1, M>(A, lda, B, ldb, k, j, alpha, beta, C, ldc);
}

// f.template operator()<M>() for the runtime m in [1, kFewRowsMax].
template <class F>
void with_rows(int64_t m, const F& f) {
  [&]<int... I>(std::integer_sequence<int, I...>) { ((m == I + 1 ? (f.template operator()<I + 1>(), 0) : 0), ...); }
  (std::make_integer_sequence<int, kFewRowsMax>());
}

// Runs f(i) for i in [0, count), on the device's cores when `parallel`.
template <class F>
void for_each(int64_t count, bool parallel, const F& f) {
  if (!parallel || count == 1) {
    for (int64_t i = 0; i < count; ++i) f(i);
    return;
  }
  tbb::parallel_for(int64_t{0}, count, f);
}
#endif

}  // namespace

int64_t few_rows_chunk(int64_t n, int64_t k) {
  if (n * k < kParallelElements) return std::max<int64_t>(k, 1);
  const int64_t even_share = (k + kMaxChunks - 1) / kMaxChunks;
  return std::max<int64_t>(64, (even_share + kRows - 1) / kRows * kRows);
}

bool gemm_few_rows(bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* A, int64_t lda,
                   const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
#if defined(__x86_64__)
  if (m > kFewRowsMax || !avx512::supported()) return false;
  if (m <= 0 || n <= 0) return true;
  const bool parallel = n * k >= kParallelElements;
  if (trans_b) {
    // Blocks of C's columns; each dot product is whole on one core.
    constexpr int64_t kBlock = 4 * kRows;
    with_rows(m, [&]<int M>() {
      for_each((n + kBlock - 1) / kBlock, parallel, [&](int64_t b) {
        dots<M>(A, lda, B, ldb, k, b * kBlock, std::min(n, (b + 1) * kBlock), alpha, beta, C, ldc);
      });
    });
    return true;
  }
  const int64_t chunk = few_rows_chunk(n, k);
  const int64_t nparts = std::max<int64_t>(1, (k + chunk - 1) / chunk);
  if (nparts == 1 && alpha == 1.f && beta == 0.f) {  // the sum is the result
    with_rows(m, [&]<int M>() { partial_sum<M>(A, lda, B, ldb, n, 0, k, C, ldc); });
    return true;
  }
  auto parts = HostAllocator::host().allocate(static_cast<size_t>(nparts * m * n) * sizeof(float));
  if (!parts.ok()) return false;
  float* p = static_cast<float*>((*parts)->data);
  with_rows(m, [&]<int M>() {
    for_each(nparts, parallel, [&](int64_t c) {
      partial_sum<M>(A, lda, B, ldb, n, c * chunk, std::min(k, (c + 1) * chunk), p + c * m * n, n);
    });
  });
  constexpr int64_t kFinishBlock = 1024;
  const int64_t blocks = (n + kFinishBlock - 1) / kFinishBlock;
  for_each(m * blocks, parallel, [&](int64_t t) {
    const int64_t i = t / blocks, j0 = t % blocks * kFinishBlock;
    finish(p, nparts, m, n, i, j0, std::min(n, j0 + kFinishBlock), alpha, beta, C, ldc);
  });
  return true;
#else
  (void)trans_b, (void)m, (void)n, (void)k, (void)alpha, (void)A, (void)lda, (void)B, (void)ldb, (void)beta, (void)C,
      (void)ldc;
  return false;
#endif
}

}  // namespace sy::nn

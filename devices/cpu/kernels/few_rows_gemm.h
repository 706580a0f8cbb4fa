// C = alpha * A op(B) + beta * C for an A of a few rows against a large
// B: a decoder's or a small batch's MatMul and Gemm against a weight.
//
// Such a product reads each element of B once, so its time is the time to
// stream B from memory. oneDNN's sgemm streamed a 64 MB B at 72-88 GB/s on
// two cores for one row of A (MatMul [1,4096]x[4096,4096]: 0.76 ms), where
// ONNX Runtime's reached 110-116, and at two to four rows it took 1.5
// times as long as for one. Reading eight rows of B at once, one memory
// stream each, and using each vector of B for every row of A gets there.
#pragma once

#include <cstdint>

namespace sy::nn {

// The most rows of A that gemm_few_rows() takes.
inline constexpr int64_t kFewRowsMax = 4;

// C [m, n] = alpha * A [m, k] op(B) + beta * C, all row-major with row
// strides lda and ldc: B [k, n] (`trans_b` false) or B [n, k] (`trans_b`
// true) with row stride ldb. C is read only when beta != 0. Spread over
// the calling device's cores when B is large. The result does not depend
// on the number of cores: B's rows (k) are summed in fixed chunks whose
// partial sums are added in order. False, with nothing written, when m is
// over kFewRowsMax or on a CPU without AVX-512 (or off x86-64): the caller
// multiplies another way. Thread-safe.
bool gemm_few_rows(bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* A, int64_t lda,
                   const float* B, int64_t ldb, float beta, float* C, int64_t ldc);

// The rows of B [k, n] (`trans_b` false) that gemm_few_rows() sums into one
// partial sum, all of them when B is small enough for one core; each
// partial is a chain of fused multiply-adds in k order. For tests.
int64_t few_rows_chunk(int64_t n, int64_t k);

}  // namespace sy::nn

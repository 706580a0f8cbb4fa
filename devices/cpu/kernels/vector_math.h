// Vectorised float32 math for the unary kernels: exp, expm1, log, log1p, erf, the
// trigonometric and hyperbolic functions and their inverses, and the
// logistic sigmoid over arrays, through glibc's libmvec (its x86-64
// vector variants: 16 lanes with AVX-512, 8 with AVX2, else 4 with SSE),
// opened at run time. On CPUs with AVX-512, exp, the sigmoid, tanh, log and
// erf are our own (vector_math.cc's exp16, tanh16, log16 and erf16): within
// 1 ulp (tanh 2.75, erf 1.23); exp and tanh at 1.4-1.5x libmvec's speed,
// erf at 1.6x, log as fast, and 17x where libmvec computes NaNs, zeros and
// denormals one lane at a time.
// The scalar libm loops of the kernels take 5-25x longer (tanhf about 20 ns
// an element); ONNX Runtime's MLAS is vectorised too. libmvec's results are
// within about 2e-7 relative of the exact values, NaN and infinities
// included (glibc documents at most 4 ulp), so these stand in for the
// scalar calls at every size.
//
// libmvec is opened with dlopen rather than linked: it belongs to the C
// library (it needs glibc's private symbols), so a binary carried to
// another machine uses that machine's copy, and runs the scalar loops where
// there is none (another libc or architecture, or glibc before 2.35 for
// erf, tan and the hyperbolic and inverse functions).
#pragma once

#include <cstdint>

namespace sy::elementwise {

// In the order of vector_math.cc's table of libm names; kSigmoid is built
// on kExp. kGeluErf, x/2 (1 + erf(x / sqrt 2)) (Gelu's exact form), exists
// only on AVX-512, as one pass around erf16: elsewhere vector_math returns
// false for it and the caller runs erf between its own loops.
// clang-format off
enum class VecFn {
  kExp, kLog, kErf, kSin, kCos, kTan, kAsin, kAcos, kAtan,
  kSinh, kCosh, kTanh, kAsinh, kAcosh, kAtanh, kExpm1, kLog1p, kSigmoid, kGeluErf
};
// clang-format on

// out[i] = f(in[i]) for i in [0, n) (in == out allowed), in parallel on
// the calling device's oneTBB arena when large. False, with nothing
// written, where libmvec lacks `f`: the caller then runs its own loop.
// Thread-safe.
bool vector_math(VecFn f, const float* in, float* out, int64_t n);

// y[i] = e^(x[i] - shift) for i in [0, n), returning their sum: Softmax's
// exps and its denominator in one pass over the row (x == y allowed). On
// the calling thread; within about 1 ulp per element, as vector_math.
float exp_shifted_sum(const float* x, float shift, float* y, int64_t n);

// The largest (smallest) element of x[0, n) with NaNs skipped; -inf (+inf)
// if there is none. `saw_nan`, if given, tells whether any was NaN. SSE on
// x86-64: the compiler kept the select of a plain loop scalar, a quarter
// of the speed. Thread-safe.
float max_skipping_nan(const float* x, int64_t n, bool* saw_nan = nullptr);
float min_skipping_nan(const float* x, int64_t n, bool* saw_nan = nullptr);

// The first i in [0, n) with x[i] > t (`above`) or x[i] < t (not `above`),
// or with x[i] NaN when `nan_counts`; n if there is none. SSE on x86-64:
// TopK skips with it the elements that cannot enter its selection.
int64_t find_beyond(const float* x, int64_t n, float t, bool above, bool nan_counts);

}  // namespace sy::elementwise

// The float32 vector functions behind the unary kernels (vector_math.h),
// alone: 16K elements in L1-resident buffers on the calling thread, so that
// the figures compare the functions themselves, not memory or the thread
// pool. Where the CPU has AVX-512, exp, log, tanh, sigmoid, erf and Gelu's
// erf form are Switchyard's own; elsewhere libmvec's (Gelu then skips).
//
//   ./build/bench/vector_math_bench --benchmark_filter=Erf
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "devices/cpu/kernels/vector_math.h"

namespace sy {
namespace {

using elementwise::VecFn;

void BM_VectorMath(benchmark::State& state, VecFn f, float lo, float hi) {
  constexpr int64_t kN = 1 << 14;  // under vector_math's parallel split: one thread
  std::vector<float> x(kN), y(kN);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(lo, hi);
  for (float& v : x) v = u(rng);
  if (!elementwise::vector_math(f, x.data(), y.data(), kN)) {
    state.SkipWithError("no vector form of this function here (not x86-64 glibc, or Gelu without AVX-512)");
    return;
  }
  for (auto _ : state) {
    elementwise::vector_math(f, x.data(), y.data(), kN);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kN);
}

BENCHMARK_CAPTURE(BM_VectorMath, Exp, VecFn::kExp, -20.f, 20.f);
BENCHMARK_CAPTURE(BM_VectorMath, Log, VecFn::kLog, 1e-3f, 1e3f);
BENCHMARK_CAPTURE(BM_VectorMath, Tanh, VecFn::kTanh, -5.f, 5.f);
BENCHMARK_CAPTURE(BM_VectorMath, Sigmoid, VecFn::kSigmoid, -10.f, 10.f);
BENCHMARK_CAPTURE(BM_VectorMath, Erf, VecFn::kErf, -3.f, 3.f);
BENCHMARK_CAPTURE(BM_VectorMath, GeluErf, VecFn::kGeluErf, -5.f, 5.f);

}  // namespace
}  // namespace sy

BENCHMARK_MAIN();

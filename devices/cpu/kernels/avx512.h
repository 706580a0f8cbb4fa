// What the CPU kernels written in AVX-512 intrinsics share: the CPU check,
// the mask of a last partial vector, and the intrinsics themselves.
//
// Including this header turns off -W[maybe-]uninitialized for the rest of
// the file: GCC 12's AVX-512 intrinsics start their results from a
// self-initialised __m512 (GCC bug 105593), which those warnings report
// wherever the intrinsics are inlined.
#pragma once

#include <cstdint>

#if defined(__x86_64__)
#include <immintrin.h>

#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace sy::avx512 {

// Whether this CPU has AVX-512F (asked once). Callers keep a plain path
// for the CPUs without it.
inline bool supported() {
  static const bool yes = __builtin_cpu_supports("avx512f");
  return yes;
}

// The mask of the first min(n, 16) lanes (n >= 0): a whole vector, or the
// part of a last one that lies inside the data.
inline __mmask16 first_lanes(int64_t n) { return n >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << n) - 1); }

}  // namespace sy::avx512
#endif

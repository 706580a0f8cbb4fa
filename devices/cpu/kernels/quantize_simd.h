// QuantizeLinear's float32 to 8-bit loop in AVX-512 or AVX2 intrinsics.
//
// The compiler's vectorisation of the scalar loop (round, add the zero
// point, clamp, NaN to 0) spent more time on mask registers than on the
// division: 3.4x ONNX Runtime's time on [256,1024]. Clamping before the
// rounding, to bounds shifted by the zero point, and converting with one
// saturating narrow, the same loop takes a third of that (see
// docs/benchmarks.md).
#pragma once

#include <cstdint>

namespace sy::elementwise {

// o[i] = saturate(nearbyint(in[i] / scale) + zero), and 0 where
// in[i] / scale is NaN, for i in [0, k): the same values as the scalar
// loop, bit for bit. Returns k, a prefix of n (0 on a CPU with neither
// AVX2 nor AVX-512, or off x86-64); the caller finishes [k, n). `zero` must
// lie in the output type's range. `avx512` false keeps to AVX2, so that
// tests reach that loop on AVX-512 machines too.
int64_t quantize_prefix(const float* in, uint8_t* o, int64_t n, float scale, int32_t zero, bool avx512 = true);
int64_t quantize_prefix(const float* in, int8_t* o, int64_t n, float scale, int32_t zero, bool avx512 = true);

}  // namespace sy::elementwise

// Weighted gathers: out[p] = the sum over k of w[k][p] * src[off[k][p]],
// the core of interpolating kernels (GridSample) once each output point's
// taps are known.
//
// The tap table is laid out for 16-lane vectors: points in groups of 16,
// and within a group, tap k's 16 offsets (and weights) side by side, so
// that one AVX-512 gather reads a tap of 16 points. A negative offset is a
// tap that reads zero (outside the input under zeros padding). It is
// skipped, not multiplied, so that an infinite or NaN element elsewhere
// cannot leak into it.
//
// Every path adds the products in tap order, a float multiply then a float
// add, from +0: the vector loop gives the scalar loop's values bit for bit,
// so a result never depends on the CPU.
#pragma once

#include <cstdint>

namespace sy::tap_gather {

constexpr int64_t kLanes = 16;

// Where tap k of point p sits in a table of `taps` taps a point.
constexpr int64_t slot(int64_t p, int64_t k, int64_t taps) { return (p / kLanes * taps + k) * kLanes + p % kLanes; }

// Table entries for n points: whole groups, so the vector loop may read a
// last partial group's unused lanes (the builder leaves them at offset -1).
constexpr int64_t table_size(int64_t n, int64_t taps) { return (n + kLanes - 1) / kLanes * kLanes * taps; }

// dst[p] for p in [0, n), in the loop above: X is the element type, A the
// arithmetic type, Off the offset type. Loading X as A is `load`.
template <typename X, typename A, typename Off, typename Load, typename Store>
void sum_scalar(const X* src, const Off* off, const A* w, int64_t taps, int64_t n, X* dst, Load load, Store store) {
  for (int64_t g = 0; g * kLanes < n; ++g) {
    const int64_t lanes = n - g * kLanes < kLanes ? n - g * kLanes : kLanes;
    const Off* go = off + g * taps * kLanes;
    const A* gw = w + g * taps * kLanes;
    for (int64_t l = 0; l < lanes; ++l) {
      A v = A(0);
      for (int64_t k = 0; k < taps; ++k) {
        const Off o = go[k * kLanes + l];
        if (o >= 0) v += gw[k * kLanes + l] * load(src[o]);
      }
      dst[g * kLanes + l] = store(v);
    }
  }
}

// The float, 32-bit-offset case: AVX-512 gathers where the CPU has them
// and `vector` is true (false lets tests reach the scalar loop), the
// scalar loop otherwise.
void sum(const float* src, const int32_t* off, const float* w, int64_t taps, int64_t n, float* dst, bool vector = true);

}  // namespace sy::tap_gather

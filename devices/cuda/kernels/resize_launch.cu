// CUDA kernels of Resize / Upsample (nearest gather, linear and cubic
// interpolation from host-built tap tables) and Hardmax. The coordinate
// arithmetic is the host's (resize_kernels.cc); these kernels mirror the CPU
// kernels' evaluation order: nearest and Hardmax match them exactly, the
// interpolation to the CPU's precision (see interp_at).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstring>
#include <limits>
#include <type_traits>

#include "devices/cuda/kernels/elementwise_device.cuh"
#include "devices/cuda/kernels/resize_launch.h"

namespace sy::cuda {
namespace {

// Launch geometry and the half-type helpers are the elementwise family's.
using ew::Calc;
using ew::cvt;
using ew::first_index;
using ew::float_to_half;
using ew::grid_for;
using ew::half_to_float;
using ew::kBlock;
using ew::kIsHalf;
__device__ __forceinline__ int64_t grid_step() { return ew::grid_stride(); }

// ---- element conversions (the CPU kernel's to_double / from_double) ----------

template <typename T>
__device__ __forceinline__ double to_double(T v) {
  if constexpr (kIsHalf<T>)
    return static_cast<double>(half_to_float(v));
  else
    return static_cast<double>(v);
}

template <typename T>
__device__ __forceinline__ T from_double(double v) {
  if constexpr (kIsHalf<T>) {
    return float_to_half<T>(__double2float_rn(v));  // the CPU rounds to float first, then to half
  } else if constexpr (std::is_same_v<T, float>) {
    return __double2float_rn(v);
  } else if constexpr (std::is_same_v<T, double>) {
    return v;
  } else {
    // Integers: nearest, ties to even (the CPU's nearbyint in the default
    // rounding mode), saturating, NaN to 0.
    if (isnan(v)) return T(0);
    v = rint(v);
    if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(v);
  }
}

// ---- Resize: nearest -----------------------------------------------------------

template <typename U, typename I>
__global__ void resize_nearest_kernel(U* __restrict__ dst, const U* __restrict__ src, int64_t n,
                                      const __grid_constant__ ResizeMeta m, const int64_t* __restrict__ offsets,
                                      const uint8_t* __restrict__ outside) {
  U ev;
  memcpy(&ev, &m.extrapolation, sizeof(U));
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    I rem = static_cast<I>(i);
    I off = 0;
    bool out = false;
    // Unrolled to the fixed maximum with a uniform rank guard, so the
    // metadata is indexed statically and stays in the parameter bank.
#pragma unroll
    for (int k = kResizeMaxRank - 1; k >= 0; --k) {
      if (k < m.rank) {
        I c = rem;
        if (k > 0) {
          const I d = static_cast<I>(m.out_dims[k]);
          c = rem % d;
          rem /= d;
        }
        if (m.tap_begin[k] >= 0)
          off += static_cast<I>(offsets[m.tap_begin[k] + c]);
        else
          off += c * static_cast<I>(m.in_strides[k]);
        if (m.outside_begin[k] >= 0 && outside[m.outside_begin[k] + c] != 0) out = true;
      }
    }
    dst[i] = out ? ev : src[off];
  }
}

// ---- Resize: linear / cubic ----------------------------------------------------

// The CPU resizes one axis after another in double: pass k replaces every
// value by sum_t w_t * (the previous pass's value at tap t), starting from
// 0.0, skipping zero weights. Unrolled per output element, that is the sum
// over the taps of the last resized axis of the sums over the taps of the one
// before, and so on down to the input, which is what this recursion computes
// (slot J is the J-th resized axis; slot 0 is the innermost sum). __dmul_rn
// and __dadd_rn keep nvcc from fusing them into FMAs, so every GPU computes
// the same doubles. (The CPU sums float tensors in float, and uses FMAs
// where its machine has them: the results agree to its precision, not bit
// for bit.)
template <int J, int NT, typename T, typename I>
__device__ __forceinline__ double interp_at(const T* __restrict__ src, I off, const I (&cs)[kResizeMaxInterpAxes],
                                            const ResizeMeta& m, const int64_t* __restrict__ offsets,
                                            const double* __restrict__ weights) {
  if constexpr (J < 0) {
    return to_double(src[off]);
  } else {
    // NT 0: this slot's own count (antialiasing), not unrolled.
    const int nt = NT > 0 ? NT : m.slot_ntaps[J];
    const int64_t tb = m.slot_tap_begin[J] + static_cast<int64_t>(cs[J]) * nt;
    double s = 0.0;
#pragma unroll
    for (int t = 0; t < nt; ++t) {
      const double w = weights[tb + t];
      if (w == 0.0) continue;  // as on the CPU: a NaN or inf under a zero tap never spreads
      const double v = interp_at<J - 1, NT>(src, off + static_cast<I>(offsets[tb + t]), cs, m, offsets, weights);
      s = __dadd_rn(s, __dmul_rn(w, v));
    }
    return s;
  }
}

template <typename T, int NT, int R, typename I>
__global__ void resize_interp_kernel(T* __restrict__ dst, const T* __restrict__ src, int64_t n,
                                     const __grid_constant__ ResizeMeta m, const int64_t* __restrict__ offsets,
                                     const double* __restrict__ weights, const uint8_t* __restrict__ outside) {
  T ev;
  memcpy(&ev, &m.extrapolation, sizeof(T));
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    I rem = static_cast<I>(i);
    I off = 0;
    bool out = false;
    I cs[kResizeMaxInterpAxes] = {};  // coordinate on each resized axis, by slot
#pragma unroll
    for (int k = kResizeMaxRank - 1; k >= 0; --k) {
      if (k < m.rank) {
        I c = rem;
        if (k > 0) {
          const I d = static_cast<I>(m.out_dims[k]);
          c = rem % d;
          rem /= d;
        }
        if (m.outside_begin[k] >= 0 && outside[m.outside_begin[k] + c] != 0) out = true;
        const int s = m.slot[k];
        if (s < 0) off += c * static_cast<I>(m.in_strides[k]);
        // Static slot indices keep cs in registers.
#pragma unroll
        for (int j = 0; j < R; ++j)
          if (s == j) cs[j] = c;
      }
    }
    if (out) {
      dst[i] = ev;
      continue;
    }
    dst[i] = from_double<T>(interp_at<R - 1, NT>(src, off, cs, m, offsets, weights));
  }
}

template <typename T, int NT, typename I>
cudaError_t interp_by_axes(T* dst, const T* src, int64_t n, const ResizeMeta& m, const ResizeTables& t,
                           cudaStream_t stream) {
  const unsigned g = grid_for(n);
  switch (m.interp_axes) {
    case 0:
      // Nothing is resized (every axis maps onto itself): still a pass
      // through double, as on the CPU (it changes int64s beyond 2^53).
      if constexpr (NT == 2) {
        resize_interp_kernel<T, NT, 0, I><<<g, kBlock, 0, stream>>>(dst, src, n, m, t.offsets, t.weights, t.outside);
        return cudaGetLastError();
      } else {
        return interp_by_axes<T, 2, I>(dst, src, n, m, t, stream);
      }
    case 1:
      resize_interp_kernel<T, NT, 1, I><<<g, kBlock, 0, stream>>>(dst, src, n, m, t.offsets, t.weights, t.outside);
      return cudaGetLastError();
    case 2:
      resize_interp_kernel<T, NT, 2, I><<<g, kBlock, 0, stream>>>(dst, src, n, m, t.offsets, t.weights, t.outside);
      return cudaGetLastError();
    case 3:
      resize_interp_kernel<T, NT, 3, I><<<g, kBlock, 0, stream>>>(dst, src, n, m, t.offsets, t.weights, t.outside);
      return cudaGetLastError();
    case 4:
      resize_interp_kernel<T, NT, 4, I><<<g, kBlock, 0, stream>>>(dst, src, n, m, t.offsets, t.weights, t.outside);
      return cudaGetLastError();
    default:
      return cudaErrorInvalidValue;
  }
}

// Calls f(T{}) for the element types linear / cubic support, by ONNX code.
// Rarely resized integer widths (16-bit, unsigned 32/64) are left to the CPU.
template <typename F>
cudaError_t by_interp_type(int dtype, F&& f) {
  switch (dtype) {
    case 1: return f(float{});
    case 2: return f(uint8_t{});
    case 3: return f(int8_t{});
    case 6: return f(int32_t{});
    case 7: return f(int64_t{});
    case 10: return f(__half{});
    case 11: return f(double{});
    case 16: return f(__nv_bfloat16{});
    default: return cudaErrorNotSupported;
  }
}

// ---- Hardmax -------------------------------------------------------------------

// Comparisons run in float for the 16-bit types (exact), natively otherwise:
// the elementwise family's Calc<T>, loaded and stored with its cvt.
template <typename T>
__device__ __forceinline__ Calc<T> hload(T v) {
  return cvt<Calc<T>>(v);
}

// inner > 1: one thread per (outer, inner) column runs the CPU's scan
// (`k == 0 || v > max`); neighbouring threads read neighbouring elements.
template <typename T>
__global__ void hardmax_columns_kernel(T* __restrict__ dst, const T* __restrict__ src, HardmaxMeta m) {
  const int64_t n = m.outer * m.inner;
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    const int64_t o = i / m.inner;
    const int64_t e = i - o * m.inner;
    const int64_t base = o * m.d * m.inner + e;
    Calc<T> mx = hload(src[base]);
    int64_t arg = 0;
    for (int64_t k = 1; k < m.d; ++k) {
      const Calc<T> v = hload(src[base + k * m.inner]);
      if (v > mx) {
        mx = v;
        arg = k;
      }
    }
    for (int64_t k = 0; k < m.d; ++k) dst[base + k * m.inner] = cvt<T>(k == arg);
  }
}

// Candidate (value, index) pairs: the larger value wins, the lower index on
// ties. NaNs never become candidates; the sentinel index d loses every tie.
template <typename C>
__device__ __forceinline__ void take_better(C& bv, int64_t& bi, C v, int64_t k) {
  if (v > bv || (v == bv && k < bi)) {
    bv = v;
    bi = k;
  }
}

// inner == 1: kThreads threads share a contiguous row (32: a warp per row,
// several rows per block; 256: the whole block per row, for long rows). The
// CPU's scan picks the first maximum among the non-NaN elements unless
// element 0 is NaN, which then stays: the same answer in any order.
template <typename T, int kThreads>
__global__ void hardmax_rows_kernel(T* __restrict__ dst, const T* __restrict__ src, int64_t rows, int64_t d) {
  using C = Calc<T>;
  constexpr int kGroups = static_cast<int>(kBlock) / kThreads;
  constexpr int kWarps = kThreads / 32;
  const int lane = static_cast<int>(threadIdx.x) % kThreads;
  const int group = static_cast<int>(threadIdx.x) / kThreads;
  // The loop bound is uniform per group (per warp, or per block when
  // kThreads is the block), so every thread reaches the shuffles and barriers.
  for (int64_t row = static_cast<int64_t>(blockIdx.x) * kGroups + group; row < rows;
       row += static_cast<int64_t>(gridDim.x) * kGroups) {
    const T* s = src + row * d;
    C bv = -std::numeric_limits<C>::infinity();
    int64_t bi = d;
    for (int64_t k = lane; k < d; k += kThreads) take_better(bv, bi, hload(s[k]), k);
#pragma unroll
    for (int delta = 16; delta > 0; delta >>= 1) {
      const C ov = __shfl_down_sync(0xffffffffu, bv, delta);
      const int64_t oi = __shfl_down_sync(0xffffffffu, bi, delta);
      take_better(bv, bi, ov, oi);
    }
    int64_t arg;
    if constexpr (kWarps == 1) {
      arg = __shfl_sync(0xffffffffu, bi, 0);
    } else {
      __shared__ C warp_v[kWarps];
      __shared__ int64_t warp_i[kWarps];
      const int warp = lane / 32;
      if (lane % 32 == 0) {
        warp_v[warp] = bv;
        warp_i[warp] = bi;
      }
      __syncthreads();
      C v = warp_v[0];
      int64_t a = warp_i[0];
#pragma unroll
      for (int w = 1; w < kWarps; ++w) take_better(v, a, warp_v[w], warp_i[w]);
      arg = a;
      __syncthreads();  // the next row reuses warp_v / warp_i
    }
    if (isnan(static_cast<double>(hload(s[0])))) arg = 0;
    T* y = dst + row * d;
    for (int64_t k = lane; k < d; k += kThreads) y[k] = cvt<T>(k == arg);
  }
}

template <typename F>
cudaError_t by_float_type(int dtype, F&& f) {
  switch (dtype) {
    case 1: return f(float{});
    case 10: return f(__half{});
    case 11: return f(double{});
    case 16: return f(__nv_bfloat16{});
    default: return cudaErrorNotSupported;
  }
}

}  // namespace

cudaError_t launch_resize_nearest(void* dst, const void* src, int64_t n, int unit, bool index32,
                                  const ResizeMeta& m, const ResizeTables& t, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  if (m.rank < 0 || m.rank > kResizeMaxRank) return cudaErrorInvalidValue;
  auto go = [&](auto tag) {
    using U = decltype(tag);
    U* d = static_cast<U*>(dst);
    const U* s = static_cast<const U*>(src);
    if (index32)
      resize_nearest_kernel<U, int32_t><<<grid_for(n), kBlock, 0, stream>>>(d, s, n, m, t.offsets, t.outside);
    else
      resize_nearest_kernel<U, int64_t><<<grid_for(n), kBlock, 0, stream>>>(d, s, n, m, t.offsets, t.outside);
    return cudaGetLastError();
  };
  switch (unit) {
    case 1: return go(uint8_t{});
    case 2: return go(uint16_t{});
    case 4: return go(uint32_t{});
    case 8: return go(uint64_t{});
    default: return cudaErrorInvalidValue;
  }
}

bool resize_interp_supports(int dtype) {
  return by_interp_type(dtype, [](auto) { return cudaSuccess; }) == cudaSuccess;
}

cudaError_t launch_resize_interp(void* dst, const void* src, int64_t n, int dtype, bool index32,
                                 const ResizeMeta& m, const ResizeTables& t, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  if (m.rank < 0 || m.rank > kResizeMaxRank || m.interp_axes < 0 || m.interp_axes > kResizeMaxInterpAxes ||
      (m.ntaps != 0 && m.ntaps != 2 && m.ntaps != 4))
    return cudaErrorInvalidValue;
  return by_interp_type(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* d = static_cast<T*>(dst);
    const T* s = static_cast<const T*>(src);
    if (m.ntaps == 0)
      return index32 ? interp_by_axes<T, 0, int32_t>(d, s, n, m, t, stream)
                     : interp_by_axes<T, 0, int64_t>(d, s, n, m, t, stream);
    if (m.ntaps == 2)
      return index32 ? interp_by_axes<T, 2, int32_t>(d, s, n, m, t, stream)
                     : interp_by_axes<T, 2, int64_t>(d, s, n, m, t, stream);
    return index32 ? interp_by_axes<T, 4, int32_t>(d, s, n, m, t, stream)
                   : interp_by_axes<T, 4, int64_t>(d, s, n, m, t, stream);
  });
}

cudaError_t launch_hardmax(void* dst, const void* src, int dtype, const HardmaxMeta& m, cudaStream_t stream) {
  if (m.outer <= 0 || m.d <= 0 || m.inner <= 0) return cudaSuccess;
  return by_float_type(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* d = static_cast<T*>(dst);
    const T* s = static_cast<const T*>(src);
    if (m.inner > 1) {
      hardmax_columns_kernel<T><<<grid_for(m.outer * m.inner), kBlock, 0, stream>>>(d, s, m);
    } else if (m.d > 1024) {
      hardmax_rows_kernel<T, kBlock><<<grid_for(m.outer * kBlock), kBlock, 0, stream>>>(d, s, m.outer, m.d);
    } else {
      hardmax_rows_kernel<T, 32><<<grid_for(m.outer * 32), kBlock, 0, stream>>>(d, s, m.outer, m.d);
    }
    return cudaGetLastError();
  });
}

}  // namespace sy::cuda

// CUDA QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear and
// Dropout's mask, with the CPU kernels' arithmetic
// (devices/cpu/kernels/elementwise_quant.cc): the same compute type, the
// division rounded to nearest even, NaN to 0, and saturation through
// ew::cvt, so both backends give the same integers.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cub/cub.cuh>
#include <limits>
#include <type_traits>

#include "devices/cuda/kernels/elementwise_device.cuh"
#include "devices/cuda/kernels/quant_launch.h"

namespace sy::cuda {
namespace {

using namespace ew;

__device__ __forceinline__ int64_t param_index(const QuantAxis& a, int64_t i) {
  if (a.block == 0) return a.count == 1 ? 0 : (i / a.inner) % a.count;
  const int64_t j = (i / a.inner) % a.axis_len, outer = i / (a.inner * a.axis_len);
  return (outer * a.count + j / a.block) * a.inner + i % a.inner;
}

// The CPU's quantize_run: std::min/std::max semantics, then the
// conversion the CPU's cast gives on x86 (int32's upper bound as a float
// is 2^31, which wraps to INT32_MIN there and through ew::cvt here).
template <typename X, typename Q, typename C>
__global__ void quantize_kernel(const X* __restrict__ x, const C* __restrict__ scale, const Q* __restrict__ zero,
                                Q* __restrict__ y, int64_t n, QuantAxis a) {
  constexpr C lo = static_cast<C>(std::numeric_limits<Q>::lowest());
  constexpr C hi = static_cast<C>(std::numeric_limits<Q>::max());
  for (int64_t i = first_index(); i < n; i += grid_stride()) {
    const int64_t k = param_index(a, i);
    const C z = zero ? static_cast<C>(zero[k]) : C(0);
    const C v = m_rint(cvt<C>(x[i]) / scale[k]) + z;
    y[i] = cvt<Q>(v != v ? C(0) : s_min(hi, s_max(lo, v)));
  }
}

template <typename X, typename O, typename C>
__global__ void dequantize_kernel(const X* __restrict__ x, const C* __restrict__ scale, const X* __restrict__ zero,
                                  O* __restrict__ y, int64_t n, QuantAxis a) {
  for (int64_t i = first_index(); i < n; i += grid_stride()) {
    const int64_t k = param_index(a, i);
    const int64_t z = zero ? static_cast<int64_t>(zero[k]) : 0;
    y[i] = cvt<O>(static_cast<C>(static_cast<int64_t>(x[i]) - z) * scale[k]);
  }
}

struct MinMax {
  float lo, hi;
};
// std::min / std::max as the CPU folds them: a NaN element never wins.
struct FoldMinMax {
  __device__ __forceinline__ MinMax operator()(const MinMax& a, const MinMax& b) const {
    return {s_min(a.lo, b.lo), s_max(a.hi, b.hi)};
  }
};

constexpr int kRangeBlock = 256;

// One block: the range of x and 0, then the ONNX reference's scale and
// zero point in float.
__global__ void __launch_bounds__(kRangeBlock)
    dynamic_range_kernel(const float* __restrict__ x, int64_t n, float* scale, uint8_t* zero) {
  using BlockReduce = cub::BlockReduce<MinMax, kRangeBlock>;
  __shared__ typename BlockReduce::TempStorage tmp;
  MinMax r{0.0f, 0.0f};
  for (int64_t i = threadIdx.x; i < n; i += kRangeBlock) r = FoldMinMax{}(r, MinMax{x[i], x[i]});
  r = BlockReduce(tmp).Reduce(r, FoldMinMax{});
  if (threadIdx.x == 0) {
    const float s = (r.hi == r.lo ? 1.0f : r.hi - r.lo) / 255.0f;
    scale[0] = s;
    zero[0] = static_cast<uint8_t>(rintf(s_min(255.0f, s_max(0.0f, 0.0f - r.lo / s))));
  }
}

__global__ void dynamic_quantize_kernel(const float* __restrict__ x, uint8_t* __restrict__ y,
                                        const float* __restrict__ scale, const uint8_t* __restrict__ zero, int64_t n) {
  const float s = scale[0];
  const float z = static_cast<float>(zero[0]);
  for (int64_t i = first_index(); i < n; i += grid_stride()) {
    const float v = rintf(x[i] / s) + z;
    y[i] = static_cast<uint8_t>(isnan(v) ? 0.0f : s_min(255.0f, s_max(0.0f, v)));
  }
}

template <typename T>
__global__ void fill_ones_kernel(T* __restrict__ out, int64_t n) {
  for (int64_t i = first_index(); i < n; i += grid_stride()) out[i] = cvt<T>(1.0f);
}

// Calls fn with the tag of `calc`, float or double.
template <typename Fn>
cudaError_t visit_calc(int calc, Fn&& fn) {
  return visit<ew_bit(ew_type::kFloat) | ew_bit(ew_type::kDouble)>(calc, fn);
}

}  // namespace

cudaError_t launch_quantize(int x_type, int q_type, int calc, const void* x, const void* scale, const void* zero,
                            void* y, int64_t n, QuantAxis a, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  return visit<kQuantInputFloats>(x_type, [&](auto xt) {
    using X = typename decltype(xt)::type;
    return visit<kQuantIntTypes>(q_type, [&](auto qt) {
      using Q = typename decltype(qt)::type;
      return visit_calc(calc, [&](auto ct) {
        using C = typename decltype(ct)::type;
        // The CPU never computes a double x in float.
        if constexpr (std::is_same_v<X, double> && !std::is_same_v<C, double>) {
          return cudaErrorNotSupported;
        } else {
          quantize_kernel<X, Q, C>
              <<<grid_for(n), kBlock, 0, stream>>>(static_cast<const X*>(x), static_cast<const C*>(scale),
                                                   static_cast<const Q*>(zero), static_cast<Q*>(y), n, a);
          return cudaGetLastError();
        }
      });
    });
  });
}

cudaError_t launch_dequantize(int x_type, int out_type, int calc, const void* x, const void* scale, const void* zero,
                              void* y, int64_t n, QuantAxis a, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  return visit<kQuantIntTypes>(x_type, [&](auto xt) {
    using X = typename decltype(xt)::type;
    return visit<kEwFloats>(out_type, [&](auto ot) {
      using O = typename decltype(ot)::type;
      return visit_calc(calc, [&](auto ct) {
        using C = typename decltype(ct)::type;
        dequantize_kernel<X, O, C>
            <<<grid_for(n), kBlock, 0, stream>>>(static_cast<const X*>(x), static_cast<const C*>(scale),
                                                 static_cast<const X*>(zero), static_cast<O*>(y), n, a);
        return cudaGetLastError();
      });
    });
  });
}

cudaError_t launch_dynamic_quantize(const float* x, uint8_t* y, float* scale, uint8_t* zero, int64_t n,
                                    cudaStream_t stream) {
  dynamic_range_kernel<<<1, kRangeBlock, 0, stream>>>(x, n, scale, zero);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess || n <= 0) return e;
  dynamic_quantize_kernel<<<grid_for(n), kBlock, 0, stream>>>(x, y, scale, zero, n);
  return cudaGetLastError();
}

cudaError_t launch_fill_ones(int type, void* out, int64_t n, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  return visit<kEwFloats | kEwBool>(type, [&](auto t) {
    using T = typename decltype(t)::type;
    fill_ones_kernel<T><<<grid_for(n), kBlock, 0, stream>>>(static_cast<T*>(out), n);
    return cudaGetLastError();
  });
}

}  // namespace sy::cuda

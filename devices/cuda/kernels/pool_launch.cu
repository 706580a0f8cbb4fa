#include "devices/cuda/kernels/pool_launch.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <limits>
#include <type_traits>

#include "devices/cuda/kernels/elementwise_device.cuh"
#include "devices/cuda/kernels/reduction_device.cuh"

namespace sy::cuda {
namespace {

using reduce_dev::global_thread;
using reduce_dev::grid_threads;

// Window positions [lo, hi) of dimension j that fall inside the input, and
// the count of those before the end of the padding (count_include_pad's
// divisor), for a window starting at input coordinate `start`
// (nn_pool_rows.cc's span(); the host keeps dilations below 2^31, so no
// sum here overflows).
struct Span {
  int64_t lo, hi, padded;
};

__device__ __forceinline__ int64_t lesser(int64_t a, int64_t b) { return a < b ? a : b; }
__device__ __forceinline__ int64_t greater(int64_t a, int64_t b) { return a > b ? a : b; }

__device__ Span span(const PoolMeta& m, int j, int64_t start) {
  const int64_t k = m.k[j], in = m.in[j], d = m.dil[j];
  const int64_t lo = start >= 0 ? 0 : (-start + d - 1) / d;
  const int64_t hi = start >= in ? 0 : lesser(k, (in - 1 - start) / d + 1);
  const int64_t padded = greater(0, lesser(k, (in + m.pad_e[j] - start + d - 1) / d));
  const int64_t first = lesser(lo, k);
  return {first, greater(first, hi), padded};
}

template <typename T>
__global__ void window_pool_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t* __restrict__ indices,
                                   PoolMeta m) {
  using Acc = ew::Accum<T>;
  const int64_t insz = m.in[0] * m.in[1] * m.in[2], osz = m.out[0] * m.out[1] * m.out[2];
  for (int64_t t = global_thread(); t < m.planes * osz; t += grid_threads()) {
    const int64_t nc = t / osz, o = t % osz;
    const int64_t od = o / (m.out[1] * m.out[2]), oh = o / m.out[2] % m.out[1], ow = o % m.out[2];
    const int64_t s0 = od * m.stride[0] - m.pad_b[0], s1 = oh * m.stride[1] - m.pad_b[1],
                  s2 = ow * m.stride[2] - m.pad_b[2];
    const Span d0 = span(m, 0, s0), d1 = span(m, 1, s1), d2 = span(m, 2, s2);
    const T* xp = x + nc * insz;
    Acc best = -std::numeric_limits<Acc>::infinity(), sum = 0;
    int64_t best_i = -1, count = 0;
    for (int64_t kd = d0.lo; kd < d0.hi; ++kd) {
      const int64_t id = s0 + kd * m.dil[0];
      for (int64_t kh = d1.lo; kh < d1.hi; ++kh) {
        const int64_t ih = s1 + kh * m.dil[1];
        for (int64_t kw = d2.lo; kw < d2.hi; ++kw) {
          const int64_t i = (id * m.in[1] + ih) * m.in[2] + s2 + kw * m.dil[2];
          const Acc v = ew::cvt<Acc>(xp[i]);
          ++count;
          if (m.op == PoolOp::kMax) {
            // A NaN wins over numbers; the first maximum keeps its index.
            if (v > best || best_i < 0 || (v != v && best == best)) {
              best = v;
              best_i = i;
            }
          } else if (m.op == PoolOp::kAvg) {
            sum += v;
          } else {
            const Acc a = v < 0 ? -v : v;
            sum += m.p == 2 ? v * v : m.p == 1 ? a : static_cast<Acc>(pow(static_cast<double>(a), m.p));
          }
        }
      }
    }
    Acc r;
    if (m.op == PoolOp::kMax) {
      r = best;
      if (indices) {
        int64_t at = best_i < 0 ? 0 : best_i;
        if (m.column_major) {
          const int64_t id = at / (m.in[1] * m.in[2]), ih = at / m.in[2] % m.in[1], iw = at % m.in[2];
          at = id + ih * m.in[0] + iw * m.in[0] * m.in[1];
        }
        indices[t] = nc * insz + at;
      }
    } else if (m.op == PoolOp::kAvg) {
      const double div = m.count_include_pad ? static_cast<double>(d0.padded) * static_cast<double>(d1.padded) *
                                                   static_cast<double>(d2.padded)
                                             : static_cast<double>(count);
      r = div > 0 ? static_cast<Acc>(static_cast<double>(sum) / div) : Acc{0};
    } else {
      // A float square root rounds the same from double: exact, then once.
      r = m.p == 2   ? static_cast<Acc>(sqrt(static_cast<double>(sum)))
          : m.p == 1 ? sum
                     : static_cast<Acc>(pow(static_cast<double>(sum), 1.0 / m.p));
    }
    if constexpr (std::is_integral_v<T>) {
      y[t] = best_i < 0 ? std::numeric_limits<T>::lowest() : static_cast<T>(r);
    } else {
      y[t] = ew::cvt<T>(r);
    }
  }
}

}  // namespace

cudaError_t launch_window_pool(int dtype, const void* x, void* y, int64_t* indices, const PoolMeta& m,
                               cudaStream_t stream) {
  constexpr uint32_t kIntMax = ew_bit(ew_type::kInt8) | ew_bit(ew_type::kUInt8);
  if (m.op != PoolOp::kMax && ((kIntMax >> dtype) & 1u)) return cudaErrorNotSupported;
  return ew::visit<kEwFloats | kIntMax>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t n = m.planes * m.out[0] * m.out[1] * m.out[2];
    if (n <= 0) return cudaSuccess;
    window_pool_kernel<T><<<reduce_dev::blocks_for(n, 256), 256, 0, stream>>>(static_cast<const T*>(x),
                                                                                static_cast<T*>(y), indices, m);
    return cudaGetLastError();
  });
}

}  // namespace sy::cuda

// CUDA Einsum, one thread per output element, in the CPU kernel's order
// (devices/cpu/kernels/reduction_einsum.cc): the output index is split into
// its labels, then the contracted labels are walked last-fastest, each term
// the product of the inputs' elements in input order, summed in the CPU's
// compute type (ew::Calc: float for 16-bit floats) or, for integers, in
// 64 bits that wrap. Det: one thread per matrix, the CPU's own elimination
// (det_lu.h) in double.
#include "devices/cpu/kernels/det_lu.h"
#include "devices/cuda/kernels/einsum_launch.h"
#include "devices/cuda/kernels/elementwise_device.cuh"

namespace sy::cuda {
namespace {

using namespace ew;

// Integers multiply and add as uint64, which wraps where int64 would
// overflow (the CPU's wrap_mul / wrap_add).
template <typename T>
using Acc = std::conditional_t<std::is_integral_v<T>, uint64_t, Calc<T>>;

template <typename T>
__global__ void einsum_kernel(EinsumMeta m, T* __restrict__ out, int64_t n) {
  using A = Acc<T>;
  for (int64_t o = first_index(); o < n; o += grid_stride()) {
    int64_t off[kEinsumMaxInputs] = {};
    int64_t rem = o;
    for (int k = m.out_rank - 1; k >= 0; --k) {
      const int64_t ik = rem % m.out_size[k];
      rem /= m.out_size[k];
      for (int i = 0; i < m.nin; ++i) off[i] += ik * m.out_stride[i][k];
    }
    int64_t idx[kEinsumMaxLabels] = {};
    A acc = A(0);
    for (int64_t s = 0; s < m.sum_n; ++s) {
      A p = A(1);
      for (int i = 0; i < m.nin; ++i) {
        const T v = static_cast<const T*>(m.in[i])[off[i]];
        if constexpr (std::is_integral_v<T>) {
          p *= static_cast<uint64_t>(static_cast<int64_t>(v));
        } else {
          p = p * cvt<A>(v);
        }
      }
      acc = acc + p;
      for (int k = m.sum_rank - 1; k >= 0; --k) {
        for (int i = 0; i < m.nin; ++i) off[i] += m.sum_stride[i][k];
        if (++idx[k] < m.sum_size[k]) break;
        for (int i = 0; i < m.nin; ++i) off[i] -= m.sum_stride[i][k] * m.sum_size[k];
        idx[k] = 0;
      }
    }
    if constexpr (std::is_integral_v<T>) {
      out[o] = static_cast<T>(static_cast<int64_t>(acc));
    } else {
      out[o] = cvt<T>(acc);
    }
  }
}

template <typename T>
__global__ void det_kernel(const T* __restrict__ x, T* __restrict__ out, double* __restrict__ work, int64_t batch,
                           int64_t m) {
  const int64_t mm = m * m;
  for (int64_t b = first_index(); b < batch; b += grid_stride()) {
    double* a = work + b * mm;
    for (int64_t k = 0; k < mm; ++k) a[k] = cvt<double>(x[b * mm + k]);
    out[b] = cvt<T>(det_lu(a, m));
  }
}

}  // namespace

cudaError_t launch_einsum(int type, const EinsumMeta& m, void* out, int64_t n, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  return visit<kEinsumTypes>(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    einsum_kernel<T><<<grid_for(n), kBlock, 0, stream>>>(m, static_cast<T*>(out), n);
    return cudaGetLastError();
  });
}

cudaError_t launch_det(int type, const void* x, void* out, double* work, int64_t batch, int64_t m,
                       cudaStream_t stream) {
  if (batch <= 0) return cudaSuccess;
  return visit<kEwFloats>(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    det_kernel<T><<<grid_for(batch), kBlock, 0, stream>>>(static_cast<const T*>(x), static_cast<T*>(out), work, batch,
                                                          m);
    return cudaGetLastError();
  });
}

}  // namespace sy::cuda

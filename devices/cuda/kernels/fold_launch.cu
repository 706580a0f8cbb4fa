// CUDA Col2Im and MaxUnpool.
//
// Col2Im is written as a gather: one thread per output pixel visits the
// kernel positions in increasing order and adds the one block entry (if
// any) that lands there, so each pixel's sum has the CPU kernel's order
// and no atomics are needed.
//
// MaxUnpool scatters. Two elements may name one position (overlapping
// pooling windows, or indices from elsewhere); the CPU's loop lets the last
// one win. Here a first pass records, per position, the largest element
// number that claims it (an atomic max), and a second pass lets only that
// element write, so the result is the CPU's whatever the thread order.
#include "devices/cuda/kernels/elementwise_device.cuh"
#include "devices/cuda/kernels/elementwise_launch.h"
#include "devices/cuda/kernels/fold_launch.h"

namespace sy::cuda {
namespace {

using namespace ew;

template <typename T>
__global__ void col2im_kernel(Col2ImMeta m, const T* __restrict__ x, T* __restrict__ y) {
  using A = Accum<T>;
  const int64_t total = m.planes * m.plane;
  for (int64_t q = first_index(); q < total; q += grid_stride()) {
    const int64_t nc = q / m.plane;
    int64_t pos[kMaxFoldAxes];
    int64_t rest = q % m.plane;
    for (int a = m.n - 1; a >= 0; --a) {
      pos[a] = rest % m.image[a];
      rest /= m.image[a];
    }
    const T* src = x + nc * m.kernel * m.blocks;
    A acc = 0;
    for (int64_t k = 0; k < m.kernel; ++k) {
      // k's offset on each axis (last fastest) and the block that puts it
      // on this pixel: l * stride - pad + offset * dil = pos.
      int64_t kr = k, l = 0, scale = 1;
      bool hit = true;
      for (int a = m.n - 1; a >= 0 && hit; --a) {
        const int64_t off = kr % m.block[a];
        kr /= m.block[a];
        const int64_t t = pos[a] + m.pad[a] - off * m.dil[a];
        hit = t >= 0 && t % m.stride[a] == 0 && t / m.stride[a] < m.count[a];
        l += (t / m.stride[a]) * scale;
        scale *= m.count[a];
      }
      if (hit) acc += cvt<A>(src[k * m.blocks + l]);
    }
    y[q] = cvt<T>(acc);
  }
}

// The flat position in `out` of flat index t over `inferred`.
__device__ __forceinline__ int64_t unpool_offset(const MaxUnpoolMeta& m, int64_t t) {
  int64_t off = 0, mul = 1;
  for (int d = m.rank - 1; d >= 0; --d) {
    off += (t % m.inferred[d]) * mul;
    t /= m.inferred[d];
    mul *= m.out[d];
  }
  return off;
}

__global__ void unpool_claim_kernel(MaxUnpoolMeta m, const int64_t* __restrict__ indices,
                                    unsigned long long* __restrict__ claims, int* __restrict__ error) {
  for (int64_t e = first_index(); e < m.n; e += grid_stride()) {
    const int64_t t = indices[e];
    if (t < 0 || t >= m.total) {
      *error = 1;
      continue;
    }
    atomicMax(claims + unpool_offset(m, t), static_cast<unsigned long long>(e) + 1);
  }
}

template <typename U>
__global__ void unpool_write_kernel(MaxUnpoolMeta m, const U* __restrict__ x, const int64_t* __restrict__ indices,
                                    const unsigned long long* __restrict__ claims, U* __restrict__ y) {
  for (int64_t e = first_index(); e < m.n; e += grid_stride()) {
    const int64_t t = indices[e];
    if (t < 0 || t >= m.total) continue;
    const int64_t off = unpool_offset(m, t);
    if (claims[off] == static_cast<unsigned long long>(e) + 1) y[off] = x[e];
  }
}

}  // namespace

cudaError_t launch_col2im(int type, const Col2ImMeta& m, const void* x, void* y, cudaStream_t stream) {
  const int64_t total = m.planes * m.plane;
  if (total <= 0) return cudaSuccess;
  if (m.n < 1 || m.n > kMaxFoldAxes) return cudaErrorInvalidValue;
  return visit<kEwFloats>(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    col2im_kernel<T><<<grid_for(total), kBlock, 0, stream>>>(m, static_cast<const T*>(x), static_cast<T*>(y));
    return cudaGetLastError();
  });
}

cudaError_t launch_max_unpool(int unit, const MaxUnpoolMeta& m, const void* x, const int64_t* indices, void* y,
                              unsigned long long* claims, int* error, cudaStream_t stream) {
  if (m.rank < 1 || m.rank > kMaxUnpoolRank) return cudaErrorInvalidValue;
  if (m.out_numel <= 0) return cudaSuccess;
  cudaError_t e = cudaMemsetAsync(y, 0, static_cast<size_t>(m.out_numel) * unit, stream);
  if (e != cudaSuccess || m.n <= 0) return e;
  e = cudaMemsetAsync(claims, 0, static_cast<size_t>(m.out_numel) * sizeof(unsigned long long), stream);
  if (e != cudaSuccess) return e;
  unpool_claim_kernel<<<grid_for(m.n), kBlock, 0, stream>>>(m, indices, claims, error);
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  return by_unit(unit, [&](auto tag) {
    using U = typename decltype(tag)::type;
    unpool_write_kernel<U>
        <<<grid_for(m.n), kBlock, 0, stream>>>(m, static_cast<const U*>(x), indices, claims, static_cast<U*>(y));
    return cudaGetLastError();
  });
}

}  // namespace sy::cuda

// CUDA DeformConv's element work: one thread per column entry samples its
// channel at its tap's moved position. The CPU kernel builds a corner
// table per offset group and shares it between that group's channels;
// here each entry recomputes its corners, which costs a few multiplies
// instead of a table in memory. Corners are visited and weighted in the
// CPU kernel's order, so the sums differ only by contraction into FMA.
#include <limits>

#include "devices/cuda/kernels/deform_conv_launch.h"
#include "devices/cuda/kernels/elementwise_device.cuh"
#include "devices/cuda/kernels/elementwise_launch.h"

namespace sy::cuda {
namespace {

using namespace ew;

template <typename T>
__global__ void deform_im2col_kernel(DeformColMeta m, const T* __restrict__ x, const T* __restrict__ offset,
                                     const T* __restrict__ mask, Accum<T>* __restrict__ col) {
  using C = Accum<T>;
  const int64_t rows = m.channels * m.k_size, total = m.images * rows * m.out_size;
  const int64_t per_offset_group = m.channels / m.offset_groups;
  for (int64_t q = first_index(); q < total; q += grid_stride()) {
    const int64_t o = q % m.out_size, k = q / m.out_size % m.k_size;
    const int64_t c = q / (m.out_size * m.k_size) % m.channels, n = q / (m.out_size * rows);
    // This tap's row of offsets and mask: (image, offset group, tap).
    const int64_t gk = (n * m.offset_groups + c / per_offset_group) * m.k_size + k;
    const T* off = offset + gk * m.nsp * m.out_size + o;
    int64_t opos[kDeformMaxAxes], kpos[kDeformMaxAxes];
    for (int64_t s = m.nsp - 1, orest = o, krest = k; s >= 0; --s) {
      opos[s] = orest % m.out[s];
      orest /= m.out[s];
      kpos[s] = krest % m.k[s];
      krest /= m.k[s];
    }
    // Per axis: the lower corner, the fraction past it, and whether it and
    // its neighbour are in the input.
    int64_t lo[kDeformMaxAxes];
    C frac[kDeformMaxAxes];
    bool lo_in[kDeformMaxAxes], hi_in[kDeformMaxAxes];
    bool nan = false;
    for (int s = 0; s < m.nsp; ++s) {
      const C p = C(opos[s] * m.stride[s] - m.pad[s] + kpos[s] * m.dil[s]) + cvt<C>(off[s * m.out_size]);
      nan = nan || isnan(p);
      // Outside (-1, in) neither corner is in the input; the test also
      // keeps NaNs and infinities from the integer conversion.
      if (!(p > C(-1) && p < C(m.in[s]))) {
        lo[s] = 0;
        frac[s] = C(0);
        lo_in[s] = hi_in[s] = false;
        continue;
      }
      const C f = floor(p);
      lo[s] = static_cast<int64_t>(f);
      frac[s] = p - f;
      lo_in[s] = lo[s] >= 0;
      hi_in[s] = lo[s] + 1 < m.in[s];
    }
    C v = 0;
    if (nan) {
      v = std::numeric_limits<C>::quiet_NaN();
    } else {
      const C weight = mask ? cvt<C>(mask[gk * m.out_size + o]) : C(1);
      const T* xc = x + (n * m.channels + c) * m.in_size;
      for (int corner = 0; corner < (1 << m.nsp); ++corner) {
        int64_t index = 0;
        C w = weight;
        bool inside = true;
        for (int s = 0; s < m.nsp; ++s) {
          const bool hi = (corner >> s) & 1;
          index = index * m.in[s] + lo[s] + (hi ? 1 : 0);
          w *= hi ? frac[s] : C(1) - frac[s];
          inside = inside && (hi ? hi_in[s] : lo_in[s]);
        }
        if (inside) v += w * cvt<C>(xc[index]);
      }
    }
    col[q] = v;
  }
}

template <typename T>
__global__ void bias_rows_kernel(const T* __restrict__ bias, int64_t rows, int64_t cols, int64_t total,
                                 Accum<T>* __restrict__ y) {
  for (int64_t q = first_index(); q < total; q += grid_stride())
    y[q] = bias ? cvt<Accum<T>>(bias[q / cols % rows]) : Accum<T>(0);
}

}  // namespace

cudaError_t launch_deform_im2col(int type, const DeformColMeta& m, const void* x, const void* offset, const void* mask,
                                 void* col, cudaStream_t stream) {
  if (m.nsp < 1 || m.nsp > kDeformMaxAxes || m.offset_groups < 1 || m.channels % m.offset_groups != 0)
    return cudaErrorInvalidValue;
  const int64_t total = m.images * m.channels * m.k_size * m.out_size;
  if (total <= 0) return cudaSuccess;
  return visit<kEwFloats>(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    deform_im2col_kernel<T>
        <<<grid_for(total), kBlock, 0, stream>>>(m, static_cast<const T*>(x), static_cast<const T*>(offset),
                                                 static_cast<const T*>(mask), static_cast<Accum<T>*>(col));
    return cudaGetLastError();
  });
}

cudaError_t launch_deform_bias_rows(int type, const void* bias, int64_t images, int64_t rows, int64_t cols, void* y,
                                    cudaStream_t stream) {
  const int64_t total = images * rows * cols;
  if (total <= 0) return cudaSuccess;
  return visit<kEwFloats>(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    bias_rows_kernel<T><<<grid_for(total), kBlock, 0, stream>>>(static_cast<const T*>(bias), rows, cols, total,
                                                                static_cast<Accum<T>*>(y));
    return cudaGetLastError();
  });
}

}  // namespace sy::cuda

// CUDA GridSample and AffineGrid. GridSample: one thread per output point, which works out its taps
// along each axis once (grid_sample_axis.h, the CPU kernel's own
// arithmetic) and then sums them for every channel in turn, so that a
// warp's stores to a channel are contiguous. Taps and sums follow the CPU
// kernel's order (devices/cpu/kernels/image_kernels.cc).
#include "devices/cuda/kernels/elementwise_device.cuh"
#include "devices/cuda/kernels/grid_sample_launch.h"

namespace sy::cuda {
namespace {

using namespace ew;

template <typename T, typename G>
__global__ void grid_sample_kernel(GridSampleMeta m, const T* __restrict__ x, const G* __restrict__ grid,
                                   T* __restrict__ out) {
  using A = Calc<T>;
  const int r = m.r;
  const int ntaps = grid_sample::taps_of(m.mode);
  int64_t combos = 1;
  for (int a = 0; a < r; ++a) combos *= ntaps;
  const int64_t n_points = m.batch * m.pixels;
  for (int64_t q = first_index(); q < n_points; q += grid_stride()) {
    const int64_t n = q / m.pixels, p = q % m.pixels;
    int64_t idx[3][4];
    A w[3][4];
    // grid[..., 0] is the last spatial axis (x), grid[..., r - 1] the first.
    bool ok = true;
    for (int a = 0; a < r && ok; ++a) {
      const A g = cvt<A>(grid[q * r + (r - 1 - a)]);
      const A c = m.axes[a].coordinate(g, m.align_corners, m.mode, m.pad);
      ok = grid_sample::axis_taps(m.axes[a], c, m.mode, m.pad, idx[a], w[a]);
    }
    const T* src = x + n * m.channels * m.plane_in;
    T* dst = out + n * m.channels * m.pixels + p;
    for (int64_t ch = 0; ch < m.channels; ++ch, src += m.plane_in, dst += m.pixels) {
      if (!ok) {  // a NaN coordinate
        *dst = cvt<T>(A(NAN));
        continue;
      }
      A v = A(0);
      for (int64_t k = 0; k < combos; ++k) {
        int64_t offset = 0, rest = k;
        A weight = A(1);
        for (int a = r - 1; a >= 0 && offset >= 0; --a, rest /= ntaps) {
          const int64_t t = rest % ntaps;
          offset = idx[a][t] < 0 ? -1 : offset + idx[a][t] * m.stride[a];
          weight *= w[a][t];
        }
        if (offset >= 0) v += weight * cvt<A>(src[offset]);
      }
      *dst = cvt<T>(v);
    }
  }
}

// One thread per grid point, its r coordinates summed in the CPU kernel's
// order (image_kernels.cc).
template <typename T>
__global__ void affine_grid_kernel(AffineGridMeta m, const T* __restrict__ theta, T* __restrict__ grid) {
  const int64_t plane = m.d * m.h * m.w, points = m.n * plane;
  const int r = m.r;
  for (int64_t q = first_index(); q < points; q += grid_stride()) {
    const int64_t p = q % plane;
    const int64_t xi = p % m.w, yi = (p / m.w) % m.h, zi = p / (m.w * m.h);
    const double c[4] = {grid_sample::affine_coordinate(xi, m.w, m.align_corners),
                         grid_sample::affine_coordinate(yi, m.h, m.align_corners),
                         r == 3 ? grid_sample::affine_coordinate(zi, m.d, m.align_corners) : 1.0, 1.0};
    const T* tn = theta + (q / plane) * r * (r + 1);
    for (int i = 0; i < r; ++i) {
      double v = 0;
      for (int k = 0; k <= r; ++k) v += cvt<double>(tn[i * (r + 1) + k]) * c[k == r ? 3 : k];
      grid[q * r + i] = cvt<T>(static_cast<Calc<T>>(v));
    }
  }
}

}  // namespace

cudaError_t launch_affine_grid(int type, const AffineGridMeta& m, const void* theta, void* grid, cudaStream_t stream) {
  const int64_t n = m.n * m.d * m.h * m.w;
  if (n <= 0) return cudaSuccess;
  return visit<kEwFloats>(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    affine_grid_kernel<T><<<grid_for(n), kBlock, 0, stream>>>(m, static_cast<const T*>(theta), static_cast<T*>(grid));
    return cudaGetLastError();
  });
}

cudaError_t launch_grid_sample(int x_type, int grid_type, const GridSampleMeta& m, const void* x, const void* grid,
                               void* out, cudaStream_t stream) {
  const int64_t n = m.batch * m.pixels;
  if (n <= 0 || m.channels <= 0) return cudaSuccess;
  return visit<kEwFloats>(x_type, [&](auto xt) {
    using T = typename decltype(xt)::type;
    return visit<kEwFloats>(grid_type, [&](auto gt) {
      using G = typename decltype(gt)::type;
      grid_sample_kernel<T, G><<<grid_for(n), kBlock, 0, stream>>>(m, static_cast<const T*>(x),
                                                                   static_cast<const G*>(grid), static_cast<T*>(out));
      return cudaGetLastError();
    });
  });
}

}  // namespace sy::cuda

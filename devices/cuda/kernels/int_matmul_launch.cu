// CUDA MatMulInteger, QLinearMatMul, ConvInteger and QLinearConv: a tiled
// integer GEMM, fed by an im2col for the convolutions. Each block
// computes a 64 x 64 tile of one product, each of its 256 threads a 4 x 4
// block of it, from 64 x 16 slices of A and 16 x 64 of B staged in shared
// memory with their zero points already subtracted, so the inner loop is
// int32 multiply-adds. cuBLAS's int8 GEMM takes neither uint8 nor zero
// points, and the sums must be exact. QLinearMatMul and QLinearConv
// requantize each sum in float, in the CPU kernels' order
// (devices/cpu/kernels/nn_kernels.cc, nn_conv.cc), so both give the same
// bytes.
#include <cstdint>

#include "devices/cuda/kernels/elementwise_device.cuh"
#include "devices/cuda/kernels/int_matmul_launch.h"

namespace sy::cuda {
namespace {

using namespace ew;

constexpr int kTile = 64;   // rows and columns of a block's tile
constexpr int kDepth = 16;  // k per shared-memory slice
constexpr int kThreads = 256;

template <typename T>
__device__ __forceinline__ int32_t zero_at(const void* z, int64_t n, int64_t i) {
  return z ? static_cast<int32_t>(static_cast<const T*>(z)[n == 1 ? 0 : i]) : 0;
}

// `row` indexes the per-row parameters.
template <typename TY>
__device__ __forceinline__ TY finish(int32_t acc, const IntMatMulMeta& m, int64_t row, int64_t col) {
  if (m.bias) acc += m.bias[row];
  if constexpr (std::is_same_v<TY, int32_t>) {
    return acc;
  } else {
    const float as = m.a_scale[m.a_scale_n == 1 ? 0 : row], bs = m.b_scale[m.b_scale_n == 1 ? 0 : col];
    const float v = static_cast<float>(acc) * (as * bs / m.y_scale);
    float r = rintf(v) + static_cast<float>(m.y_zero);
    if (isnan(r)) r = static_cast<float>(m.y_zero);
    constexpr float lo = std::is_same_v<TY, uint8_t> ? 0.f : -128.f, hi = std::is_same_v<TY, uint8_t> ? 255.f : 127.f;
    return static_cast<TY>(fminf(fmaxf(r, lo), hi));
  }
}

// One 64 x 64 tile of product z: rows [row0, row0 + 64), columns
// [col0, col0 + 64).
template <typename TA, typename TB, typename TY>
__device__ __forceinline__ void int_matmul_tile(const IntMatMulMeta& m, const TA* a, const TB* b, TY* y, int64_t z,
                                                int64_t row0, int64_t col0, int32_t (&sa)[kDepth][kTile],
                                                int32_t (&sb)[kDepth][kTile]) {
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int64_t ga = m.a_cycle > 0 ? z % m.a_cycle : z;
  const int64_t prow = m.a_cycle > 0 ? ga * m.M : 0;  // first per-row parameter
  const TA* az = a + ga * m.a_stride;
  const TB* bz = b + z * m.b_stride;
  int32_t acc[4][4] = {};
  for (int64_t k0 = 0; k0 < m.K; k0 += kDepth) {
    // Out-of-range elements stage as 0, which adds nothing.
    for (int e = threadIdx.x; e < kTile * kDepth; e += kThreads) {
      const int r = e / kDepth, kk = e % kDepth;
      const int64_t gr = row0 + r, gk = k0 + kk;
      sa[kk][r] = gr < m.M && gk < m.K
                      ? static_cast<int32_t>(az[gr * m.K + gk]) - zero_at<TA>(m.a_zero, m.a_zero_n, prow + gr)
                      : 0;
    }
    for (int e = threadIdx.x; e < kTile * kDepth; e += kThreads) {
      const int kk = e / kTile, c = e % kTile;
      const int64_t gk = k0 + kk, gc = col0 + c;
      sb[kk][c] =
          gk < m.K && gc < m.N ? static_cast<int32_t>(bz[gk * m.N + gc]) - zero_at<TB>(m.b_zero, m.b_zero_n, gc) : 0;
    }
    __syncthreads();
    for (int kk = 0; kk < kDepth; ++kk) {
      int32_t av[4], bv[4];
      for (int i = 0; i < 4; ++i) av[i] = sa[kk][ty + 16 * i];
      for (int j = 0; j < 4; ++j) bv[j] = sb[kk][tx + 16 * j];
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) acc[i][j] += av[i] * bv[j];
    }
    __syncthreads();  // the slices are restaged
  }
  TY* yz = y + z * m.M * m.N;
  for (int i = 0; i < 4; ++i) {
    const int64_t r = row0 + ty + 16 * i;
    if (r >= m.M) break;
    for (int j = 0; j < 4; ++j) {
      const int64_t c = col0 + tx + 16 * j;
      if (c < m.N) yz[r * m.N + c] = finish<TY>(acc[i][j], m, prow + r, c);
    }
  }
}

// Blocks stride over the tiles in all three grid dimensions, so any
// product fits the grid's limits.
template <typename TA, typename TB, typename TY>
__global__ void __launch_bounds__(kThreads)
    int_matmul_kernel(IntMatMulMeta m, const TA* __restrict__ a, const TB* __restrict__ b, TY* __restrict__ y) {
  __shared__ int32_t sa[kDepth][kTile];  // A's slice, k-major: thread rows read along a row of it
  __shared__ int32_t sb[kDepth][kTile];
  for (int64_t z = blockIdx.z; z < m.count; z += gridDim.z)
    for (int64_t row0 = int64_t{blockIdx.y} * kTile; row0 < m.M; row0 += int64_t{gridDim.y} * kTile)
      for (int64_t col0 = int64_t{blockIdx.x} * kTile; col0 < m.N; col0 += int64_t{gridDim.x} * kTile)
        int_matmul_tile(m, a, b, y, z, row0, col0, sa, sb);
}

template <typename T>
__global__ void int_im2col_kernel(Im2colMeta m, const T* __restrict__ x, const T* __restrict__ x_zero,
                                  T* __restrict__ col) {
  const int64_t osz = m.out[0] * m.out[1] * m.out[2], ksz = m.k[0] * m.k[1] * m.k[2];
  const int64_t isz = m.in[0] * m.in[1] * m.in[2], n = m.nc * ksz * osz;
  const T zero = x_zero ? x_zero[0] : T(0);
  for (int64_t i = first_index(); i < n; i += grid_stride()) {
    const int64_t o = i % osz, kk = (i / osz) % ksz, c = i / (osz * ksz);
    const int64_t at[3] = {o / (m.out[1] * m.out[2]), (o / m.out[2]) % m.out[1], o % m.out[2]};
    const int64_t tap[3] = {kk / (m.k[1] * m.k[2]), (kk / m.k[2]) % m.k[1], kk % m.k[2]};
    int64_t off = 0;
    bool inside = true;
    for (int d = 0; d < 3; ++d) {
      const int64_t p = at[d] * m.stride[d] - m.pad[d] + tap[d] * m.dil[d];
      inside = inside && p >= 0 && p < m.in[d];
      off = off * m.in[d] + p;
    }
    col[i] = inside ? x[c * isz + off] : zero;
  }
}

}  // namespace

cudaError_t launch_int_im2col(int type, const Im2colMeta& m, const void* x, const void* x_zero, void* col,
                              cudaStream_t stream) {
  const int64_t n = m.nc * m.k[0] * m.k[1] * m.k[2] * m.out[0] * m.out[1] * m.out[2];
  if (n <= 0) return cudaSuccess;
  return visit<ew_bit(ew_type::kUInt8) | ew_bit(ew_type::kInt8)>(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    int_im2col_kernel<T><<<grid_for(n), kBlock, 0, stream>>>(m, static_cast<const T*>(x), static_cast<const T*>(x_zero),
                                                             static_cast<T*>(col));
    return cudaGetLastError();
  });
}

cudaError_t launch_int_matmul(int a_type, int b_type, int y_type, const IntMatMulMeta& m, const void* a, const void* b,
                              void* y, cudaStream_t stream) {
  if (m.M <= 0 || m.N <= 0 || m.count <= 0) return cudaSuccess;
  const auto blocks = [](int64_t tiles, int64_t cap) { return static_cast<unsigned>(tiles < cap ? tiles : cap); };
  const dim3 grid(blocks((m.N + kTile - 1) / kTile, int64_t{1} << 30), blocks((m.M + kTile - 1) / kTile, 65535),
                  blocks(m.count, 65535));
  constexpr uint32_t k8 = ew_bit(ew_type::kUInt8) | ew_bit(ew_type::kInt8);
  return visit<k8>(a_type, [&](auto at) {
    using TA = typename decltype(at)::type;
    return visit<k8>(b_type, [&](auto bt) {
      using TB = typename decltype(bt)::type;
      return visit<k8 | ew_bit(ew_type::kInt32)>(y_type, [&](auto yt) {
        using TY = typename decltype(yt)::type;
        int_matmul_kernel<TA, TB, TY><<<grid, kThreads, 0, stream>>>(m, static_cast<const TA*>(a),
                                                                     static_cast<const TB*>(b), static_cast<TY*>(y));
        return cudaGetLastError();
      });
    });
  });
}

}  // namespace sy::cuda

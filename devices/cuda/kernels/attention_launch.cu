// CUDA RotaryEmbedding: a thread an output element, computed in float
// (the CPU kernel's arithmetic), from the two elements of its pair.
//
// CUDA Attention's own kernels (the products are cuBLAS's): a converting
// copy between [B, H, S, D] views, and the softmax of a tile of scores, a
// warp a row, in the CPU kernel's order of stages (nn_attention.cc).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>

#include "devices/cuda/kernels/attention_launch.h"
#include "devices/cuda/kernels/attention_plan.h"
#include "devices/cuda/kernels/elementwise_device.cuh"

namespace sy::cuda {
namespace {

using ew::cvt;

// Blocks for `items` work items of `per_block` each, capped: the kernels
// loop over the rest.
unsigned grid_of(int64_t items, int64_t per_block) {
  const int64_t blocks = (items + per_block - 1) / per_block;
  return static_cast<unsigned>(blocks < 65535 * 16 ? blocks : 65535 * 16);
}

template <typename T>
__global__ void rotary_kernel(const T* __restrict__ x, const T* __restrict__ cos, const T* __restrict__ sin,
                              const int64_t* __restrict__ ids, T* __restrict__ y, RotaryMeta m, int* bad) {
  const int64_t n = m.batch * m.heads * m.len * m.head, half = m.rotary_dim / 2;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t d = i % m.head, r = i / m.head;
    if (d >= m.rotary_dim) {
      y[i] = x[i];
      continue;
    }
    // The token (b, s) of this element, whichever the layout.
    const int64_t s = m.three_d ? (r / m.heads) % m.len : r % m.len;
    const int64_t b = r / (m.heads * m.len);
    int64_t row = b * m.len + s;
    if (ids) {
      row = ids[row];
      if (row < 0 || row >= m.positions) {
        *bad = 1;
        continue;
      }
    }
    const int64_t k = m.interleaved ? d / 2 : d % half;
    const bool second = m.interleaved ? (d & 1) != 0 : d >= half;
    const int64_t base = i - d, step = m.interleaved ? 2 : 1, other = m.interleaved ? 1 : half;
    const float x1 = cvt<float>(x[base + k * step]), x2 = cvt<float>(x[base + k * step + other]);
    const float c = cvt<float>(cos[row * half + k]), sn = cvt<float>(sin[row * half + k]);
    y[i] = cvt<T>(second ? sn * x1 + c * x2 : c * x1 - sn * x2);
  }
}

template <typename T>
cudaError_t run(const void* x, const void* cos, const void* sin, const int64_t* ids, void* y, const RotaryMeta& m,
                int* bad, cudaStream_t stream) {
  const int64_t n = m.batch * m.heads * m.len * m.head;
  if (n == 0) return cudaSuccess;
  constexpr unsigned kBlock = 256;
  rotary_kernel<T><<<grid_of(n, kBlock), kBlock, 0, stream>>>(static_cast<const T*>(x), static_cast<const T*>(cos),
                                                              static_cast<const T*>(sin), ids, static_cast<T*>(y), m,
                                                              bad);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_rotary_embedding(int dtype, const void* x, const void* cos, const void* sin, const int64_t* ids,
                                    void* y, const RotaryMeta& m, int* bad, cudaStream_t stream) {
  switch (dtype) {
    case 1: return run<float>(x, cos, sin, ids, y, m, bad, stream);
    case 10: return run<__half>(x, cos, sin, ids, y, m, bad, stream);
    case 16: return run<__nv_bfloat16>(x, cos, sin, ids, y, m, bad, stream);
    default: return cudaErrorNotSupported;
  }
}

namespace {

template <typename S, typename D>
__global__ void heads_copy_kernel(const S* __restrict__ src, HeadStrides sa, D* __restrict__ dst, HeadStrides da,
                                  int64_t H, int64_t S_len, int64_t Dh, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t d = i % Dh, r = i / Dh, s = r % S_len, bh = r / S_len, h = bh % H, b = bh / H;
    dst[b * da.b + h * da.h + s * da.s + d] = cvt<D>(src[b * sa.b + h * sa.h + s * sa.s + d]);
  }
}

template <typename S, typename D>
cudaError_t heads_copy(const void* src, HeadStrides sa, void* dst, HeadStrides da, int64_t B, int64_t H, int64_t S_len,
                       int64_t Dh, cudaStream_t stream) {
  const int64_t n = B * H * S_len * Dh;
  if (n == 0) return cudaSuccess;
  constexpr unsigned kBlock = 256;
  heads_copy_kernel<S, D><<<grid_of(n, kBlock), kBlock, 0, stream>>>(static_cast<const S*>(src), sa,
                                                                     static_cast<D*>(dst), da, H, S_len, Dh, n);
  return cudaGetLastError();
}

constexpr uint32_t kFloatTypes = (1u << 1) | (1u << 10) | (1u << 16);  // float, float16, bfloat16

constexpr unsigned kFullWarp = 0xffffffffu;

template <typename A>
__device__ __forceinline__ A warp_sum(A v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(kFullWarp, v, o);
  return v;
}

__device__ __forceinline__ float exp_of(float v) { return expf(v); }
__device__ __forceinline__ double exp_of(double v) { return exp(v); }

// fmaxf skips a NaN operand, as the CPU's max_skipping_nan does.
__device__ __forceinline__ float warp_max(float v) {
  for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(kFullWarp, v, o));
  return v;
}

__device__ __forceinline__ float load_mask(const void* p, int dtype, int64_t i) {
  switch (dtype) {
    case 9: return static_cast<const bool*>(p)[i] ? 0.f : -INFINITY;
    case 10: return cvt<float>(static_cast<const __half*>(p)[i]);
    case 16: return cvt<float>(static_cast<const __nv_bfloat16*>(p)[i]);
    default: return static_cast<const float*>(p)[i];
  }
}

__device__ __forceinline__ void store_qk(void* p, int dtype, int64_t i, float v) {
  switch (dtype) {
    case 10: static_cast<__half*>(p)[i] = cvt<__half>(v); break;
    case 16: static_cast<__nv_bfloat16*>(p)[i] = cvt<__nv_bfloat16>(v); break;
    default: static_cast<float*>(p)[i] = v;
  }
}

// One warp a row; A is the type the exponentials are summed in.
template <typename A>
__global__ void attention_softmax_kernel(float* __restrict__ scores, AttnSoftmaxMeta m) {
  const int lane = threadIdx.x % 32;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / 32);
  const int64_t T = m.dims.total_len, rows = m.tile.rows(m.dims);
  for (int64_t r = blockIdx.x * static_cast<int64_t>(blockDim.x / 32) + threadIdx.x / 32; r < rows; r += warps) {
    const attention_plan::RowOf at = attention_plan::row_of(m.tile, m.dims, r);
    const int64_t b = at.bh / m.q_heads, h = at.bh % m.q_heads, i = at.i;
    float* row = scores + r * T;
    const int64_t qk_row = (at.bh * m.dims.q_len + i) * T;
    // Keys from `valid` on are masked by causality, keys from mask_len on
    // by a mask shorter than the keys.
    int64_t valid = T;
    if (m.causal) valid = i + m.past_len + 1 < T ? i + m.past_len + 1 : T;
    const int64_t mask_row = b * m.mask_stride[0] + h * m.mask_stride[1] + i * m.mask_stride[2];
    float top = -INFINITY;
    for (int64_t j = lane; j < T; j += 32) {
      float x = row[j];
      if (m.qk && m.qk_mode == 0) store_qk(m.qk, m.qk_dtype, qk_row + j, x);
      if (m.softcap > 0.f) x = m.softcap * tanhf(x / m.softcap);
      if (m.qk && m.qk_mode == 1) store_qk(m.qk, m.qk_dtype, qk_row + j, x);
      if (j >= valid || (m.mask && j >= m.mask_len)) x = -INFINITY;
      else if (m.mask) x += load_mask(m.mask, m.mask_dtype, mask_row + j * m.mask_stride[3]);
      if (m.qk && m.qk_mode == 2) store_qk(m.qk, m.qk_dtype, qk_row + j, x);
      row[j] = x;
      top = fmaxf(top, x);
    }
    top = warp_max(top);
    if (top == -INFINITY) {  // no key may be attended: zeros, not NaN
      for (int64_t j = lane; j < T; j += 32) {
        row[j] = 0.f;
        if (m.qk && m.qk_mode == 3) store_qk(m.qk, m.qk_dtype, qk_row + j, 0.f);
      }
      continue;
    }
    A sum = 0;
    for (int64_t j = lane; j < T; j += 32) {
      const A e = j < valid ? exp_of(static_cast<A>(row[j]) - static_cast<A>(top)) : A(0);
      row[j] = static_cast<float>(e);
      sum += e;
    }
    const A inv = A(1) / warp_sum(sum);
    for (int64_t j = lane; j < T; j += 32) {
      const float p = static_cast<float>(static_cast<A>(row[j]) * inv);
      row[j] = p;
      if (m.qk && m.qk_mode == 3) store_qk(m.qk, m.qk_dtype, qk_row + j, p);
    }
  }
}

}  // namespace

cudaError_t launch_heads_copy(int src_dtype, const void* src, HeadStrides src_at, int dst_dtype, void* dst,
                              HeadStrides dst_at, int64_t B, int64_t H, int64_t S, int64_t D, cudaStream_t stream) {
  return ew::visit<kFloatTypes>(src_dtype, [&](auto from) {
    return ew::visit<kFloatTypes>(dst_dtype, [&](auto to) {
      using From = typename decltype(from)::type;
      using To = typename decltype(to)::type;
      return heads_copy<From, To>(src, src_at, dst, dst_at, B, H, S, D, stream);
    });
  });
}

cudaError_t launch_attention_softmax(float* scores, const AttnSoftmaxMeta& m, cudaStream_t stream) {
  const int64_t rows = m.tile.rows(m.dims);
  if (rows == 0 || m.dims.total_len == 0) return cudaSuccess;
  constexpr unsigned kBlock = 256;
  const unsigned grid = grid_of(rows, kBlock / 32);  // a warp a row
  if (m.softmax_double) attention_softmax_kernel<double><<<grid, kBlock, 0, stream>>>(scores, m);
  else attention_softmax_kernel<float><<<grid, kBlock, 0, stream>>>(scores, m);
  return cudaGetLastError();
}

}  // namespace sy::cuda

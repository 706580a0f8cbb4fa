// CUDA Layer-, RMS-, Instance-, Group-, MeanVariance- and LpNormalization,
// for float, double, float16 and bfloat16. Each follows its CPU kernel's
// arithmetic (two-pass mean and variance in float, or in double for double;
// MVN's single-pass double moments; 16-bit values computed in float) so
// both backends agree up to summation order.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cub/cub.cuh>

#include "devices/cuda/kernels/elementwise_device.cuh"
#include "devices/cuda/kernels/norm_launch.h"
#include "devices/cuda/kernels/reduction_device.cuh"

namespace sy::cuda {
namespace {

using namespace reduce_dev;

// A 16-bit result rounds once, at its store.
template <typename T>
using Compute = ew::Accum<T>;

// ----------------------------------------- LayerNorm / grouped norm rows

__device__ __forceinline__ int64_t param_index(int64_t j, bool dense, const NormMeta& m, const int64_t* strides) {
  return dense ? j : offset_of(j, m.norm_rank, m.norm_dims, strides);
}

// One block per row: mean, then variance around it, then the output.
template <typename T, typename S, int kBlock, bool kGrouped>
__global__ void __launch_bounds__(kBlock)
    row_norm_kernel(const T* __restrict__ x, const T* __restrict__ scale, const T* __restrict__ bias,
                    T* __restrict__ y, S* __restrict__ mean_out, S* __restrict__ inv_out, NormMeta m) {
  using C = Compute<T>;
  using BlockReduce = cub::BlockReduce<C, kBlock>;
  __shared__ typename BlockReduce::TempStorage tmp;
  __shared__ C s_mean, s_var;
  const C eps = static_cast<C>(m.epsilon);
  const C cols = static_cast<C>(m.cols);
  for (int64_t r = blockIdx.x; r < m.rows; r += gridDim.x) {
    const T* xr = x + r * m.cols;
    T* yr = y + r * m.cols;
    C mean = 0;
    if (!m.rms) {  // uniform over the block, so its barriers are too
      C sum = 0;
      for (int64_t j = threadIdx.x; j < m.cols; j += kBlock) sum += static_cast<C>(xr[j]);
      sum = BlockReduce(tmp).Sum(sum);
      if (threadIdx.x == 0) s_mean = m.cols > 0 ? sum / cols : C(0);
      __syncthreads();
      mean = s_mean;
    }
    C sq = 0;
    for (int64_t j = threadIdx.x; j < m.cols; j += kBlock) {
      const C d = static_cast<C>(xr[j]) - mean;
      sq += d * d;
    }
    sq = BlockReduce(tmp).Sum(sq);
    if (threadIdx.x == 0) s_var = m.cols > 0 ? sq / cols : C(0);
    __syncthreads();
    const C var = s_var;
    if constexpr (kGrouped) {
      const int64_t g = r % m.groups;
      const C inv = C(1) / dev_sqrt(var + eps);
      if (m.params_per_group || m.per_group == 1) {
        // One scale and bias for the whole row (every InstanceNormalization).
        const int64_t p = m.params_per_group ? g : g * m.per_group;
        const C mul = static_cast<C>(scale[p]) * inv, b = static_cast<C>(bias[p]);
        for (int64_t j = threadIdx.x; j < m.cols; j += kBlock)
          yr[j] = static_cast<T>((static_cast<C>(xr[j]) - mean) * mul + b);
      } else {
        for (int64_t j = threadIdx.x; j < m.cols; j += kBlock) {
          const int64_t p = g * m.per_group + j / m.spatial;
          yr[j] = static_cast<T>((static_cast<C>(xr[j]) - mean) * (static_cast<C>(scale[p]) * inv) +
                                 static_cast<C>(bias[p]));
        }
      }
    } else {
      const C inv = C(1) / dev_sqrt(var + eps);
      for (int64_t j = threadIdx.x; j < m.cols; j += kBlock) {
        C v = (static_cast<C>(xr[j]) - mean) * inv *
              static_cast<C>(scale[param_index(j, m.scale_dense, m, m.scale_strides)]);
        if (bias) v += static_cast<C>(bias[param_index(j, m.bias_dense, m, m.bias_strides)]);
        yr[j] = static_cast<T>(v);
      }
      if (threadIdx.x == 0) {
        if (mean_out) mean_out[r] = static_cast<S>(mean);
        if (inv_out) inv_out[r] = static_cast<S>(inv);
      }
    }
    __syncthreads();  // s_mean, s_var and tmp are rewritten for the next row
  }
}

template <typename T, typename S, bool kGrouped>
cudaError_t run_row_norm(const T* x, const T* scale, const T* bias, T* y, S* mean, S* inv_std, const NormMeta& m,
                         cudaStream_t stream) {
  if (m.rows <= 0) return cudaSuccess;
  // Short rows waste most of a large block; one warp pair handles them.
  if (m.cols <= 1024) {
    row_norm_kernel<T, S, 64, kGrouped><<<blocks_for(m.rows, 1), 64, 0, stream>>>(x, scale, bias, y, mean, inv_std, m);
  } else {
    row_norm_kernel<T, S, 256, kGrouped>
        <<<blocks_for(m.rows, 1), 256, 0, stream>>>(x, scale, bias, y, mean, inv_std, m);
  }
  return cudaGetLastError();
}

// ------------------------------------------------- BatchNormalization stats

// One block per channel: its batch mean and variance over n * sp values,
// then its outputs and statistics.
template <typename T, int kBlock>
__global__ void __launch_bounds__(kBlock)
    batch_norm_stats_kernel(const T* __restrict__ x, T* __restrict__ y, const Compute<T>* __restrict__ scale,
                            const Compute<T>* __restrict__ bias, const Compute<T>* __restrict__ mean,
                            const Compute<T>* __restrict__ var, Compute<T>* __restrict__ stats, BatchNormMeta m) {
  using C = Compute<T>;
  using BlockReduce = cub::BlockReduce<C, kBlock>;
  __shared__ typename BlockReduce::TempStorage tmp;
  __shared__ C s_mean, s_var;
  const int64_t count = m.n * m.sp;
  const C cnt = static_cast<C>(count), eps = static_cast<C>(static_cast<float>(m.epsilon));
  const C mom = static_cast<C>(static_cast<float>(m.momentum));
  for (int64_t ch = blockIdx.x; ch < m.c; ch += gridDim.x) {
    const auto at = [&](int64_t q) { return ((q / m.sp) * m.c + ch) * m.sp + q % m.sp; };
    C sum = 0;
    for (int64_t q = threadIdx.x; q < count; q += kBlock) sum += ew::cvt<C>(x[at(q)]);
    sum = BlockReduce(tmp).Sum(sum);
    if (threadIdx.x == 0) s_mean = count > 0 ? sum / cnt : C(0);
    __syncthreads();
    const C bm = s_mean;
    C sq = 0;
    for (int64_t q = threadIdx.x; q < count; q += kBlock) {
      const C d = ew::cvt<C>(x[at(q)]) - bm;
      sq += d * d;
    }
    sq = BlockReduce(tmp).Sum(sq);
    if (threadIdx.x == 0) s_var = count > 0 ? sq / cnt : C(0);
    __syncthreads();
    const C bv = s_var;
    const C use_mean = m.training ? bm : mean[ch], use_var = m.training ? bv : var[ch];
    const C mul = scale[ch] / dev_sqrt(use_var + eps);
    const C add = bias[ch] - use_mean * mul;
    for (int64_t q = threadIdx.x; q < count; q += kBlock) {
      const int64_t o = at(q);
      y[o] = ew::cvt<T>(ew::cvt<C>(x[o]) * mul + add);
    }
    if (threadIdx.x == 0) {
      stats[ch] = mean[ch] * mom + bm * (C(1) - mom);
      stats[m.c + ch] = var[ch] * mom + bv * (C(1) - mom);
      stats[2 * m.c + ch] = bm;
      stats[3 * m.c + ch] = bv;
    }
    __syncthreads();  // s_mean, s_var and tmp are rewritten for the next channel
  }
}

// ------------------------------------------------------------------ MVN

struct Moments {
  double s;
  double s2;
};
struct AddMoments {
  __device__ __forceinline__ Moments operator()(const Moments& a, const Moments& b) const {
    return {a.s + b.s, a.s2 + b.s2};
  }
};

constexpr int kMvnBlock = 256;

// One block per statistic (kept index): moments over its reduced elements,
// then the output at the same offsets.
template <typename T>
__global__ void __launch_bounds__(kMvnBlock) mvn_kernel(const T* __restrict__ x, T* __restrict__ y, ReduceGroups g) {
  using C = Compute<T>;
  using BlockReduce = cub::BlockReduce<Moments, kMvnBlock>;
  __shared__ typename BlockReduce::TempStorage tmp;
  __shared__ C s_mean, s_denom;
  for (int64_t o = blockIdx.x; o < g.out_numel; o += gridDim.x) {
    const int64_t base = offset_of(o, g.num_kept, g.kept_size, g.kept_stride);
    Moments mo{0.0, 0.0};
    for (int64_t r = threadIdx.x; r < g.red_numel; r += kMvnBlock) {
      const double v = static_cast<double>(static_cast<C>(x[base + offset_of(r, g.num_red, g.red_size, g.red_stride)]));
      mo.s += v;
      mo.s2 += v * v;
    }
    mo = BlockReduce(tmp).Reduce(mo, AddMoments{});
    if (threadIdx.x == 0) {
      const double cnt = static_cast<double>(g.red_numel);
      const double mean = mo.s / cnt;
      const double var = fmax(0.0, mo.s2 / cnt - mean * mean);
      s_mean = static_cast<C>(mean);
      s_denom = static_cast<C>(sqrt(var) + 1e-9);
    }
    __syncthreads();
    const C mean = s_mean, denom = s_denom;
    for (int64_t r = threadIdx.x; r < g.red_numel; r += kMvnBlock) {
      const int64_t off = base + offset_of(r, g.num_red, g.red_size, g.red_stride);
      y[off] = static_cast<T>((static_cast<C>(x[off]) - mean) / denom);
    }
    __syncthreads();
  }
}

// --------------------------------------------------------------- LpNorm

template <typename T>
__device__ __forceinline__ T lp_term(T v, int p) {
  return p == 1 ? dev_abs(v) : v * v;
}

// A zero vector stays zero rather than becoming 0/0, as on the CPU.
template <typename T>
__device__ __forceinline__ T lp_scaled(T v, T norm) {
  return norm == T(0) ? T(0) : v / norm;
}

template <typename T>
__global__ void lp_thread_kernel(const T* __restrict__ x, T* __restrict__ y, LpMeta m) {
  using C = Compute<T>;
  const int64_t lines = m.outer * m.inner;
  for (int64_t t = global_thread(); t < lines; t += grid_threads()) {
    const int64_t base = (t / m.inner) * m.d * m.inner + t % m.inner;
    C norm = 0;
    for (int64_t k = 0; k < m.d; ++k) norm += lp_term(static_cast<C>(x[base + k * m.inner]), m.p);
    if (m.p == 2) norm = dev_sqrt(norm);
    for (int64_t k = 0; k < m.d; ++k)
      y[base + k * m.inner] = static_cast<T>(lp_scaled(static_cast<C>(x[base + k * m.inner]), norm));
  }
}

constexpr int kLpBlock = 256;

template <typename T>
__global__ void __launch_bounds__(kLpBlock) lp_block_kernel(const T* __restrict__ x, T* __restrict__ y, LpMeta m) {
  using C = Compute<T>;
  using BlockReduce = cub::BlockReduce<C, kLpBlock>;
  __shared__ typename BlockReduce::TempStorage tmp;
  __shared__ C s_norm;
  const int64_t lines = m.outer * m.inner;
  for (int64_t t = blockIdx.x; t < lines; t += gridDim.x) {
    const int64_t base = (t / m.inner) * m.d * m.inner + t % m.inner;
    C part = 0;
    for (int64_t k = threadIdx.x; k < m.d; k += kLpBlock) part += lp_term(static_cast<C>(x[base + k * m.inner]), m.p);
    const C norm = BlockReduce(tmp).Sum(part);
    if (threadIdx.x == 0) s_norm = m.p == 2 ? dev_sqrt(norm) : norm;
    __syncthreads();
    const C n = s_norm;
    for (int64_t k = threadIdx.x; k < m.d; k += kLpBlock)
      y[base + k * m.inner] = static_cast<T>(lp_scaled(static_cast<C>(x[base + k * m.inner]), n));
    __syncthreads();
  }
}

}  // namespace

template <typename T, typename S>
cudaError_t launch_layer_norm(const T* x, const T* scale, const T* bias, T* y, S* mean, S* inv_std,
                              const NormMeta& m, cudaStream_t stream) {
  return run_row_norm<T, S, false>(x, scale, bias, y, mean, inv_std, m, stream);
}

template <typename S>
cudaError_t launch_layer_norm_16(int dtype, const void* x, const void* scale, const void* bias, void* y, S* mean,
                                 S* inv_std, const NormMeta& m, cudaStream_t stream) {
  return ew::visit<kEwHalfFloats>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return run_row_norm<T, S, false>(static_cast<const T*>(x), static_cast<const T*>(scale),
                                     static_cast<const T*>(bias), static_cast<T*>(y), mean, inv_std, m, stream);
  });
}

template <typename T>
cudaError_t launch_grouped_norm(const T* x, const T* scale, const T* bias, T* y, const NormMeta& m,
                                cudaStream_t stream) {
  if (m.groups <= 0 || m.per_group <= 0 || m.spatial <= 0 || m.cols != m.per_group * m.spatial)
    return cudaErrorInvalidValue;
  return run_row_norm<T, T, true>(x, scale, bias, y, static_cast<T*>(nullptr), static_cast<T*>(nullptr), m, stream);
}

cudaError_t launch_grouped_norm_16(int dtype, const void* x, const void* scale, const void* bias, void* y,
                                   const NormMeta& m, cudaStream_t stream) {
  return ew::visit<kEwHalfFloats>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return launch_grouped_norm<T>(static_cast<const T*>(x), static_cast<const T*>(scale), static_cast<const T*>(bias),
                                  static_cast<T*>(y), m, stream);
  });
}

template <typename T>
cudaError_t launch_mvn(const T* x, T* y, const ReduceGroups& g, cudaStream_t stream) {
  if (g.out_numel <= 0 || g.red_numel <= 0) return cudaSuccess;
  mvn_kernel<T><<<blocks_for(g.out_numel, 1), kMvnBlock, 0, stream>>>(x, y, g);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_lp_norm(const T* x, T* y, const LpMeta& m, cudaStream_t stream) {
  const int64_t lines = m.outer * m.inner;
  if (lines <= 0 || m.d <= 0) return cudaSuccess;
  if (m.d > 64 && (m.inner == 1 || lines < 8192)) {
    lp_block_kernel<T><<<blocks_for(lines, 1), kLpBlock, 0, stream>>>(x, y, m);
  } else {
    lp_thread_kernel<T><<<blocks_for(lines, 256), 256, 0, stream>>>(x, y, m);
  }
  return cudaGetLastError();
}

cudaError_t launch_mvn_16(int dtype, const void* x, void* y, const ReduceGroups& g, cudaStream_t stream) {
  return ew::visit<kEwHalfFloats>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return launch_mvn<T>(static_cast<const T*>(x), static_cast<T*>(y), g, stream);
  });
}

cudaError_t launch_lp_norm_16(int dtype, const void* x, void* y, const LpMeta& m, cudaStream_t stream) {
  return ew::visit<kEwHalfFloats>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return launch_lp_norm<T>(static_cast<const T*>(x), static_cast<T*>(y), m, stream);
  });
}

#define SY_INSTANTIATE_LAYER_NORM(T, S)                                                                   \
  template cudaError_t launch_layer_norm<T, S>(const T*, const T*, const T*, T*, S*, S*, const NormMeta&, \
                                               cudaStream_t);
SY_INSTANTIATE_LAYER_NORM(float, float)
SY_INSTANTIATE_LAYER_NORM(float, double)
SY_INSTANTIATE_LAYER_NORM(double, float)
SY_INSTANTIATE_LAYER_NORM(double, double)
#undef SY_INSTANTIATE_LAYER_NORM
template cudaError_t launch_layer_norm_16<float>(int, const void*, const void*, const void*, void*, float*, float*,
                                                 const NormMeta&, cudaStream_t);
template cudaError_t launch_layer_norm_16<double>(int, const void*, const void*, const void*, void*, double*, double*,
                                                  const NormMeta&, cudaStream_t);

#define SY_INSTANTIATE_NORM(T)                                                                                  \
  template cudaError_t launch_grouped_norm<T>(const T*, const T*, const T*, T*, const NormMeta&, cudaStream_t);  \
  template cudaError_t launch_mvn<T>(const T*, T*, const ReduceGroups&, cudaStream_t);                          \
  template cudaError_t launch_lp_norm<T>(const T*, T*, const LpMeta&, cudaStream_t);
SY_INSTANTIATE_NORM(float)
SY_INSTANTIATE_NORM(double)
#undef SY_INSTANTIATE_NORM

cudaError_t launch_batch_norm_stats(int dtype, const void* x, void* y, const void* scale, const void* bias,
                                    const void* mean, const void* var, void* stats, const BatchNormMeta& m,
                                    cudaStream_t stream) {
  if (m.c <= 0) return cudaSuccess;
  return ew::visit<kEwFloats>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = Compute<T>;
    batch_norm_stats_kernel<T, 256><<<blocks_for(m.c, 1), 256, 0, stream>>>(
        static_cast<const T*>(x), static_cast<T*>(y), static_cast<const C*>(scale), static_cast<const C*>(bias),
        static_cast<const C*>(mean), static_cast<const C*>(var), static_cast<C*>(stats), m);
    return cudaGetLastError();
  });
}

}  // namespace sy::cuda

// CUDA SoftmaxCrossEntropyLoss and NegativeLogLikelihoodLoss, in the CPU
// kernel's steps (devices/cpu/kernels/loss_kernels.cc), computed in the
// input's compute type (float for 16-bit inputs):
//  - for SoftmaxCrossEntropyLoss, each point's log-sum-exp over the classes
//    (max with NaN skipped, then the sum of exp(x - max)), and from it the
//    log-probabilities, written out when wanted;
//  - each point's loss, -logp[label] * weight[label], or 0 for an ignored
//    label;
//  - for sum and mean, the losses and weights summed in double by one
//    block, in a fixed order, so that a run repeats exactly.
#include <cub/cub.cuh>

#include "devices/cuda/kernels/elementwise_device.cuh"
#include "devices/cuda/kernels/loss_launch.h"
#include "devices/cuda/kernels/reduction_device.cuh"

namespace sy::cuda {
namespace {

using namespace ew;
using reduce_dev::dev_exp;
using reduce_dev::dev_log;
using reduce_dev::MaxSkippingNan;

template <typename T, typename L>
struct LossArgs {
  LossMeta m;
  const T* x;
  const L* labels;
  const T* weights;  // null: every weight 1
  T* loss;
  T* log_prob;  // null: not wanted
  double* partial;
  int* bad;

  // Point q = i * d + k's loss, given its log-sum-exp over the classes
  // (0 for NegativeLogLikelihoodLoss, whose input is log-probabilities).
  __device__ __forceinline__ void finish(int64_t q, Calc<T> lse) const {
    using A = Calc<T>;
    const int64_t i = q / m.d, k = q % m.d;
    const int64_t li = static_cast<int64_t>(labels[q]);
    A l = A(0), w = A(0);
    if (!(m.has_ignore && li == m.ignore_index)) {
      if (li < 0 || li >= m.c) {
        *bad = 1;
      } else {
        w = weights ? cvt<A>(weights[li]) : A(1);
        l = -(cvt<A>(x[(i * m.c + li) * m.d + k]) - lse) * w;
      }
    }
    if (m.per_point) {
      loss[q] = cvt<T>(l);
    } else {
      partial[q] = static_cast<double>(l);
      partial[m.n * m.d + q] = static_cast<double>(w);
    }
  }
};

// One thread a point: its classes are d apart, so adjacent threads read
// adjacent elements when d > 1.
template <typename T, typename L>
__global__ void loss_points_kernel(LossArgs<T, L> a) {
  using A = Calc<T>;
  const LossMeta& m = a.m;
  const int64_t points = m.n * m.d;
  for (int64_t q = first_index(); q < points; q += grid_stride()) {
    A lse = A(0);
    if (m.softmax) {
      const int64_t base = (q / m.d) * m.c * m.d + q % m.d;
      A mx = A(-INFINITY);
      for (int64_t j = 0; j < m.c; ++j) mx = fmax(mx, cvt<A>(a.x[base + j * m.d]));
      A s = A(0);
      for (int64_t j = 0; j < m.c; ++j) s += dev_exp(cvt<A>(a.x[base + j * m.d]) - mx);
      lse = mx + dev_log(s);
      if (a.log_prob)
        for (int64_t j = 0; j < m.c; ++j) a.log_prob[base + j * m.d] = cvt<T>(cvt<A>(a.x[base + j * m.d]) - lse);
    }
    a.finish(q, lse);
  }
}

// Log-softmax with d == 1 and many classes: one block a row, so that a
// row's reads are coalesced and its reductions shared by the block.
template <typename T, typename L, int kThreads>
__global__ void __launch_bounds__(kThreads) loss_rows_kernel(LossArgs<T, L> a) {
  using A = Calc<T>;
  using BlockReduce = cub::BlockReduce<A, kThreads>;
  __shared__ typename BlockReduce::TempStorage tmp;
  __shared__ A s_max, s_sum;
  const int64_t c = a.m.c;
  for (int64_t r = blockIdx.x; r < a.m.n; r += gridDim.x) {
    const T* xr = a.x + r * c;
    A mx = A(-INFINITY);
    for (int64_t j = threadIdx.x; j < c; j += kThreads) mx = fmax(mx, cvt<A>(xr[j]));
    mx = BlockReduce(tmp).Reduce(mx, MaxSkippingNan{});
    if (threadIdx.x == 0) s_max = mx;
    __syncthreads();
    mx = s_max;
    A s = A(0);
    for (int64_t j = threadIdx.x; j < c; j += kThreads) s += dev_exp(cvt<A>(xr[j]) - mx);
    s = BlockReduce(tmp).Sum(s);
    if (threadIdx.x == 0) s_sum = s;
    __syncthreads();
    const A lse = mx + dev_log(s_sum);
    if (a.log_prob)
      for (int64_t j = threadIdx.x; j < c; j += kThreads) a.log_prob[r * c + j] = cvt<T>(cvt<A>(xr[j]) - lse);
    if (threadIdx.x == 0) a.finish(r, lse);
    __syncthreads();  // s_max, s_sum and tmp are rewritten for the next row
  }
}

// loss[0] = the sum of the point losses, divided by the sum of their
// weights for the mean (0 / 0 is NaN, as ONNX's reference gives).
template <typename T, int kThreads>
__global__ void __launch_bounds__(kThreads)
    loss_total_kernel(const double* partial, int64_t points, bool mean, T* loss) {
  using BlockReduce = cub::BlockReduce<double, kThreads>;
  __shared__ typename BlockReduce::TempStorage tmp;
  double l = 0, w = 0;
  for (int64_t q = threadIdx.x; q < points; q += kThreads) {
    l += partial[q];
    w += partial[points + q];
  }
  l = BlockReduce(tmp).Sum(l);
  __syncthreads();  // tmp is reused
  w = BlockReduce(tmp).Sum(w);
  if (threadIdx.x == 0) loss[0] = cvt<T>(static_cast<Calc<T>>(mean ? l / w : l));
}

}  // namespace

cudaError_t launch_loss(int x_type, int label_type, const LossMeta& m, const void* x, const void* labels,
                        const void* weights, void* loss, void* log_prob, double* partial, int* bad,
                        cudaStream_t stream) {
  const int64_t points = m.n * m.d;
  return visit<kEwFloats>(x_type, [&](auto xt) {
    using T = typename decltype(xt)::type;
    return visit<ew_bit(ew_type::kInt32) | ew_bit(ew_type::kInt64)>(label_type, [&](auto lt) {
      using L = typename decltype(lt)::type;
      const LossArgs<T, L> a{m,
                             static_cast<const T*>(x),
                             static_cast<const L*>(labels),
                             static_cast<const T*>(weights),
                             static_cast<T*>(loss),
                             static_cast<T*>(log_prob),
                             partial,
                             bad};
      if (points > 0) {
        if (m.softmax && m.d == 1 && m.c > 32) {
          if (m.c <= 1024)  // short rows waste most of a large block
            loss_rows_kernel<T, L, 64><<<reduce_dev::blocks_for(m.n, 1), 64, 0, stream>>>(a);
          else
            loss_rows_kernel<T, L, 256><<<reduce_dev::blocks_for(m.n, 1), 256, 0, stream>>>(a);
        } else {
          loss_points_kernel<T, L><<<grid_for(points), kBlock, 0, stream>>>(a);
        }
      }
      if (!m.per_point) loss_total_kernel<T, 256><<<1, 256, 0, stream>>>(partial, points, m.mean, a.loss);
      return cudaGetLastError();
    });
  });
}

}  // namespace sy::cuda

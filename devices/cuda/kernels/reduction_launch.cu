// CUDA Reduce* and ArgMax/ArgMin. Each op mirrors the CPU kernel's
// accumulator (float for float, float16 and bfloat16, double for double,
// int64 for integers) and finishing step, so both backends agree up to
// summation order.
#include <cub/cub.cuh>
#include <cuda/std/limits>
#include <cuda/std/type_traits>

#include "devices/cuda/kernels/elementwise_device.cuh"
#include "devices/cuda/kernels/reduction_device.cuh"
#include "devices/cuda/kernels/reduction_launch.h"

namespace sy::cuda {
namespace {

using namespace reduce_dev;

template <typename T>
struct Traits {
  using Acc = T;   // accumulator of sums and products
  using Math = T;  // type of sqrt/log/exp
  using Cmp = T;   // type Max, Min and ArgMax/ArgMin compare in
};
template <>
struct Traits<int32_t> {
  using Acc = int64_t;
  using Math = double;
  using Cmp = int32_t;
};
template <>
struct Traits<int64_t> {
  using Acc = int64_t;
  using Math = double;
  using Cmp = int64_t;
};
// The 16-bit floats compute in float; only the result is rounded.
struct HalfTraits {
  using Acc = float;
  using Math = float;
  using Cmp = float;
};
template <>
struct Traits<__half> : HalfTraits {};
template <>
struct Traits<__nv_bfloat16> : HalfTraits {};

// An element read into a wider type, and a result rounded to the element
// type: plain casts but for the 16-bit floats.
template <typename A, typename T>
__device__ __forceinline__ A widen(T x) {
  if constexpr (ew::kIsHalf<T>) {
    return static_cast<A>(ew::half_to_float(x));
  } else {
    return static_cast<A>(x);
  }
}
template <typename T, typename A>
__device__ __forceinline__ T narrow(A a) {
  if constexpr (ew::kIsHalf<T>) {
    return ew::float_to_half<T>(static_cast<float>(a));
  } else {
    return static_cast<T>(a);
  }
}

// Integer accumulators wrap like the CPU's in practice, without signed
// overflow being undefined behaviour.
template <typename A>
__device__ __forceinline__ A add_wrap(A a, A b) {
  if constexpr (::cuda::std::is_integral_v<A>) {
    using U = ::cuda::std::make_unsigned_t<A>;
    return static_cast<A>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <typename A>
__device__ __forceinline__ A mul_wrap(A a, A b) {
  if constexpr (::cuda::std::is_integral_v<A>) {
    using U = ::cuda::std::make_unsigned_t<A>;
    return static_cast<A>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

template <typename V>
__device__ __forceinline__ bool is_nan(V v) {
  if constexpr (::cuda::std::is_floating_point_v<V>) {
    return v != v;
  } else {
    return false;
  }
}

// ------------------------------------------------------------------ ops
// Each op: init() (identity), lift(x) (one element), combine(a, b)
// (associative and commutative), finish(a, n) (n = reduced element count).

template <typename T>
struct SumOp {
  using Acc = typename Traits<T>::Acc;
  __device__ static Acc init() { return Acc(0); }
  __device__ static Acc lift(T x) { return widen<Acc>(x); }
  __device__ static Acc combine(Acc a, Acc b) { return add_wrap(a, b); }
  __device__ static T finish(Acc a, int64_t) { return narrow<T>(a); }
};
template <typename T>
struct SumSquareOp : SumOp<T> {
  using Acc = typename Traits<T>::Acc;
  __device__ static Acc lift(T x) {
    Acc v = widen<Acc>(x);
    return mul_wrap(v, v);
  }
};
template <typename T>
struct L1Op : SumOp<T> {
  using Acc = typename Traits<T>::Acc;
  __device__ static Acc lift(T x) {
    Acc v = widen<Acc>(x);
    return v < Acc(0) ? mul_wrap(v, Acc(-1)) : v;
  }
};
template <typename T>
struct L2Op : SumSquareOp<T> {
  using Acc = typename Traits<T>::Acc;
  using Math = typename Traits<T>::Math;
  __device__ static T finish(Acc a, int64_t) { return narrow<T>(dev_sqrt(static_cast<Math>(a))); }
};
template <typename T>
struct LogSumOp : SumOp<T> {
  using Acc = typename Traits<T>::Acc;
  using Math = typename Traits<T>::Math;
  __device__ static T finish(Acc a, int64_t) { return narrow<T>(dev_log(static_cast<Math>(a))); }
};
template <typename T>
struct MeanOp : SumOp<T> {
  using Acc = typename Traits<T>::Acc;
  __device__ static T finish(Acc a, int64_t n) {
    if constexpr (::cuda::std::is_floating_point_v<Acc>) {
      return narrow<T>(a / static_cast<Acc>(n));  // empty set: 0/0 = NaN, as on the CPU
    } else {
      return n == 0 ? T(0) : static_cast<T>(a / static_cast<Acc>(n));
    }
  }
};
template <typename T>
struct ProdOp : SumOp<T> {
  using Acc = typename Traits<T>::Acc;
  __device__ static Acc init() { return Acc(1); }
  __device__ static Acc combine(Acc a, Acc b) { return mul_wrap(a, b); }
};
// Max/Min propagate NaN: once either side is NaN the result is NaN.
template <typename T>
struct MaxOp {
  using Acc = typename Traits<T>::Cmp;
  __device__ static Acc init() {
    if constexpr (::cuda::std::is_floating_point_v<Acc>) {
      return -::cuda::std::numeric_limits<Acc>::infinity();
    } else {
      return ::cuda::std::numeric_limits<Acc>::lowest();
    }
  }
  __device__ static Acc lift(T x) { return widen<Acc>(x); }
  __device__ static Acc combine(Acc a, Acc b) { return (b > a || is_nan(b)) ? (is_nan(a) ? a : b) : a; }
  __device__ static T finish(Acc a, int64_t) { return narrow<T>(a); }
};
template <typename T>
struct MinOp {
  using Acc = typename Traits<T>::Cmp;
  __device__ static Acc init() {
    if constexpr (::cuda::std::is_floating_point_v<Acc>) {
      return ::cuda::std::numeric_limits<Acc>::infinity();
    } else {
      return ::cuda::std::numeric_limits<Acc>::max();
    }
  }
  __device__ static Acc lift(T x) { return widen<Acc>(x); }
  __device__ static Acc combine(Acc a, Acc b) { return (b < a || is_nan(b)) ? (is_nan(a) ? a : b) : a; }
  __device__ static T finish(Acc a, int64_t) { return narrow<T>(a); }
};
// Running (max, sum of exp(x - max)): no overflow, and partial results
// combine in any order.
template <typename T>
struct LogSumExpOp {
  using C = typename Traits<T>::Math;
  struct Acc {
    C m;
    C s;
  };
  __device__ static Acc init() { return {-::cuda::std::numeric_limits<C>::infinity(), C(0)}; }
  __device__ static Acc lift(T x) { return {widen<C>(x), C(1)}; }
  __device__ static Acc combine(Acc a, Acc b) {
    if (b.s == C(0)) return a;
    if (a.s == C(0)) return b;
    // Equal maxima add directly: exp(m - m) would be NaN for infinite m.
    if (b.m == a.m) return {a.m, a.s + b.s};
    if (b.m > a.m) return {b.m, a.s * dev_exp(a.m - b.m) + b.s};
    return {a.m, a.s + b.s * dev_exp(b.m - a.m)};
  }
  __device__ static T finish(Acc a, int64_t) {
    if (a.s == C(0)) return narrow<T>(-::cuda::std::numeric_limits<C>::infinity());
    return narrow<T>(a.m + dev_log(a.s));
  }
};

template <typename Op>
struct Combine {
  template <typename A>
  __device__ __forceinline__ A operator()(const A& a, const A& b) const {
    return Op::combine(a, b);
  }
};

// ------------------------------------------------------------ kernels

template <typename Op, typename T>
__global__ void reduce_thread_kernel(const T* __restrict__ x, T* __restrict__ y, ReduceGroups g) {
  for (int64_t o = global_thread(); o < g.out_numel; o += grid_threads()) {
    const int64_t base = offset_of(o, g.num_kept, g.kept_size, g.kept_stride);
    auto a = Op::init();
    for (int64_t r = 0; r < g.red_numel; ++r)
      a = Op::combine(a, Op::lift(x[base + offset_of(r, g.num_red, g.red_size, g.red_stride)]));
    y[o] = Op::finish(a, g.red_numel);
  }
}

// One block per (output, split); with one split the block writes the
// result, otherwise its partial accumulator.
template <typename Op, typename T>
__global__ void __launch_bounds__(kReduceBlock)
    reduce_block_kernel(const T* __restrict__ x, T* __restrict__ y, typename Op::Acc* __restrict__ partial,
                        ReduceGroups g) {
  using Acc = typename Op::Acc;
  using BlockReduce = cub::BlockReduce<Acc, kReduceBlock>;
  __shared__ typename BlockReduce::TempStorage tmp;
  const int64_t total = g.out_numel * g.splits;
  for (int64_t b = blockIdx.x; b < total; b += gridDim.x) {
    const int64_t o = b / g.splits, s = b % g.splits;
    const int64_t base = offset_of(o, g.num_kept, g.kept_size, g.kept_stride);
    const int64_t begin = s * g.chunk;
    const int64_t end = begin + g.chunk < g.red_numel ? begin + g.chunk : g.red_numel;
    Acc a = Op::init();
    for (int64_t r = begin + threadIdx.x; r < end; r += kReduceBlock)
      a = Op::combine(a, Op::lift(x[base + offset_of(r, g.num_red, g.red_size, g.red_stride)]));
    Acc total_acc = BlockReduce(tmp).Reduce(a, Combine<Op>());
    if (threadIdx.x == 0) {
      if (g.splits == 1) y[o] = Op::finish(total_acc, g.red_numel);
      else partial[b] = total_acc;
    }
    __syncthreads();  // tmp is reused by the next iteration
  }
}

template <typename Op, typename T>
__global__ void reduce_combine_kernel(const typename Op::Acc* __restrict__ partial, T* __restrict__ y,
                                      ReduceGroups g) {
  for (int64_t o = global_thread(); o < g.out_numel; o += grid_threads()) {
    auto a = Op::init();
    for (int64_t s = 0; s < g.splits; ++s) a = Op::combine(a, partial[o * g.splits + s]);
    y[o] = Op::finish(a, g.red_numel);
  }
}

template <typename Op, typename T>
cudaError_t run_reduce(const T* x, T* y, const ReduceGroups& g, void* workspace, cudaStream_t stream) {
  using Acc = typename Op::Acc;
  static_assert(sizeof(Acc) <= kReducePartialBytes, "partials must fit the workspace");
  constexpr int kThreads = 256;
  if (g.thread_per_output) {
    reduce_thread_kernel<Op, T><<<blocks_for(g.out_numel, kThreads), kThreads, 0, stream>>>(x, y, g);
    return cudaGetLastError();
  }
  Acc* partial = static_cast<Acc*>(workspace);
  if (g.splits > 1 && partial == nullptr) return cudaErrorInvalidValue;
  reduce_block_kernel<Op, T><<<blocks_for(g.out_numel * g.splits, 1), kReduceBlock, 0, stream>>>(x, y, partial, g);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess || g.splits == 1) return e;
  reduce_combine_kernel<Op, T><<<blocks_for(g.out_numel, kThreads), kThreads, 0, stream>>>(partial, y, g);
  return cudaGetLastError();
}

// ------------------------------------------------------------ ArgMax/Min

template <typename T>
struct ArgPair {
  T v;
  int64_t i;  // -1: no element yet
};

// Picks the winner of two candidates the way the CPU's sequential scan
// does: NaN never beats a number, equal values go to the lower index (or the
// higher one with select_last_index). A total order, so it combines in any
// order.
template <typename T>
struct ArgPick {
  bool is_max;
  bool last;
  __device__ __forceinline__ ArgPair<T> operator()(const ArgPair<T>& a, const ArgPair<T>& b) const {
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    const bool an = is_nan(a.v), bn = is_nan(b.v);
    if (an || bn) {
      if (an && bn) return a.i < b.i ? a : b;
      return an ? b : a;
    }
    if (a.v == b.v) return (last ? a.i > b.i : a.i < b.i) ? a : b;
    return (is_max ? a.v > b.v : a.v < b.v) ? a : b;
  }
};

// The CPU starts from element 0, which a later value only replaces when it
// compares better; so a NaN first element wins outright.
template <typename T, typename V>
__device__ __forceinline__ int64_t arg_result(const T* first, const ArgPair<V>& best) {
  return (best.i < 0 || is_nan(widen<V>(*first))) ? 0 : best.i;
}

template <typename T>
__global__ void arg_thread_kernel(const T* __restrict__ x, int64_t* __restrict__ y, ArgMeta m) {
  using V = typename Traits<T>::Cmp;
  const ArgPick<V> pick{m.is_max, m.select_last};
  const int64_t n = m.outer * m.inner;
  for (int64_t o = global_thread(); o < n; o += grid_threads()) {
    const T* p = x + (o / m.inner) * m.d * m.inner + o % m.inner;
    ArgPair<V> best{V(0), -1};
    for (int64_t k = 0; k < m.d; ++k) best = pick(best, ArgPair<V>{widen<V>(p[k * m.inner]), k});
    y[o] = arg_result(p, best);
  }
}

template <typename T>
__global__ void __launch_bounds__(kReduceBlock) arg_block_kernel(const T* __restrict__ x, int64_t* __restrict__ y,
                                                                 ArgMeta m) {
  using V = typename Traits<T>::Cmp;
  using BlockReduce = cub::BlockReduce<ArgPair<V>, kReduceBlock>;
  __shared__ typename BlockReduce::TempStorage tmp;
  const ArgPick<V> pick{m.is_max, m.select_last};
  const int64_t n = m.outer * m.inner;
  for (int64_t o = blockIdx.x; o < n; o += gridDim.x) {
    const T* p = x + (o / m.inner) * m.d * m.inner + o % m.inner;
    ArgPair<V> best{V(0), -1};
    for (int64_t k = threadIdx.x; k < m.d; k += kReduceBlock)
      best = pick(best, ArgPair<V>{widen<V>(p[k * m.inner]), k});
    ArgPair<V> r = BlockReduce(tmp).Reduce(best, pick);
    if (threadIdx.x == 0) y[o] = arg_result(p, r);
    __syncthreads();
  }
}

}  // namespace

template <typename T>
cudaError_t launch_reduce(ReduceOp op, const T* x, T* y, const ReduceGroups& g, void* workspace,
                          cudaStream_t stream) {
  if (g.out_numel <= 0) return cudaSuccess;
  switch (op) {
    case ReduceOp::kSum: return run_reduce<SumOp<T>>(x, y, g, workspace, stream);
    case ReduceOp::kMean: return run_reduce<MeanOp<T>>(x, y, g, workspace, stream);
    case ReduceOp::kMax: return run_reduce<MaxOp<T>>(x, y, g, workspace, stream);
    case ReduceOp::kMin: return run_reduce<MinOp<T>>(x, y, g, workspace, stream);
    case ReduceOp::kProd: return run_reduce<ProdOp<T>>(x, y, g, workspace, stream);
    case ReduceOp::kL1: return run_reduce<L1Op<T>>(x, y, g, workspace, stream);
    case ReduceOp::kL2: return run_reduce<L2Op<T>>(x, y, g, workspace, stream);
    case ReduceOp::kLogSum: return run_reduce<LogSumOp<T>>(x, y, g, workspace, stream);
    case ReduceOp::kLogSumExp: return run_reduce<LogSumExpOp<T>>(x, y, g, workspace, stream);
    case ReduceOp::kSumSquare: return run_reduce<SumSquareOp<T>>(x, y, g, workspace, stream);
  }
  return cudaErrorInvalidValue;
}

template <typename T>
cudaError_t launch_arg_reduce(const T* x, int64_t* y, const ArgMeta& m, cudaStream_t stream) {
  const int64_t n = m.outer * m.inner;
  if (n <= 0) return cudaSuccess;
  if (m.d <= 32 || (m.inner > 1 && n >= 8192)) {
    arg_thread_kernel<T><<<blocks_for(n, 256), 256, 0, stream>>>(x, y, m);
  } else {
    arg_block_kernel<T><<<blocks_for(n, 1), kReduceBlock, 0, stream>>>(x, y, m);
  }
  return cudaGetLastError();
}

#define SY_INSTANTIATE_REDUCE(T)                                                                          \
  template cudaError_t launch_reduce<T>(ReduceOp, const T*, T*, const ReduceGroups&, void*, cudaStream_t); \
  template cudaError_t launch_arg_reduce<T>(const T*, int64_t*, const ArgMeta&, cudaStream_t);
SY_INSTANTIATE_REDUCE(float)
SY_INSTANTIATE_REDUCE(double)
SY_INSTANTIATE_REDUCE(int32_t)
SY_INSTANTIATE_REDUCE(int64_t)
#undef SY_INSTANTIATE_REDUCE

cudaError_t launch_reduce_16(int dtype, ReduceOp op, const void* x, void* y, const ReduceGroups& g, void* workspace,
                             cudaStream_t stream) {
  return ew::visit<kEwHalfFloats>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return launch_reduce<T>(op, static_cast<const T*>(x), static_cast<T*>(y), g, workspace, stream);
  });
}

cudaError_t launch_arg_reduce_16(int dtype, const void* x, int64_t* y, const ArgMeta& m, cudaStream_t stream) {
  return ew::visit<kEwHalfFloats>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return launch_arg_reduce<T>(static_cast<const T*>(x), y, m, stream);
  });
}

}  // namespace sy::cuda

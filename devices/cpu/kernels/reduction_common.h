// Shared helpers for the CPU reduction family (Reduce*, ArgMax/Min, softmax,
// normalisations, losses, CumSum, TopK, Einsum, Det). Internal to
// devices/cpu/kernels/; nothing outside the family includes it.
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cmath>
#include <cstdint>
#include <climits>
#include <type_traits>
#include <utility>
#include <vector>

#include "devices/kernel.h"
#include "devices/kernel_registry.h"
#include "ir/data_type.h"
#include "ir/dims.h"
#include "ir/status.h"

namespace sy {

// Sub-family registration, called from register_cpu_reduction_kernels.
void register_cpu_softmax_kernels(KernelRegistry& r);  // Softmax, LogSoftmax, Hardmax, CumSum, TopK
void register_cpu_norm_kernels(KernelRegistry& r);     // LayerNorm, BatchNorm, InstanceNorm, LRN, MVN, LpNorm
void register_cpu_loss_kernels(KernelRegistry& r);     // SoftmaxCrossEntropyLoss, NegativeLogLikelihoodLoss
void register_cpu_einsum_kernels(KernelRegistry& r);   // Einsum, Det

namespace reduce_detail {

// Below this many scalar operations a kernel runs on the calling thread:
// spawning TBB tasks costs more than a small reduction.
constexpr int64_t kParallelWork = int64_t{1} << 16;

template <typename T>
constexpr bool kIsHalf = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;
template <typename T>
constexpr bool kIsFloatLike = std::is_floating_point_v<T> || kIsHalf<T>;

// Arithmetic type used to compute on T: halves compute in float.
template <typename T>
using ComputeT = std::conditional_t<kIsHalf<T>, float, T>;

template <typename T>
inline ComputeT<T> load(T v) {
  if constexpr (kIsHalf<T>)
    return static_cast<float>(v);
  else
    return v;
}
template <typename T, typename A>
inline T store(A v) {
  if constexpr (kIsHalf<T>)
    return T(static_cast<float>(v));
  else
    return static_cast<T>(v);
}

// A CPU kernel definition for the default ONNX domain.
inline KernelDef cpu_def(const char* op, int since, int end, KernelFactory factory, std::vector<DataType> types = {},
                         uint64_t host_inputs = 0) {
  KernelDef d;
  d.op = op;
  d.since_version = since;
  d.end_version = end;
  d.factory = factory;
  d.types = std::move(types);
  d.host_inputs = host_inputs;
  return d;
}

inline const std::vector<DataType>& float_types() {
  static const std::vector<DataType> k{DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kBFloat16};
  return k;
}

// Calls f(T{}) for the floating types; false for anything else.
template <typename F>
bool visit_float(DataType t, F&& f) {
  switch (t) {
    case DataType::kFloat: f(float{}); return true;
    case DataType::kDouble: f(double{}); return true;
    case DataType::kFloat16: f(Float16{}); return true;
    case DataType::kBFloat16: f(BFloat16{}); return true;
    default: return false;
  }
}

// Runs body(begin, end) over [0, n), in parallel only when n * cost_per_item
// is large enough to pay for it. Chunks are disjoint, so bodies that write
// only their own rows need no locking.
template <typename F>
void parallel_rows(int64_t n, int64_t cost_per_item, F&& body) {
  if (n <= 0) return;
  int64_t cost = cost_per_item < 1 ? 1 : cost_per_item;
  if (n < 2 || n * cost < kParallelWork) {
    body(int64_t{0}, n);
    return;
  }
  int64_t grain = kParallelWork / cost;
  if (grain < 1) grain = 1;
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, n, static_cast<size_t>(grain)),
                    [&](const tbb::blocked_range<int64_t>& r) { body(r.begin(), r.end()); });
}

// Normalises an axis in [-rank, rank) (or [-rank-1, rank] when
// `allow_end`) or returns InvalidArgument naming the node.
inline StatusOr<int64_t> normalize_axis(int64_t axis, int64_t rank, const Node& node, bool allow_end = false) {
  int64_t hi = allow_end ? rank + 1 : rank;
  if (axis < -hi || axis >= hi)
    return InvalidArgument(node.describe(), ": axis ", axis, " is out of range for rank ", rank);
  return axis < 0 ? axis + hi : axis;
}

inline int64_t prod(const Dims& d, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= d[i];
  return p;
}

// Output i, or nullptr when the model omits it. (KernelContext hands out a
// single shared scratch tensor for omitted outputs, so a kernel with several
// optional outputs must not write through two of them.)
inline StatusOr<Tensor*> maybe_output(KernelContext& ctx, size_t i, DataType dtype, const Dims& dims) {
  if (!ctx.output_wanted(i)) return static_cast<Tensor*>(nullptr);
  return ctx.allocate_output(i, dtype, dims);
}

// Reads a small float tensor (scale, bias, weights...) as C values.
template <typename C>
inline std::vector<C> read_floats(const Tensor& t) {
  std::vector<C> out(static_cast<size_t>(t.numel()));
  visit_float(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = t.data<T>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<C>(load(p[i]));
  });
  return out;
}

inline Status check_float_input(const Node& node, const Tensor& t, const char* what) {
  if (!t.defined()) return InvalidArgument(node.describe(), ": missing input ", what);
  if (!dtype_is_float(t.dtype()))
    return InvalidArgument(node.describe(), ": input ", what, " must be a float tensor, got ", t.describe());
  return OkStatus();
}

}  // namespace reduce_detail
}  // namespace sy

// Shared helpers for the reduction family (Reduce*, ArgMax/Min, softmax,
// normalisations, losses, CumSum, TopK, Einsum, Det). Internal to the CPU
// kernels and their CUDA counterparts (devices/cuda/kernels/), which share
// the attribute parsing and output-shape logic so both backends agree.
#pragma once

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "devices/broadcast.h"
#include "devices/cpu/kernels/parallel_ranges.h"
#include "devices/cpu/kernels/wrapping.h"
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

// The sum of term(j) for j in [0, n), in 8 independent chains, summed in
// order at the end, which the compiler vectorises: one chain waits for
// every add (InstanceNormalization over [8, 64, 56, 56] took 4x ONNX
// Runtime's time).
template <typename C, typename Term>
C lane_sum(int64_t n, Term&& term) {
  constexpr int64_t kLanes = 8;
  C lane[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int64_t l = 0; l < kLanes; ++l) lane[l] += term(j + l);
  C s = 0;
  for (C v : lane) s += v;
  for (; j < n; ++j) s += term(j);
  return s;
}

// Mean and population variance of n contiguous values (0 and 0 for none).
template <typename T>
void mean_variance(const T* x, int64_t n, ComputeT<T>* mean, ComputeT<T>* var) {
  using C = ComputeT<T>;
  const C m = n > 0 ? lane_sum<C>(n, [&](int64_t j) { return C(load(x[j])); }) / static_cast<C>(n) : C(0);
  const C q = lane_sum<C>(n, [&](int64_t j) {
    const C d = C(load(x[j])) - m;
    return d * d;
  });
  *mean = m;
  *var = n > 0 ? q / static_cast<C>(n) : C(0);
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
  parallel_for_ranges(n, grain, body);
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

// Det: X [..., M, M] of a float type gives [...]. InvalidArgument otherwise.
inline StatusOr<Dims> det_output_dims(const Node& node, const Tensor& x) {
  RETURN_IF_ERROR(check_float_input(node, x, "X"));
  if (x.rank() < 2 || x.dim(x.rank() - 1) != x.dim(x.rank() - 2))
    return InvalidArgument(node.describe(), ": input must be [..., M, M], got ", x.describe());
  return Dims(std::span<const int64_t>(x.dims().data(), x.rank() - 2));
}

// BatchNormalization: X [N, C, ...] and the four parameters of C float
// values each (any float types). InvalidArgument otherwise.
inline Status check_batch_norm_inputs(const KernelContext& ctx) {
  const Node& node = ctx.node();
  const Tensor& x = ctx.input(0);
  RETURN_IF_ERROR(check_float_input(node, x, "X"));
  if (x.rank() < 2) return InvalidArgument(node.describe(), ": X must have rank >= 2, got ", x.describe());
  const char* names[] = {"X", "scale", "B", "input_mean", "input_var"};
  for (size_t i = 1; i < 5; ++i) {
    RETURN_IF_ERROR(check_float_input(node, ctx.input(i), names[i]));
    if (ctx.input(i).numel() != x.dim(1))
      return InvalidArgument(node.describe(), ": ", names[i], " must have ", x.dim(1), " elements, got ",
                             ctx.input(i).describe());
  }
  return OkStatus();
}

// ------------------------------------------------ Reduce* shape (all backends)

// Opset from which Reduce* axes come from input 1 instead of an attribute.
inline int reduce_axes_input_since(std::string_view op) { return op == "ReduceSum" ? 13 : 18; }

struct ReduceAttrs {
  bool keepdims = true;
  bool noop_with_empty_axes = false;
  bool axes_from_input = false;
  // ReduceL1, L2, LogSum and SumSquare: |x|, x*x or log(x) comes before or
  // after the sum, and still applies when noop_with_empty_axes leaves
  // nothing to sum (the spec says so: ReduceLogSum then gives log(x)).
  bool elementwise_step = false;
  std::vector<int64_t> axes;  // attribute axes (older opsets)

  static ReduceAttrs parse(const Node& node) {
    ReduceAttrs a;
    a.keepdims = node.attr_int("keepdims", 1) != 0;
    a.noop_with_empty_axes = node.attr_int("noop_with_empty_axes", 0) != 0;
    a.axes_from_input = node.opset >= reduce_axes_input_since(node.op_type);
    const std::string& op = node.op_type;
    a.elementwise_step = op == "ReduceL1" || op == "ReduceL2" || op == "ReduceLogSum" || op == "ReduceSumSquare";
    if (!a.axes_from_input) a.axes = node.attr_ints("axes");
    return a;
  }
};

// What a Reduce* node does to its input. `identity`: empty axes with
// noop_with_empty_axes, so the output is the input unchanged. An op with an
// elementwise step gets no axes reduced instead, so that the step applies.
struct ReduceShape {
  bool identity = false;
  std::vector<bool> reduced;  // per input dimension
  Dims out_dims;
};

// Reads the axes (attribute, or host input 1) and computes the output shape.
inline StatusOr<ReduceShape> resolve_reduce_shape(const KernelContext& ctx, const ReduceAttrs& attrs) {
  const Node& node = ctx.node();
  const Tensor& x = ctx.input(0);
  if (!x.defined()) return InvalidArgument(node.describe(), ": missing input data");
  const int64_t rank = static_cast<int64_t>(x.rank());
  std::vector<int64_t> axes = attrs.axes;
  if (attrs.axes_from_input && ctx.has_input(1)) {
    const Tensor& a = ctx.input(1);
    if (!dtype_is_integer(a.dtype()) || a.rank() > 1)
      return InvalidArgument(node.describe(), ": axes must be a 1-D integer tensor, got ", a.describe());
    axes.resize(static_cast<size_t>(a.numel()));
    for (int64_t i = 0; i < a.numel(); ++i) axes[static_cast<size_t>(i)] = a.int_at(i);
  }
  ReduceShape s;
  if (axes.empty() && attrs.noop_with_empty_axes) {
    s.identity = !attrs.elementwise_step;
    s.reduced.assign(static_cast<size_t>(rank), false);
    s.out_dims = x.dims();
    return s;
  }
  s.reduced.assign(static_cast<size_t>(rank), axes.empty());
  for (int64_t a : axes) {
    ASSIGN_OR_RETURN(int64_t ax, normalize_axis(a, rank, node));
    if (s.reduced[static_cast<size_t>(ax)] && !axes.empty())
      return InvalidArgument(node.describe(), ": axis ", a, " is repeated");
    s.reduced[static_cast<size_t>(ax)] = true;
  }
  for (int64_t i = 0; i < rank; ++i) {
    if (!s.reduced[static_cast<size_t>(i)]) s.out_dims.push_back(x.dim(static_cast<size_t>(i)));
    else if (attrs.keepdims) s.out_dims.push_back(1);
  }
  return s;
}

// Merged view of a reduction over an input of some shape: adjacent
// dimensions that are both reduced or both kept form one group, and size-1
// dimensions are dropped, so any axes set becomes an alternation of kept and
// reduced groups.
struct ReducePlan {
  struct Group {
    int64_t size;
    int64_t stride;
  };
  std::vector<Group> kept;     // kept groups, outermost first, without the innermost group
  std::vector<Group> reduced;  // reduced groups, outermost first, without the innermost group
  bool inner_reduced = true;   // innermost group is reduced (else kept)
  int64_t inner = 1;           // size of the innermost group (stride 1)
  int64_t out_numel = 1;
  int64_t red_numel = 1;
};

inline ReducePlan make_reduce_plan(const Dims& dims, const std::vector<bool>& red) {
  std::vector<int64_t> gsize;
  std::vector<bool> gred;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 1) continue;  // size-1 dims do not affect iteration
    if (!gsize.empty() && gred.back() == red[i]) {
      gsize.back() *= dims[i];
    } else {
      gsize.push_back(dims[i]);
      gred.push_back(red[i]);
    }
  }
  if (gsize.empty()) {
    gsize.push_back(1);
    gred.push_back(true);
  }
  ReducePlan p;
  int64_t stride = 1;
  std::vector<int64_t> strides(gsize.size());
  for (size_t i = gsize.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= gsize[i];
  }
  for (size_t i = 0; i < gsize.size(); ++i) {
    (gred[i] ? p.reduced : p.kept).push_back({gsize[i], strides[i]});
    (gred[i] ? p.red_numel : p.out_numel) *= gsize[i];
  }
  p.inner_reduced = gred.back();
  p.inner = gsize.back();
  // The innermost group is handled by the contiguous inner loop.
  (p.inner_reduced ? p.reduced : p.kept).pop_back();
  return p;
}

// ------------------------------------------------ ArgMax/ArgMin (all backends)

struct ArgAttrs {
  bool is_max = true;
  int64_t axis = 0;
  bool keepdims = true;
  bool select_last_index = false;

  static ArgAttrs parse(const Node& node) {
    ArgAttrs a;
    a.is_max = node.op_type == "ArgMax";
    a.axis = node.attr_int("axis", 0);
    a.keepdims = node.attr_int("keepdims", 1) != 0;
    a.select_last_index = node.attr_int("select_last_index", 0) != 0;
    return a;
  }
};

// The input viewed as [outer, d, inner] around one axis, and the output dims.
struct AxisView {
  int64_t outer = 1;
  int64_t d = 1;
  int64_t inner = 1;
  Dims out_dims;
};

// ArgMax/ArgMin: a scalar input is treated as [1]; an empty axis is an error
// unless the output is empty anyway.
inline StatusOr<AxisView> resolve_arg_shape(const Node& node, const Tensor& x, const ArgAttrs& attrs) {
  if (!x.defined()) return InvalidArgument(node.describe(), ": missing input data");
  const int64_t rank = static_cast<int64_t>(x.rank());
  ASSIGN_OR_RETURN(int64_t axis, normalize_axis(attrs.axis, std::max<int64_t>(rank, 1), node));
  Dims xd = x.dims();
  if (rank == 0) xd.push_back(1);
  const auto a = static_cast<size_t>(axis);
  AxisView v;
  v.d = xd[a];
  v.outer = prod(xd, 0, a);
  v.inner = prod(xd, a + 1, xd.size());
  if (v.d == 0 && prod(xd, 0, xd.size()) == 0 && !(v.outer == 0 || v.inner == 0))
    return InvalidArgument(node.describe(), ": cannot take ", node.op_type, " over an empty axis");
  v.out_dims = xd;
  if (attrs.keepdims) v.out_dims[a] = 1;
  else v.out_dims.erase(a);
  if (rank == 0) v.out_dims = Dims();
  return v;
}

// ------------------------------------------------------ TopK (all backends)

struct TopKAttrs {
  bool k_from_input = true;
  int64_t k = -1;  // attribute k (opset < 10)
  int64_t axis = -1;
  bool largest = true;

  static StatusOr<TopKAttrs> parse(const Node& node) {
    TopKAttrs a;
    a.k_from_input = node.opset >= 10;
    a.k = node.attr_int("k", -1);
    if (!a.k_from_input && !node.has_attr("k")) return InvalidArgument(node.describe(), ": missing attribute k");
    a.axis = node.attr_int("axis", -1);
    a.largest = node.attr_int("largest", 1) != 0;
    return a;
  }
};

struct TopKShape {
  AxisView view;  // out_dims: the input dims with the axis set to k
  int64_t k = 0;
};

// Reads K (attribute, or host input 1) and checks it against the axis.
inline StatusOr<TopKShape> resolve_topk_shape(const KernelContext& ctx, const TopKAttrs& attrs) {
  const Node& node = ctx.node();
  const Tensor& x = ctx.input(0);
  if (!x.defined()) return InvalidArgument(node.describe(), ": missing input X");
  int64_t k = attrs.k;
  if (attrs.k_from_input) {
    const Tensor& kt = ctx.input(1);
    if (!kt.defined() || !dtype_is_integer(kt.dtype()) || kt.numel() != 1)
      return InvalidArgument(node.describe(), ": K must be a single integer, got ",
                             kt.defined() ? kt.describe() : std::string("nothing"));
    k = kt.int_at(0);
  }
  const int64_t rank = static_cast<int64_t>(x.rank());
  if (rank == 0) return InvalidArgument(node.describe(), ": input must have rank >= 1");
  ASSIGN_OR_RETURN(int64_t axis, normalize_axis(attrs.axis, rank, node));
  const auto a = static_cast<size_t>(axis);
  TopKShape s;
  s.view.d = x.dim(a);
  if (k < 0 || k > s.view.d)
    return InvalidArgument(node.describe(), ": K = ", k, " is out of range for axis of size ", s.view.d);
  s.k = k;
  s.view.outer = prod(x.dims(), 0, a);
  s.view.inner = prod(x.dims(), a + 1, x.rank());
  s.view.out_dims = x.dims();
  s.view.out_dims[a] = k;
  return s;
}

// ---------------------------------------------------- CumSum (all backends)

// Reads the axis (host input 1) and views the input around it.
inline StatusOr<AxisView> resolve_cumsum_shape(const KernelContext& ctx) {
  const Node& node = ctx.node();
  const Tensor& x = ctx.input(0);
  const Tensor& at = ctx.input(1);
  if (!x.defined() || !at.defined()) return InvalidArgument(node.describe(), ": needs inputs x and axis");
  if (!dtype_is_integer(at.dtype()) || at.numel() != 1 || at.rank() > 1)
    return InvalidArgument(node.describe(), ": axis must be an integer scalar, got ", at.describe());
  const int64_t rank = static_cast<int64_t>(x.rank());
  if (rank == 0) return InvalidArgument(node.describe(), ": input must have rank >= 1");
  ASSIGN_OR_RETURN(int64_t axis, normalize_axis(at.int_at(0), rank, node));
  const auto a = static_cast<size_t>(axis);
  AxisView v;
  v.outer = prod(x.dims(), 0, a);
  v.d = x.dim(a);
  v.inner = prod(x.dims(), a + 1, x.rank());
  v.out_dims = x.dims();
  return v;
}

// ------------------------------------------ LayerNormalization (all backends)

struct LayerNormAttrs {
  int64_t axis = -1;
  float epsilon = 1e-5f;
  DataType stash = DataType::kFloat;  // type of the Mean and InvStdDev outputs

  static StatusOr<LayerNormAttrs> parse(const Node& node) {
    LayerNormAttrs a;
    a.axis = node.attr_int("axis", -1);
    a.epsilon = node.attr_float("epsilon", 1e-5f);
    int64_t stash = node.attr_int("stash_type", 1);
    if (stash != 1 && stash != 16 && stash != 11)
      return InvalidArgument(node.describe(), ": unsupported stash_type ", stash);
    a.stash = static_cast<DataType>(stash);
    return a;
  }
};

struct LayerNormShape {
  int64_t rows = 1;  // product of the dims before axis
  int64_t cols = 1;  // product of the normalised dims
  Dims norm_dims;    // the normalised dims (axis..rank)
  Dims stat_dims;    // Mean / InvStdDev: the input dims with 1 from axis on
};

inline StatusOr<LayerNormShape> resolve_layer_norm_shape(const Node& node, const Tensor& x,
                                                         const LayerNormAttrs& attrs) {
  const int64_t rank = static_cast<int64_t>(x.rank());
  if (rank == 0) return InvalidArgument(node.describe(), ": X must have rank >= 1");
  ASSIGN_OR_RETURN(int64_t axis, normalize_axis(attrs.axis, rank, node));
  const auto a = static_cast<size_t>(axis);
  LayerNormShape s;
  s.rows = prod(x.dims(), 0, a);
  s.cols = prod(x.dims(), a, x.rank());
  s.norm_dims = Dims(std::span<const int64_t>(x.dims().data() + a, x.rank() - a));
  s.stat_dims = x.dims();
  for (size_t i = a; i < s.stat_dims.size(); ++i) s.stat_dims[i] = 1;
  return s;
}

// ------------------------ Instance- and GroupNormalization (all backends)

// InstanceNormalization is GroupNormalization with one channel a group.
// GroupNormalization-18 has a scale and bias a group; from opset 21, a
// channel.
struct GroupedNormAttrs {
  float epsilon = 1e-5f;
  int64_t groups = 0;  // 0: a group per channel (InstanceNormalization)
  bool params_per_group = false;

  static StatusOr<GroupedNormAttrs> parse(const Node& node) {
    GroupedNormAttrs a;
    a.epsilon = node.attr_float("epsilon", 1e-5f);
    if (node.op_type == "GroupNormalization") {
      if (!node.has_attr("num_groups")) return InvalidArgument(node.describe(), ": attribute num_groups is required");
      a.groups = node.attr_int("num_groups", 0);
      if (a.groups < 1) return InvalidArgument(node.describe(), ": num_groups must be positive, got ", a.groups);
      a.params_per_group = node.opset < 21;
    }
    return a;
  }
};

struct GroupedNormShape {
  int64_t images = 1;     // N
  int64_t groups = 1;     // groups an image
  int64_t per_group = 1;  // channels a group
  int64_t spatial = 1;    // elements a channel
};

// Checks X's rank and the channel split, and that scale and bias have one
// element a group or a channel as the opset asks.
inline StatusOr<GroupedNormShape> resolve_grouped_norm_shape(const Node& node, const Tensor& x, const Tensor& scale,
                                                             const Tensor& bias, const GroupedNormAttrs& attrs) {
  if (x.rank() < 2) return InvalidArgument(node.describe(), ": input must have rank >= 2, got ", x.describe());
  const int64_t c = x.dim(1);
  GroupedNormShape s;
  s.images = x.dim(0);
  s.spatial = prod(x.dims(), 2, x.rank());
  if (attrs.groups == 0) {
    s.groups = c;  // also when there are no channels, which a division would trip on
  } else {
    if (c % attrs.groups != 0)
      return InvalidArgument(node.describe(), ": ", c, " channels do not divide into ", attrs.groups, " groups");
    s.groups = attrs.groups;
    s.per_group = c / attrs.groups;
  }
  const int64_t params = attrs.params_per_group ? s.groups : c;
  if (scale.numel() != params || bias.numel() != params)
    return InvalidArgument(node.describe(), ": scale and bias must have ", params, " elements (one a ",
                           attrs.params_per_group ? "group" : "channel", "), got ", scale.describe(), " and ",
                           bias.describe());
  return s;
}

// Strides that map each element of `target` (row-major) to an element of a
// parameter of shape `param` that is unidirectionally broadcastable to it
// (Scale, B of LayerNormalization): 0 on broadcast dimensions. Leading ones
// beyond the target rank are ignored.
inline StatusOr<Dims> param_broadcast_strides(const Node& node, const Dims& param, const Dims& target,
                                              const char* what) {
  Dims pd = param;
  while (pd.size() > target.size() && pd[0] == 1) pd.erase(0);
  bool ok = pd.size() <= target.size();
  for (size_t i = 0; ok && i < pd.size(); ++i) {
    int64_t td = target[target.size() - pd.size() + i];
    ok = pd[i] == td || pd[i] == 1;
  }
  if (!ok)
    return InvalidArgument(node.describe(), ": ", what, " of shape ", param.to_string(), " does not broadcast to ",
                           target.to_string());
  return broadcast_strides(pd, target);
}

}  // namespace reduce_detail
}  // namespace sy

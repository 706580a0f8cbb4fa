// Shared machinery of the CPU elementwise kernel family: type masks, element
// conversions, and the ONE broadcasting loop every elementwise op uses.
//
// The broadcasting loop collapses the output shape into as few dimensions as
// possible (dropping size-1 dims and merging dims that are contiguous for
// every operand), so the common cases (same shape, scalar operand) become a
// single flat inner loop. Large outputs are split across oneTBB workers; small
// ones run inline with no allocation, locks or type-erased callables.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "devices/broadcast.h"
#include "devices/cpu/cpu_kernels.h"
#include "devices/cpu/kernels/parallel_ranges.h"
#include "devices/cpu/kernels/target_clones.h"
#include "devices/cpu/kernels/wrapping.h"
#include "devices/host_device.h"
#include "devices/kernel.h"

namespace sy::elementwise {

// ---- type masks ---------------------------------------------------------------

constexpr uint32_t type_bit(DataType t) { return 1u << static_cast<int>(t); }
constexpr uint32_t kFloatTypes = type_bit(DataType::kFloat) | type_bit(DataType::kDouble) |
                                 type_bit(DataType::kFloat16) | type_bit(DataType::kBFloat16);
constexpr uint32_t kSignedInts = type_bit(DataType::kInt8) | type_bit(DataType::kInt16) |
                                 type_bit(DataType::kInt32) | type_bit(DataType::kInt64);
constexpr uint32_t kUnsignedInts = type_bit(DataType::kUInt8) | type_bit(DataType::kUInt16) |
                                   type_bit(DataType::kUInt32) | type_bit(DataType::kUInt64);
constexpr uint32_t kInts = kSignedInts | kUnsignedInts;
constexpr uint32_t kNumeric = kFloatTypes | kInts;
constexpr uint32_t kBoolType = type_bit(DataType::kBool);
constexpr uint32_t kNumericBool = kNumeric | kBoolType;
constexpr uint32_t kStringType = type_bit(DataType::kString);

template <typename T>
constexpr bool in_mask(uint32_t mask) {
  return (mask & type_bit(DataTypeOf<T>::value)) != 0;
}
inline bool dtype_in_mask(DataType t, uint32_t mask) { return (mask & type_bit(t)) != 0; }
// The DataTypes in `mask`, for KernelDef::types.
std::vector<DataType> types_of(uint32_t mask);
// "float32, float64, ..." for error messages.
std::string mask_names(uint32_t mask);

template <typename T>
constexpr bool is_half_v = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

// Arithmetic is done in float for the 16-bit float types, natively otherwise.
template <typename T>
using Compute = std::conditional_t<is_half_v<T>, float, T>;

// Element conversion with defined results where a plain static_cast would be
// undefined behaviour (NaN or out-of-range float to integer).
template <typename To, typename From>
inline To cvt(const From& v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (is_half_v<From>) {
    return cvt<To>(static_cast<float>(v));
  } else if constexpr (is_half_v<To>) {
    if constexpr (std::is_same_v<From, bool>)
      return To(v ? 1.0f : 0.0f);
    else if constexpr (std::is_same_v<From, double>)
      return To(float_round_to_odd(v));
    else
      return To(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    if constexpr (std::is_same_v<To, uint64_t>) {
      if (v >= From(0) && v < From(18446744073709551616.0)) return static_cast<uint64_t>(v);
    }
    // Through int64 then truncate: the wrap-around numpy shows on x86. NaN
    // gives 0, values outside int64 its minimum. Selects, not branches, so
    // that a loop of conversions vectorises.
    const bool in_range = v >= From(-9223372036854775808.0) && v < From(9223372036854775808.0);
    const int64_t r = static_cast<int64_t>(in_range ? v : From(0));
    return static_cast<To>(in_range ? r : v != v ? int64_t{0} : std::numeric_limits<int64_t>::min());
  } else {
    return static_cast<To>(v);
  }
}

// ---- parallel split -----------------------------------------------------------

constexpr int64_t kParallelThreshold = int64_t{1} << 16;
constexpr int64_t kParallelGrain = int64_t{1} << 14;

// Calls f(begin, end) over [0, n): inline when small, on oneTBB when large.
template <typename F>
inline void parallel_ranges(int64_t n, const F& f) {
  if (n <= kParallelThreshold) {
    if (n > 0) f(int64_t{0}, n);
    return;
  }
  parallel_for_ranges(n, kParallelGrain, f);
}

// ---- the broadcasting loop ----------------------------------------------------

// N operands broadcast to one output, as collapsed dims + element strides.
template <int N>
struct BroadcastPlan {
  Dims dims;          // collapsed output dims, rank >= 1
  Dims strides[N];    // element stride of operand k per collapsed dim (0 = broadcast)
  int64_t numel = 0;  // output elements

  // `in[k]` must broadcast to `out` (checked by the caller).
  void build(const Dims& out, const std::array<const Dims*, N>& in) {
    numel = out.numel();
    dims.clear();
    for (int k = 0; k < N; ++k) strides[k].clear();
    // Fast path: each operand is either the full output or a single element.
    bool flat = true;
    int64_t flat_stride[N];
    for (int k = 0; k < N; ++k) {
      if (*in[k] == out) {
        flat_stride[k] = 1;
        continue;
      }
      int64_t n = in[k]->numel();
      flat_stride[k] = n == numel ? 1 : 0;
      if (n != numel && n != 1) flat = false;
    }
    if (flat) {
      dims.push_back(numel);
      for (int k = 0; k < N; ++k) strides[k].push_back(flat_stride[k]);
      return;
    }
    Dims full[N];
    for (int k = 0; k < N; ++k) full[k] = broadcast_strides(*in[k], out);
    for (size_t i = 0; i < out.size(); ++i) {
      int64_t d = out[i];
      if (d == 1) continue;
      if (!dims.empty()) {
        size_t last = dims.size() - 1;
        bool merge = true;
        for (int k = 0; k < N; ++k)
          if (strides[k][last] != full[k][i] * d) merge = false;
        if (merge) {
          dims[last] *= d;
          for (int k = 0; k < N; ++k) strides[k][last] = full[k][i];
          continue;
        }
      }
      dims.push_back(d);
      for (int k = 0; k < N; ++k) strides[k].push_back(full[k][i]);
    }
    if (dims.empty()) {
      dims.push_back(1);
      for (int k = 0; k < N; ++k) strides[k].push_back(0);
    }
  }
};

// Runs inner(out_offset, in_offsets[N], len, inner_strides[N]) over output
// elements [begin, end), one call per contiguous run of the innermost dim.
template <int N, typename Inner>
void for_each_run(const BroadcastPlan<N>& p, int64_t begin, int64_t end, const Inner& inner) {
  const size_t r = p.dims.size();
  int64_t st[N];
  int64_t off[N];
  for (int k = 0; k < N; ++k) st[k] = p.strides[k][r - 1];
  if (r == 1) {
    for (int k = 0; k < N; ++k) off[k] = begin * st[k];
    inner(begin, off, end - begin, st);
    return;
  }
  Dims idx = Dims::of_rank(r);
  int64_t rem = begin;
  for (size_t i = r; i-- > 0;) {
    idx[i] = rem % p.dims[i];
    rem /= p.dims[i];
  }
  for (int k = 0; k < N; ++k) {
    off[k] = 0;
    for (size_t i = 0; i < r; ++i) off[k] += idx[i] * p.strides[k][i];
  }
  const int64_t inner_dim = p.dims[r - 1];
  int64_t pos = begin;
  while (pos < end) {
    int64_t len = std::min(inner_dim - idx[r - 1], end - pos);
    inner(pos, off, len, st);
    pos += len;
    idx[r - 1] += len;
    for (int k = 0; k < N; ++k) off[k] += len * st[k];
    for (size_t i = r - 1; i > 0 && idx[i] == p.dims[i]; --i) {
      idx[i] = 0;
      ++idx[i - 1];
      for (int k = 0; k < N; ++k) off[k] += p.strides[k][i - 1] - p.dims[i] * p.strides[k][i];
    }
  }
}

template <int N, typename Inner>
void run_plan(const BroadcastPlan<N>& p, const Inner& inner) {
  parallel_ranges(p.numel, [&](int64_t b, int64_t e) { for_each_run<N>(p, b, e, inner); });
}

// po[i] = f(pa[i * sa], pb[i * sb]) for i in [0, n), with the common
// strides (both 1, or one operand a single value) as their own loops.
// Cloned for x86-64-v3/v4: built for baseline SSE2 the loops ran at a
// quarter of AVX-512's width. The output is a fresh tensor, never an
// operand, hence __restrict.
template <typename O, typename A, typename B, typename F>
SY_TARGET_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")
void binary_run(const F f, const A* __restrict pa, int64_t sa, const B* __restrict pb, int64_t sb, O* __restrict po,
                int64_t n) {
  if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) po[i] = f(pa[i], pb[i]);
  } else if (sa == 0 && sb == 1) {
    const A av = *pa;
    for (int64_t i = 0; i < n; ++i) po[i] = f(av, pb[i]);
  } else if (sa == 1 && sb == 0) {
    const B bv = *pb;
    for (int64_t i = 0; i < n; ++i) po[i] = f(pa[i], bv);
  } else {
    for (int64_t i = 0; i < n; ++i) po[i] = f(pa[i * sa], pb[i * sb]);
  }
}

// out[i] = f(a[ia], b[ib]) over broadcast(a, b) == out_dims. `f` takes the raw
// element types and returns O.
template <typename O, typename A, typename B, typename F>
void binary_loop(const A* a, const Dims& ad, const B* b, const Dims& bd, O* o, const Dims& od, const F& f) {
  BroadcastPlan<2> plan;
  plan.build(od, {&ad, &bd});
  run_plan<2>(plan, [&](int64_t oo, const int64_t* off, int64_t n, const int64_t* st) {
    binary_run<O, A, B, F>(f, a + off[0], st[0], b + off[1], st[1], o + oo, n);
  });
}

// out = in broadcast to od (used by variadic ops with one input, Expand-like).
template <typename T>
void broadcast_copy(const T* in, const Dims& id, T* o, const Dims& od) {
  BroadcastPlan<1> plan;
  plan.build(od, {&id});
  run_plan<1>(plan, [&](int64_t oo, const int64_t* off, int64_t n, const int64_t* st) {
    const T* p = in + off[0];
    T* po = o + oo;
    const int64_t s = st[0];
    for (int64_t i = 0; i < n; ++i) po[i] = p[i * s];
  });
}

// ---- helpers for kernels ------------------------------------------------------

// ONNX opset < 7 "broadcast=1, axis" form: B aligned to A at `axis`. Shared
// with the CUDA binary kernels.
struct LegacyBroadcast {
  bool enabled = false;
  int64_t axis = -1;  // -1: suffix alignment (numpy-compatible)
  void init(const Node& n) {
    if (n.opset < 7 && n.attr_int("broadcast", 0) != 0) {
      enabled = true;
      axis = n.attr_int("axis", -1);
    }
  }
  StatusOr<Dims> b_dims(const KernelContext& ctx, const Dims& a, const Dims& b) const {
    if (!enabled || axis < 0) return b;
    if (axis + static_cast<int64_t>(b.size()) > static_cast<int64_t>(a.size()))
      return InvalidArgument(ctx.node().describe(), ": legacy broadcast axis ", axis, " does not fit shapes ",
                             a.to_string(), " and ", b.to_string());
    Dims d = b;
    while (d.size() < a.size() - static_cast<size_t>(axis)) d.push_back(1);
    return d;
  }
};

Status missing_tensor(const KernelContext& ctx, size_t i, const char* what);
// Checks that input i is a present tensor; names the op in the error.
inline Status require_tensor(const KernelContext& ctx, size_t i, const char* what) {
  if (ctx.has_input(i) && ctx.input_value(i).is_tensor()) return OkStatus();
  return missing_tensor(ctx, i, what);
}
// Broadcast shape of a and b; the error names the node.
StatusOr<Dims> broadcast_shape(const KernelContext& ctx, const Dims& a, const Dims& b);
Status unsupported_type(const KernelContext& ctx, DataType t, uint32_t mask);

// ---- QuantizeLinear and DequantizeLinear (shared with the CUDA kernels) -------

constexpr uint32_t kQuantTypes = type_bit(DataType::kUInt8) | type_bit(DataType::kInt8) | type_bit(DataType::kUInt16) |
                                 type_bit(DataType::kInt16) | type_bit(DataType::kInt32);
constexpr uint32_t kQuantInputTypes = kFloatTypes | type_bit(DataType::kInt32);

struct QuantAttrs {
  int64_t axis = 1;
  int64_t block_size = 0;         // opset 21: > 0 for blocked quantization along `axis`
  int64_t output_dtype = 0;       // opset 21 (Quantize) and 23 (Dequantize); 0: the default type
  bool precision_double = false;  // Quantize's opset 23 precision: divide in double
};
// Unimplemented for a precision that is not a floating-point type.
StatusOr<QuantAttrs> quant_attrs(const Node& node);

// Which scale and zero point element i uses. Per tensor: count 1, block 0.
// Per axis (a 1-D scale along the axis): (i / inner) % count. Blocked
// (opset 21's block_size, block > 0): the scale has x's shape with the
// axis cut into blocks of `block` elements (the last may be short), so
// element i with outer index o, axis index j and inner index t uses
// (o * count + j / block) * inner + t, count being the blocks per axis.
struct QuantParams {
  int64_t count = 1;
  int64_t inner = 1;
  int64_t block = 0;
  int64_t axis_len = 1;
};
// What a checked QuantizeLinear or DequantizeLinear node produces.
struct QuantPlan {
  DataType out_type = DataType::kUndefined;
  QuantParams params;
};
// Checks inputs 0 to 2 (x, scale, optional zero point) and the attributes.
StatusOr<QuantPlan> plan_quantize(const KernelContext& ctx, const QuantAttrs& a);
StatusOr<QuantPlan> plan_dequantize(const KernelContext& ctx, const QuantAttrs& a);

// Dropout's ratio (an attribute before opset 12, input 1 since) and
// training_mode (input 2), checked. Shared with the CUDA kernel.
struct DropoutMode {
  bool training = false;
  float ratio = 0.5f;
};
StatusOr<DropoutMode> dropout_mode(const KernelContext& ctx, float ratio_attr);

// Output 0 = f(a, b) over the broadcast of two string tensors, of element
// type O (stored as `out_type`): Equal on strings, StringConcat.
template <typename O, typename F>
Status string_binary(KernelContext& ctx, const Tensor& a, const Tensor& b, DataType out_type, const F& f) {
  ASSIGN_OR_RETURN(Dims od, broadcast_shape(ctx, a.dims(), b.dims()));
  ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, out_type, od));
  binary_loop<O, std::string, std::string>(a.data<std::string>(), a.dims(), b.data<std::string>(), b.dims(),
                                           out->data<O>(), od, f);
  return OkStatus();
}

// Registration helper: one KernelDef.
void add_def(KernelRegistry& r, const char* op, int since, int end, KernelFactory f, uint32_t types = 0);

// Registration of the family's other files; called by
// register_cpu_elementwise_kernels().
void register_unary_kernels(KernelRegistry& r);
void register_cast_kernels(KernelRegistry& r);
void register_quant_kernels(KernelRegistry& r);

}  // namespace sy::elementwise

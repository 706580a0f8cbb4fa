// CPU pooling kernels: MaxPool (with ONNX Indices), AveragePool, LpPool,
// GlobalAveragePool / GlobalMaxPool / GlobalLpPool and MaxUnpool. Float
// MaxPool/AveragePool without Indices pool by rows (nn_pool_rows.h, windows
// without dilation) or through a cached oneDNN primitive (where its padding
// semantics match ONNX and it has a JIT kernel), whichever is faster for
// the row width first; everything else uses plain loops over the 3-D
// canonical window, parallel over (N, C) planes with oneTBB, which handle
// every ONNX attribute (dilations, ceil_mode, storage_order,
// count_include_pad) exactly.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>

#include "devices/cpu/kernels/dnnl_primitive.h"
#include "devices/cpu/kernels/nn_common.h"
#include "devices/cpu/kernels/nn_pool_rows.h"
#include "devices/cpu/kernels/reduction_common.h"
#include "devices/cpu/kernels/target_clones.h"
#include "devices/cpu/kernels/vector_math.h"

namespace sy::nn {
namespace {

enum class PoolKind { kMax, kAvg, kLp };

// LpPool's |v|^p and s^(1/p), without std::pow for p = 2 (the default) and
// p = 1: a double pow per element took 2.7 ms for a 2x2 window over
// [1, 64, 56, 56], 1.4x ONNX Runtime.
struct LpNorm {
  double p = 2;
  template <typename A>
  A term(A v) const {
    return p == 2 ? v * v : p == 1 ? std::abs(v) : static_cast<A>(std::pow(std::abs(static_cast<double>(v)), p));
  }
  template <typename A>
  A root(A s) const {
    return p == 2 ? std::sqrt(s) : p == 1 ? s : static_cast<A>(std::pow(static_cast<double>(s), 1.0 / p));
  }
};

// Calls f(T{}) for the element types pooling supports.
template <typename F>
bool visit_pool_type(DataType t, F&& f) {
  switch (t) {
    case DataType::kFloat: f(float{}); return true;
    case DataType::kDouble: f(double{}); return true;
    case DataType::kFloat16: f(Float16{}); return true;
    case DataType::kBFloat16: f(BFloat16{}); return true;
    case DataType::kInt8: f(int8_t{}); return true;
    case DataType::kUInt8: f(uint8_t{}); return true;
    default: return false;
  }
}

// Max and first argmax (offset in plane xp) of kGroup neighbouring float
// windows of one output row, all inside the input's columns and
// undilated: rows [ih_lo, ih_hi) of xp (row length W), columns
// s2 + q * sw + [0, KW) for window q. The order and NaN rule are
// PoolKernel::run's: row-major, the first greatest, a NaN winning over
// numbers. One window at a time, its compares and selects formed one chain
// (MaxPool with Indices over [1, 64, 112, 112], 3x3 stride 2: 3.6 ms,
// ONNX Runtime 2.2); here a vector holds kGroup windows. Offsets fit int32
// (the caller checks the plane's size).
constexpr int64_t kGroup = 8;
using Floats8 = float __attribute__((vector_size(32)));
using Ints8 = int32_t __attribute__((vector_size(32)));

SY_TARGET_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")
void max_group(const float* xp, int64_t W, int64_t ih_lo, int64_t ih_hi, int64_t s2, int64_t sw, int64_t KW,
               float (&best_out)[kGroup], int64_t (&at_out)[kGroup]) {
  const Ints8 lane = Ints8{0, 1, 2, 3, 4, 5, 6, 7} * static_cast<int32_t>(sw);
  const int64_t row_end = ih_hi * W;  // nothing at or past it is read
  auto load = [&](int64_t i, Floats8 & v) __attribute__((always_inline)) {
    if (sw == 1) {
      std::memcpy(&v, xp + i, sizeof v);
    } else if (sw == 2 && i + 2 * kGroup <= row_end) {
      Floats8 a, b;
      std::memcpy(&a, xp + i, sizeof a);
      std::memcpy(&b, xp + i + kGroup, sizeof b);
      v = __builtin_shuffle(a, b, Ints8{0, 2, 4, 6, 8, 10, 12, 14});
    } else {
      for (int64_t q = 0; q < kGroup; ++q) v[q] = xp[i + q * sw];
    }
  };
  Floats8 best{}, v{};
  load(ih_lo * W + s2, best);
  Ints8 at = static_cast<int32_t>(ih_lo * W + s2) + lane;
  for (int64_t ih = ih_lo; ih < ih_hi; ++ih)
    for (int64_t kw = 0; kw < KW; ++kw) {
      const int64_t i = ih * W + s2 + kw;
      load(i, v);
      const Ints8 take = (v > best) | ((v != v) & (best == best));
      best = take ? v : best;
      at = take ? static_cast<int32_t>(i) + lane : at;
    }
  for (int64_t q = 0; q < kGroup; ++q) {
    best_out[q] = best[q];
    at_out[q] = at[q];
  }
}

class PoolKernel : public Kernel {
 public:
  explicit PoolKernel(PoolKind kind) : kind_(kind) {}

  Status init(const Node& node) override {
    RETURN_IF_ERROR(attrs_.parse_pool(node));
    count_include_pad_ = node.attr_int("count_include_pad", 0) != 0;
    storage_order_ = node.attr_int("storage_order", 0);
    lp_.p = static_cast<double>(node.attr_int("p", 2));
    if (storage_order_ != 0 && storage_order_ != 1)
      return InvalidArgument(node.describe(), ": storage_order must be 0 or 1");
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument(name(), ": missing input X");
    ASSIGN_OR_RETURN(Window w, resolve_window(attrs_, x.dims(), attrs_.kernel_shape, name()));
    Dims out{x.dim(0), x.dim(1)};
    for (int i = 0; i < w.nsp; ++i) out.push_back(w.out[kMaxSpatial - w.nsp + i]);
    if (kind_ != PoolKind::kMax && x.dtype() != DataType::kFloat && x.dtype() != DataType::kDouble &&
        x.dtype() != DataType::kFloat16 && x.dtype() != DataType::kBFloat16)
      return Unimplemented(name(), ": unsupported type ", dtype_name(x.dtype()));
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), out));
    int64_t* idx = nullptr;
    if (kind_ == PoolKind::kMax && ctx.num_outputs() > 1 && ctx.output_wanted(1)) {
      ASSIGN_OR_RETURN(Tensor * it, ctx.allocate_output(1, DataType::kInt64, out));
      idx = it->data<int64_t>();
    }
    if (x.dtype() == DataType::kFloat && !idx && kind_ != PoolKind::kLp && x.numel() > 0) {
      auto rows = [&] {
        return pool_float_rows(w, kind_ == PoolKind::kMax, count_include_pad_, x.dim(0) * x.dim(1), x.data<float>(),
                               y->data<float>());
      };
      // Rows of 16 outputs or more pool faster by rows than in oneDNN's JIT
      // kernels (2x2, stride 2, [8, 64, 32, 32]: 80 us against 115; 3x3,
      // stride 1, 28 columns: 22 against 31); shorter ones faster in oneDNN
      // (2x2, stride 2, 7 columns: 185 us against 845), whose row loops
      // then run mostly scalar. oneDNN's 3-D windows are slower still:
      // there rows of 8 gain too (2x2x2, stride 2, [1, 64, 8, 16, 16]: 23
      // us against 28; 16 columns: 51 against 126).
      const bool by_rows = w.out[2] >= 16 || (w.in[0] > 1 && w.out[2] >= 8);
      if (by_rows ? rows() || run_dnnl(x, y, w) : run_dnnl(x, y, w) || rows()) return OkStatus();
    }
    bool ok = visit_pool_type(x.dtype(), [&](auto tag) { run<decltype(tag)>(x, y, idx, w); });
    if (!ok) return Unimplemented(name(), ": unsupported type ", dtype_name(x.dtype()));
    return OkStatus();
  }

 private:
  const char* name() const {
    return kind_ == PoolKind::kMax ? "MaxPool" : kind_ == PoolKind::kAvg ? "AveragePool" : "LpPool";
  }

  template <typename T>
  void run(const Tensor& x, Tensor* y, int64_t* idx, const Window& w) const {
    using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const int64_t NC = x.dim(0) * x.dim(1), insz = w.in_size(), osz = w.out_size();
    const T* X = x.data<T>();
    T* Y = y->data<T>();
    // An index within the plane as the Indices output holds it.
    auto stored_index = [&](int64_t at) {
      if (storage_order_ == 0) return at;
      // Column-major within the plane.
      const int64_t id = at / (w.in[1] * w.in[2]), ih = at / w.in[2] % w.in[1], iw = at % w.in[2];
      return id + ih * w.in[0] + iw * w.in[0] * w.in[1];
    };
    // Undilated float max windows of one depth go kGroup outputs at a time
    // where they are inside the input's columns (max_group).
    const bool grouped = kind_ == PoolKind::kMax && w.k[0] == 1 && w.dil[1] == 1 && w.dil[2] == 1 &&
                         insz <= std::numeric_limits<int32_t>::max();
    tbb::parallel_for(int64_t{0}, NC, [&](int64_t nc) {
      const T* xp = X + nc * insz;
      T* yp = Y + nc * osz;
      // Per dimension, the window positions inside the input, and those
      // before the end of the padding, which AveragePool with
      // count_include_pad counts: a window far larger than the input (a
      // model may ask for 2^31) costs only its overlap. Worked out once
      // per output depth, row and column.
      for (int64_t od = 0; od < w.out[0]; ++od) {
        const int64_t s0 = od * w.stride[0] - w.pad_b[0];
        const Span d0 = span(w, 0, s0);
        for (int64_t oh = 0; oh < w.out[1]; ++oh) {
          const int64_t s1 = oh * w.stride[1] - w.pad_b[1];
          const Span d1 = span(w, 1, s1);
          for (int64_t ow = 0; ow < w.out[2]; ++ow) {
            const int64_t o = (od * w.out[1] + oh) * w.out[2] + ow;
            const int64_t s2 = ow * w.stride[2] - w.pad_b[2];
            if constexpr (std::is_same_v<T, float>) {
              const int64_t s2_last = s2 + (kGroup - 1) * w.stride[2];
              if (grouped && d0.hi - d0.lo == 1 && d1.hi > d1.lo && ow + kGroup <= w.out[2] && s2 >= 0 &&
                  s2_last + w.k[2] <= w.in[2]) {
                const int64_t plane = (s0 + d0.lo * w.dil[0]) * w.in[1] * w.in[2];
                float best[kGroup];
                int64_t at[kGroup];
                max_group(xp + plane, w.in[2], s1 + d1.lo, s1 + d1.hi, s2, w.stride[2], w.k[2], best, at);
                for (int64_t q = 0; q < kGroup; ++q) {
                  yp[o + q] = best[q];
                  if (idx) idx[nc * osz + o + q] = nc * insz + stored_index(plane + at[q]);
                }
                ow += kGroup - 1;
                continue;
              }
            }
            const Span d2 = span(w, 2, s2);
            Acc best = -std::numeric_limits<Acc>::infinity();
            int64_t best_i = -1;
            Acc sum = 0;
            int64_t count = 0;
            for (int64_t kd = d0.lo; kd < d0.hi; ++kd) {
              const int64_t id = s0 + kd * w.dil[0];
              for (int64_t kh = d1.lo; kh < d1.hi; ++kh) {
                const int64_t ih = s1 + kh * w.dil[1];
                for (int64_t kw = d2.lo; kw < d2.hi; ++kw) {
                  const int64_t iw = s2 + kw * w.dil[2];
                  const int64_t i = (id * w.in[1] + ih) * w.in[2] + iw;
                  const Acc v = static_cast<Acc>(xp[i]);
                  ++count;
                  if (kind_ == PoolKind::kMax) {
                    // A NaN wins over numbers, as in pool_float_rows().
                    // Selects, not a branch: on random values the branch
                    // mispredicted about twice a window (MaxPool with
                    // Indices, 3x3 over [1, 64, 112, 112]: 4.8 ms to 4.2).
                    const bool take = (v > best) | (best_i < 0) | ((v != v) & (best == best));
                    best = take ? v : best;
                    best_i = take ? i : best_i;
                  } else if (kind_ == PoolKind::kAvg) {
                    sum += v;
                  } else {
                    sum += lp_.term(v);
                  }
                }
              }
            }
            Acc r;
            if (kind_ == PoolKind::kMax) {
              r = best;
              if (idx) idx[nc * osz + o] = nc * insz + stored_index(std::max<int64_t>(best_i, 0));
            } else if (kind_ == PoolKind::kAvg) {
              const double div = count_include_pad_ ? static_cast<double>(d0.padded) * static_cast<double>(d1.padded) *
                                                          static_cast<double>(d2.padded)
                                                    : static_cast<double>(count);
              r = div > 0 ? static_cast<Acc>(static_cast<double>(sum) / div) : Acc{0};
            } else {
              r = lp_.root(sum);
            }
            if constexpr (std::is_integral_v<T>) {
              yp[o] = best_i < 0 ? std::numeric_limits<T>::lowest() : static_cast<T>(r);
            } else {
              yp[o] = static_cast<T>(r);
            }
          }
        }
      }
    });
  }

  struct DnnlPool {
    dnnl::pooling_v2_forward::primitive_desc pd;
    DnnlPrimitive prim;
    bool jit = false;
  };

  // Float pooling through oneDNN; false when its semantics would differ
  // from ONNX here, or it declines or has no JIT kernel for the shape (the
  // caller then pools by rows or runs the loop). Its max skips a NaN
  // where ONNX's (and the other paths') gives NaN, so an X with a NaN
  // goes to the other paths: one read of X, in vector registers.
  bool run_dnnl(const Tensor& x, Tensor* y, const Window& w) const {
    using dnnl::memory;
    if (kind_ == PoolKind::kMax) {
      bool nan = false;
      elementwise::max_skipping_nan(x.data<float>(), x.numel(), &nan);
      if (nan) return false;
    }
    const int nsp = w.nsp;
    memory::dims strides, kernel, dil, pl, pr;
    bool exact_pads = true, dilated = false;
    for (int i = 0; i < nsp; ++i) {
      const int o = kMaxSpatial - nsp + i;
      // Ordinary windows only: one larger than the input, or padded or
      // dilated past it, is left to the loops, which visit only its overlap
      // with the input and whose sizes cannot overflow.
      if (w.k[o] > w.in[o] || w.dil[o] > w.in[o] || w.pad_b[o] > w.in[o] || w.pad_e[o] > w.in[o]) return false;
      const int64_t dk = (w.k[o] - 1) * w.dil[o] + 1;
      int64_t right = w.pad_e[o];
      if ((w.in[o] + w.pad_b[o] + right - dk) / w.stride[o] + 1 != w.out[o]) {
        right = (w.out[o] - 1) * w.stride[o] + dk - w.in[o] - w.pad_b[o];  // ceil_mode extension
        exact_pads = false;
      }
      if (right < 0) return false;
      strides.push_back(w.stride[o]);
      kernel.push_back(w.k[o]);
      dil.push_back(w.dil[o] - 1);
      pl.push_back(w.pad_b[o]);
      pr.push_back(right);
      dilated = dilated || w.dil[o] != 1;
    }
    dnnl::algorithm alg = dnnl::algorithm::pooling_max;
    if (kind_ == PoolKind::kAvg) {
      if (dilated || (count_include_pad_ && !exact_pads)) return false;
      alg = count_include_pad_ ? dnnl::algorithm::pooling_avg_include_padding
                               : dnnl::algorithm::pooling_avg_exclude_padding;
    }
    try {
      std::vector<int64_t> key(x.dims().begin(), x.dims().end());
      std::shared_ptr<DnnlPool> pool;
      {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = cache_.find(key);
        if (it != cache_.end()) pool = it->second;
      }
      if (!pool) {
        using tag = memory::format_tag;
        const tag act = nsp == 1 ? tag::ncw : nsp == 2 ? tag::nchw : tag::ncdhw;
        memory::desc src_md(memory::dims(x.dims().begin(), x.dims().end()), memory::data_type::f32, act);
        memory::desc dst_md(memory::dims(y->dims().begin(), y->dims().end()), memory::data_type::f32, act);
        dnnl::pooling_v2_forward::desc d(dnnl::prop_kind::forward_inference, alg, src_md, dst_md, strides, kernel, dil,
                                         pl, pr);
        dnnl::primitive_attr attr;
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        auto made = std::make_shared<DnnlPool>();
        made->pd = dnnl::pooling_v2_forward::primitive_desc(d, attr, cpu_engine());
        // Only oneDNN's JIT kernels: its fallback for plain layouts
        // (simple_nchw) took 15 ms for a 2x2 MaxPool of [1, 32, 224, 224]
        // where pool_float_rows() takes 0.2.
        made->jit = std::string(made->pd.impl_info_str()).rfind("jit", 0) == 0;
        if (made->jit) made->prim = DnnlPrimitive(made->pd);
        pool = made;
        std::lock_guard<std::mutex> lock(mu_);
        if (cache_.size() >= 16) cache_.clear();
        cache_[key] = pool;
      }
      if (!pool->jit) return false;
      auto scratch = dnnl_scratchpad(pool->pd.scratchpad_desc().get_size());
      if (!scratch.ok()) return false;
      pool->prim.execute({{DNNL_ARG_SRC, x.raw()}, {DNNL_ARG_DST, y->raw()}, {DNNL_ARG_SCRATCHPAD, (*scratch)->data}});
      return true;
    } catch (const dnnl::error&) {
      return false;
    }
  }

  PoolKind kind_;
  WindowAttrs attrs_;
  mutable std::mutex mu_;
  mutable std::map<std::vector<int64_t>, std::shared_ptr<DnnlPool>> cache_;
  bool count_include_pad_ = false;
  int64_t storage_order_ = 0;
  LpNorm lp_;
};

struct MaxPoolKernel final : PoolKernel {
  MaxPoolKernel() : PoolKernel(PoolKind::kMax) {}
};
struct AveragePoolKernel final : PoolKernel {
  AveragePoolKernel() : PoolKernel(PoolKind::kAvg) {}
};
struct LpPoolKernel final : PoolKernel {
  LpPoolKernel() : PoolKernel(PoolKind::kLp) {}
};

class GlobalPoolKernel : public Kernel {
 public:
  explicit GlobalPoolKernel(PoolKind kind) : kind_(kind) {}
  Status init(const Node& node) override {
    lp_.p = static_cast<double>(node.attr_int("p", 2));
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined() || x.rank() < 2)
      return InvalidArgument("Global pooling: input must have rank >= 2, got ", x.describe());
    Dims out{x.dim(0), x.dim(1)};
    int64_t sp = 1;
    for (size_t i = 2; i < x.rank(); ++i) {
      out.push_back(1);
      sp *= x.dim(i);
    }
    if (sp == 0 && kind_ == PoolKind::kMax) return InvalidArgument("GlobalMaxPool: empty spatial dimensions");
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), out));
    const int64_t NC = x.dim(0) * x.dim(1);
    bool ok = visit_pool_type(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
      const T* X = x.data<T>();
      T* Y = y->data<T>();
      auto plane = [&](int64_t nc) {
        const T* xp = X + nc * sp;
        Acc r;
        if (kind_ == PoolKind::kMax) {
          // A NaN anywhere gives NaN, as the windowed pools do; floats
          // take the max in SSE/AVX-512 registers (std::max's scalar chain,
          // which also kept or dropped a NaN by its position, took 61 us
          // for [8, 512, 7, 7]).
          if constexpr (std::is_same_v<T, float>) {
            bool nan = false;
            r = elementwise::max_skipping_nan(xp, sp, &nan);
            if (nan) r = std::numeric_limits<Acc>::quiet_NaN();
          } else {
            r = static_cast<Acc>(xp[0]);
            for (int64_t i = 1; i < sp; ++i) r = max_nan(r, static_cast<Acc>(xp[i]));
          }
        } else if (kind_ == PoolKind::kAvg) {
          const Acc s = reduce_detail::lane_sum<Acc>(sp, [&](int64_t i) { return static_cast<Acc>(xp[i]); });
          r = sp > 0 ? s / static_cast<Acc>(sp) : Acc{0};
        } else {
          double s = 0;
          for (int64_t i = 0; i < sp; ++i) s += lp_.term(static_cast<double>(xp[i]));
          r = static_cast<Acc>(lp_.root(s));
        }
        Y[nc] = static_cast<T>(r);
      };
      // A few thousand elements per task: [8, 512, 7, 7] is 4096 planes of 49.
      const int64_t grain = std::max<int64_t>(1, 4096 / std::max<int64_t>(sp, 1));
      tbb::parallel_for(tbb::blocked_range<int64_t>(0, NC, grain), [&](const tbb::blocked_range<int64_t>& range) {
        for (int64_t nc = range.begin(); nc < range.end(); ++nc) plane(nc);
      });
    });
    if (!ok) return Unimplemented("Global pooling: unsupported type ", dtype_name(x.dtype()));
    return OkStatus();
  }

 private:
  PoolKind kind_;
  LpNorm lp_;
};

struct GlobalMaxPoolKernel final : GlobalPoolKernel {
  GlobalMaxPoolKernel() : GlobalPoolKernel(PoolKind::kMax) {}
};
struct GlobalAveragePoolKernel final : GlobalPoolKernel {
  GlobalAveragePoolKernel() : GlobalPoolKernel(PoolKind::kAvg) {}
};
struct GlobalLpPoolKernel final : GlobalPoolKernel {
  GlobalLpPoolKernel() : GlobalPoolKernel(PoolKind::kLp) {}
};

// MaxUnpool follows the ONNX reference: scatter into the inferred shape,
// then place that block at the origin of output_shape when one is given.
class MaxUnpoolKernel final : public Kernel {
 public:
  Status init(const Node& node) override { return attrs_.parse_pool(node); }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const MaxUnpoolPlan p, plan_max_unpool(ctx, attrs_));
    const Tensor& x = ctx.input(0);
    const Tensor& ind = ctx.input(1);
    const Dims& inferred = p.inferred;
    const Dims& out = p.out;
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), out));
    std::memset(y->raw(), 0, y->nbytes());
    const int64_t total = inferred.numel();
    const size_t es = dtype_size(x.dtype());
    if (x.dtype() == DataType::kString) return Unimplemented("MaxUnpool: string tensors");
    const int64_t* I = ind.data<int64_t>();
    const char* X = static_cast<const char*>(x.raw());
    char* Y = static_cast<char*>(y->raw());
    for (int64_t e = 0; e < x.numel(); ++e) {
      int64_t t = I[e];
      if (t < 0 || t >= total) return OutOfRange("MaxUnpool: index ", t, " out of range [0, ", total, ")");
      // Map the index in `inferred` to the same coordinates in `out`.
      int64_t off = 0, mul = 1;
      for (size_t d = inferred.rank(); d-- > 0;) {
        off += (t % inferred[d]) * mul;
        t /= inferred[d];
        mul *= out[d];
      }
      std::memcpy(Y + off * es, X + e * es, es);
    }
    return OkStatus();
  }

 private:
  WindowAttrs attrs_;
};

}  // namespace

StatusOr<MaxUnpoolPlan> plan_max_unpool(const KernelContext& ctx, const WindowAttrs& a) {
  const Tensor& x = ctx.input(0);
  const Tensor& ind = ctx.input(1);
  if (!x.defined() || !ind.defined()) return InvalidArgument("MaxUnpool: X and I are required");
  if (x.rank() < 3) return InvalidArgument("MaxUnpool: X must have rank >= 3, got ", x.describe());
  if (ind.dims() != x.dims() || ind.dtype() != DataType::kInt64)
    return InvalidArgument("MaxUnpool: I must be int64 with X's shape, got ", ind.describe());
  const size_t nsp = x.rank() - 2;
  if (a.kernel_shape.size() != nsp || (!a.strides.empty() && a.strides.size() != nsp) ||
      (!a.pads.empty() && a.pads.size() != 2 * nsp))
    return InvalidArgument("MaxUnpool: attribute lengths do not match spatial rank ", nsp);
  Dims inferred{x.dim(0), x.dim(1)};
  int64_t total = 0;
  if (!checked_mul(x.dim(0), x.dim(1), &total))
    return InvalidArgument("MaxUnpool: X's shape overflows: ", x.describe());
  for (size_t i = 0; i < nsp; ++i) {
    const int64_t s = a.strides.empty() ? 1 : a.strides[i];
    const int64_t pb = a.pads.empty() ? 0 : a.pads[i], pe = a.pads.empty() ? 0 : a.pads[nsp + i];
    // (in - 1) * stride - pads + kernel, with attributes from the file.
    int64_t d = 0;
    if (__builtin_mul_overflow(x.dim(2 + i) - 1, s, &d) || __builtin_sub_overflow(d, pb, &d) ||
        __builtin_sub_overflow(d, pe, &d) || __builtin_add_overflow(d, a.kernel_shape[i], &d) ||
        (d > 0 && !checked_mul(total, d, &total)))
      return InvalidArgument("MaxUnpool: the output size overflows for ", x.describe());
    if (d <= 0) return InvalidArgument("MaxUnpool: non-positive output size for ", x.describe());
    inferred.push_back(d);
  }
  Dims out = inferred;
  if (ctx.has_input(2)) {
    const Tensor& os = ctx.input(2);
    if (os.numel() != static_cast<int64_t>(x.rank()))
      return InvalidArgument("MaxUnpool: output_shape must have ", x.rank(), " values, got ", os.describe());
    for (size_t i = 0; i < x.rank(); ++i) {
      out[i] = os.int_at(static_cast<int64_t>(i));
      if (out[i] < inferred[i])
        return InvalidArgument("MaxUnpool: output_shape ", out.to_string(), " is smaller than the inferred shape ",
                               inferred.to_string());
    }
  }
  return MaxUnpoolPlan{inferred, out};
}

void register_pool_kernels(KernelRegistry& r) {
  const std::vector<DataType> ft = {DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kBFloat16};
  std::vector<DataType> mt = ft;
  mt.push_back(DataType::kInt8);
  mt.push_back(DataType::kUInt8);
  add_kernel(r, "MaxPool", 1, make_kernel<MaxPoolKernel>, mt);
  add_kernel(r, "AveragePool", 1, make_kernel<AveragePoolKernel>, ft);
  add_kernel(r, "LpPool", 1, make_kernel<LpPoolKernel>, ft);
  add_kernel(r, "GlobalMaxPool", 1, make_kernel<GlobalMaxPoolKernel>, mt);
  add_kernel(r, "GlobalAveragePool", 1, make_kernel<GlobalAveragePoolKernel>, ft);
  add_kernel(r, "GlobalLpPool", 1, make_kernel<GlobalLpPoolKernel>, ft);
  KernelDef d;
  d.op = "MaxUnpool";
  d.since_version = 9;
  d.host_inputs = 1u << 2;  // output_shape
  d.factory = make_kernel<MaxUnpoolKernel>;
  r.add(std::move(d));
}

}  // namespace sy::nn

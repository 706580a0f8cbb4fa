// CPU Resize (opset 10, 11, 13) and Upsample (7, 9). Interpolation is
// separable, so each axis gets a small table of (source index, weight) taps
// computed once per call by resize_plan.h (shared with the CUDA kernel, and
// following the ONNX reference implementation exactly). Nearest mode is a
// pure gather and works for every element type; linear and cubic run axis
// by axis over the leading axes and the last two together, in float for
// float tensors and in double for the others.
#include <cmath>
#include <limits>
#include <vector>

#include "devices/broadcast.h"
#include "devices/cpu/kernels/resize_plan.h"
#include "devices/cpu/kernels/target_clones.h"
#include "devices/cpu/kernels/tensor_common.h"
#include "devices/cpu/kernels/tensor_register.h"

namespace sy::tensor_ops {
namespace {

template <typename T>
inline double to_double(T v) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) return static_cast<float>(v);
  else return static_cast<double>(v);
}

template <typename T>
inline T from_double(double v) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return T(static_cast<float>(v));
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v);
  } else {
    // Integers: round to nearest and saturate, never a UB float->int cast.
    if (std::isnan(v)) return T(0);
    v = std::nearbyint(v);
    if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(v);
  }
}

// True if the output element at `flat` extrapolates on any axis.
bool outside_at(const std::vector<ResizeAxisPlan>& plans, const Dims& out_dims, int64_t flat) {
  for (size_t k = out_dims.size(); k-- > 0;) {
    int64_t c = flat % out_dims[k];
    flat /= out_dims[k];
    if (plans[k].outside[c]) return true;
  }
  return false;
}

// One row of a last-axis pass: d[xo] = the sum over its taps of w * s[idx]
// (a zero weight adds nothing, not 0 * s: s may be infinite). The tap
// count is fixed for linear (2) and cubic (4), so that the taps unroll:
// with a count known only at run time the loop over a row's taps was the
// inner one (Resize linear [1, 64, 56, 56] x2 took 0.9 ms, 0.48 now).
// Branch-free forms that vectorise with gathers took 1.5x longer here.
template <int kTaps, typename C>
[[gnu::always_inline]] inline void interpolate_taps(const C* __restrict s, const C* __restrict w,
                                                    const int64_t* __restrict idx, int taps, int64_t out,
                                                    C* __restrict d) {
  const int n = kTaps ? kTaps : taps;
  for (int64_t xo = 0; xo < out; ++xo) {
    C acc = 0;
    for (int t = 0; t < n; ++t) {
      const C wt = w[xo * n + t];
      const C term = wt * s[idx[xo * n + t]];
      acc += wt != 0 ? term : C(0);
    }
    d[xo] = acc;
  }
}

// Cloned for FMA (x86-64-v3 has it, plain AVX2 does not): 7% here.
template <typename C>
SY_TARGET_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")
void interpolate_row(const C* __restrict s, const C* __restrict w, const int64_t* __restrict idx, int taps, int64_t out,
                     C* __restrict d) {
  if (taps == 2)
    interpolate_taps<2>(s, w, idx, taps, out, d);
  else if (taps == 4)
    interpolate_taps<4>(s, w, idx, taps, out, d);
  else
    interpolate_taps<0>(s, w, idx, taps, out, d);
}

// d[i] = the sum over the taps of w[t] * s[idx[t] * n + i], for i < n: one
// output row of a pass over an outer axis. A zero weight adds nothing.
template <typename C>
void taps_sum(const C* __restrict s, int64_t n, const C* w, const int64_t* idx, int taps, C* __restrict d) {
  std::fill(d, d + n, C(0));
  for (int t = 0; t < taps; ++t) {
    if (w[t] == 0) continue;
    const C wt = w[t];
    const C* __restrict row = s + idx[t] * n;
    for (int64_t i = 0; i < n; ++i) d[i] += wt * row[i];
  }
}

Status run_resize(KernelContext& ctx, const ResizeAttrs& a, const Tensor& x, const ResizeTarget& t) {
  const Dims& out_dims = t.out_dims;
  size_t r = x.rank();
  ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), out_dims));
  if (out->numel() == 0) return OkStatus();
  if (x.numel() == 0) return InvalidArgument("Resize: cannot resize an empty input to a non-empty output");
  ASSIGN_OR_RETURN(std::vector<ResizeAxisPlan> plans, plan_resize_axes(a, x.dims(), t));
  DataType dt = x.dtype();
  ScalarValue extrap = scalar_from_double(dt, a.extrapolation);
  bool any_outside = false;
  for (const auto& p : plans) any_outside |= p.any_outside;

  if (a.mode == ResizeMode::kNearest) {
    Dims in_strides = contiguous_strides(x.dims());
    std::vector<std::vector<int64_t>> offs(r);
    for (size_t k = 0; k < r; ++k) {
      offs[k].resize(static_cast<size_t>(out_dims[k]));
      for (int64_t i = 0; i < out_dims[k]; ++i) offs[k][i] = plans[k].idx[i] * in_strides[k];
    }
    if (r == 0) {
      copy_elements(dt, out->raw(), 0, x.raw(), 0, 1);
      return OkStatus();
    }
    int64_t inner = out_dims[r - 1], rows = out->numel() / inner;
    visit_storage(dt, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* src = x.data<T>();
      T* dst = out->data<T>();
      const T ev = *static_cast<const T*>(extrap.ptr(dt));
      for_each_row(rows, inner, [&](int64_t row) {
        int64_t rem = row, off = 0;
        bool row_out = false;
        for (size_t k = r - 1; k-- > 0;) {
          int64_t c = rem % out_dims[k];
          rem /= out_dims[k];
          off += offs[k][c];
          row_out |= plans[k].outside[c] != 0;
        }
        T* d = dst + row * inner;
        const std::vector<int64_t>& lo = offs[r - 1];
        const std::vector<uint8_t>& lout = plans[r - 1].outside;
        for (int64_t j = 0; j < inner; ++j) d[j] = (row_out || lout[j]) ? ev : src[off + lo[j]];
      });
    });
    return OkStatus();
  }

  bool ok = visit_numeric(dt, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      // Computed in C: float for float tensors (as ONNX Runtime computes
      // them; within 1e-6 of double), else double. Float and double
      // tensors are read in place, other types converted once.
      using C = std::conditional_t<std::is_same_v<T, float>, float, double>;
      std::vector<C> converted, cur;
      const C* from;
      if constexpr (std::is_same_v<T, C>) {
        from = x.data<C>();
      } else {
        converted.resize(static_cast<size_t>(x.numel()));
        for (int64_t i = 0; i < x.numel(); ++i) converted[i] = static_cast<C>(to_double(x.data<T>()[i]));
        from = converted.data();
      }
      // Separable passes over the leading axes (N and C of an image, which
      // are rarely resized), each into a new buffer.
      Dims dims = x.dims();
      const size_t tail = r >= 2 ? r - 2 : 0;
      for (size_t k = 0; k < tail; ++k) {
        const ResizeAxisPlan& p = plans[k];
        if (p.identity) continue;
        int64_t outer = 1, inner = 1;
        for (size_t j = 0; j < k; ++j) outer *= dims[j];
        for (size_t j = k + 1; j < r; ++j) inner *= dims[j];
        std::vector<C> next(static_cast<size_t>(outer * p.out * inner));
        const std::vector<C> weights(p.w.begin(), p.w.end());
        for_each_row(outer * p.out, inner * p.ntaps, [&, to = next.data(), w = weights.data()](int64_t row) {
          const int64_t o = row / p.out, xo = row % p.out;
          taps_sum(from + o * p.in * inner, inner, w + xo * p.ntaps, p.idx.data() + xo * p.ntaps, p.ntaps,
                   to + row * inner);
        });
        cur.swap(next);
        from = cur.data();
        dims[k] = p.out;
      }
      T* dst = out->data<T>();
      if (r == 0) {
        dst[0] = from_double<T>(from[0]);
        return;
      }
      // The last two axes (the height and width of an image) in one pass,
      // an output row at a time: the row's source rows weighted into one
      // row (`src`), then interpolated along it straight into the output.
      // Two passes over the whole tensor through a buffer cost twice ONNX
      // Runtime's time ([1, 64, 56, 56] to twice its size, linear).
      const ResizeAxisPlan& pw = plans[r - 1];
      const ResizeAxisPlan* ph = r >= 2 && !plans[r - 2].identity ? &plans[r - 2] : nullptr;
      const int64_t in_w = dims[r - 1], out_w = out_dims[r - 1], out_h = r >= 2 ? out_dims[r - 2] : 1,
                    in_h = r >= 2 ? dims[r - 2] : 1, rows = out->numel() / out_w;
      const std::vector<C> wh = ph ? std::vector<C>(ph->w.begin(), ph->w.end()) : std::vector<C>();
      const std::vector<C> ww(pw.w.begin(), pw.w.end());
      const int64_t row_cost = out_w * pw.ntaps + (ph ? in_w * ph->ntaps : 0);
      for_row_ranges(rows, row_cost, [&](int64_t begin, int64_t end) {
        std::vector<C> src_buf(ph ? static_cast<size_t>(in_w) : 0), out_buf;
        if constexpr (!std::is_same_v<T, C>) out_buf.resize(static_cast<size_t>(out_w));
        for (int64_t row = begin; row < end; ++row) {
          const int64_t o = row / out_h, yo = row % out_h;
          const C* src = from + (o * in_h + yo) * in_w;
          if (ph) {
            taps_sum(from + o * in_h * in_w, in_w, wh.data() + yo * ph->ntaps, ph->idx.data() + yo * ph->ntaps,
                     ph->ntaps, src_buf.data());
            src = src_buf.data();
          }
          C* d;
          if constexpr (std::is_same_v<T, C>)
            d = dst + row * out_w;
          else
            d = out_buf.data();
          if (pw.identity)
            std::copy(src, src + out_w, d);
          else
            interpolate_row(src, ww.data(), pw.idx.data(), pw.ntaps, out_w, d);
          if constexpr (!std::is_same_v<T, C>)
            for (int64_t i = 0; i < out_w; ++i) dst[row * out_w + i] = from_double<T>(d[i]);
        }
      });
      if (any_outside) {
        const T ev = *reinterpret_cast<const T*>(extrap.bytes);
        for (int64_t i = 0; i < out->numel(); ++i)
          if (outside_at(plans, out_dims, i)) dst[i] = ev;
      }
    }
  });
  if (!ok || dt == DataType::kBool)
    return InvalidArgument("Resize: ", a.mode == ResizeMode::kLinear ? "linear" : "cubic", " mode does not support ",
                           dtype_name(dt));
  return OkStatus();
}

// One kernel for Resize and Upsample: ResizeSpec tells them apart.
class ResizeKernel final : public Kernel {
 public:
  Status init(const Node& node) override { return spec_.init(node); }

  // Thread-safe: reads only the spec fixed by init().
  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(ResizeTarget t, spec_.target(ctx));
    return run_resize(ctx, spec_.attrs(), ctx.input(0), t);
  }

 private:
  ResizeSpec spec_;
};

}  // namespace

void register_resize_kernels(KernelRegistry& r) {
  add_kernel<ResizeKernel>(r, "Resize", 10, kBit1 | kBit2 | kBit3);
  add_kernel<ResizeKernel>(r, "Upsample", 7, kBit1);
}

}  // namespace sy::tensor_ops

// CPU Resize (opset 10, 11, 13) and Upsample (7, 9). Interpolation is
// separable, so each axis gets a small table of (source index, weight) taps
// computed once per call by resize_plan.h (shared with the CUDA kernel, and
// following the ONNX reference implementation exactly). Nearest mode is a pure gather and works for every
// element type; linear and cubic run axis by axis in double precision.
#include <cmath>
#include <limits>
#include <vector>

#include "devices/broadcast.h"
#include "devices/cpu/kernels/resize_plan.h"
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

Status run_resize(KernelContext& ctx, const ResizeAttrs& a, const Tensor& x, const ResizeTarget& t) {
  const Dims& out_dims = t.out_dims;
  size_t r = x.rank();
  ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), out_dims));
  if (out->numel() == 0) return OkStatus();
  if (x.numel() == 0) return InvalidArgument("Resize: cannot resize an empty input to a non-empty output");
  std::vector<ResizeAxisPlan> plans = plan_resize_axes(a, x.dims(), t);
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
      // Separable passes over a double buffer.
      int64_t n = x.numel();
      std::vector<double> cur(static_cast<size_t>(n));
      const T* src = x.data<T>();
      for (int64_t i = 0; i < n; ++i) cur[i] = to_double(src[i]);
      Dims dims = x.dims();
      for (size_t k = 0; k < r; ++k) {
        const ResizeAxisPlan& p = plans[k];
        if (p.identity) continue;
        int64_t outer = 1, inner = 1;
        for (size_t j = 0; j < k; ++j) outer *= dims[j];
        for (size_t j = k + 1; j < r; ++j) inner *= dims[j];
        std::vector<double> next(static_cast<size_t>(outer * p.out * inner), 0.0);
        for_each_row(outer * p.out, inner * p.ntaps, [&](int64_t row) {
          int64_t o = row / p.out, xo = row % p.out;
          double* d = &next[row * inner];
          for (int t = 0; t < p.ntaps; ++t) {
            double w = p.w[xo * p.ntaps + t];
            if (w == 0) continue;
            const double* s = &cur[(o * p.in + p.idx[xo * p.ntaps + t]) * inner];
            for (int64_t i = 0; i < inner; ++i) d[i] += w * s[i];
          }
        });
        cur.swap(next);
        dims[k] = p.out;
      }
      T* dst = out->data<T>();
      int64_t m = out->numel();
      const T ev = *reinterpret_cast<const T*>(extrap.bytes);
      for (int64_t i = 0; i < m; ++i) dst[i] = from_double<T>(cur[i]);
      if (any_outside)
        for (int64_t i = 0; i < m; ++i)
          if (outside_at(plans, out_dims, i)) dst[i] = ev;
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

// CPU shape ops: Identity, Constant, ConstantOfShape, Shape, Size, Reshape,
// Flatten, Squeeze, Unsqueeze, Expand, Range, EyeLike. The view ops
// (Identity, Reshape, Flatten, Squeeze, Unsqueeze) never copy: they emit a
// tensor sharing the input's buffer. The other families live in
// tensor_movement.cc, tensor_index.cc and tensor_resize.cc.
#include <cmath>
#include <limits>

#include "devices/broadcast.h"
#include "devices/cpu/cpu_kernels.h"
#include "devices/cpu/kernels/index_checks.h"
#include "devices/cpu/kernels/tensor_common.h"
#include "devices/cpu/kernels/tensor_register.h"

namespace sy {
namespace tensor_ops {
namespace {

class IdentityKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    ctx.set_output(0, ctx.input_value(0));
    return OkStatus();
  }
};

// Constant: the value is built once at init and shared read-only by every run.
class ConstantKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    for (const Attribute& a : node.attributes) {
      if (a.name == "value" && a.kind == Attribute::Kind::kTensor && a.t) {
        value_ = Tensor::borrow(a.t);
        return OkStatus();
      }
      if (a.name == "sparse_value") return Unimplemented(node.describe(), ": sparse_value is not supported");
      if (a.name == "value_float") return make_from(DataType::kFloat, Dims{}, &a.f, 1);
      if (a.name == "value_floats") return make_from(DataType::kFloat, Dims{int64_t(a.floats.size())}, a.floats.data(), a.floats.size());
      if (a.name == "value_int") return make_from(DataType::kInt64, Dims{}, &a.i, 1);
      if (a.name == "value_ints") return make_from(DataType::kInt64, Dims{int64_t(a.ints.size())}, a.ints.data(), a.ints.size());
      if (a.name == "value_string") {
        ASSIGN_OR_RETURN(value_, Tensor::host(DataType::kString, Dims{}));
        value_.data<std::string>()[0] = a.s;
        return OkStatus();
      }
      if (a.name == "value_strings") {
        ASSIGN_OR_RETURN(value_, Tensor::host(DataType::kString, Dims{int64_t(a.strings.size())}));
        for (size_t i = 0; i < a.strings.size(); ++i) value_.data<std::string>()[i] = a.strings[i];
        return OkStatus();
      }
    }
    return InvalidArgument(node.describe(), ": Constant needs one of the value* attributes");
  }
  Status compute(KernelContext& ctx) const override {
    ctx.set_output(0, RuntimeValue(value_));
    return OkStatus();
  }

 private:
  Status make_from(DataType dt, const Dims& dims, const void* src, size_t n) {
    ASSIGN_OR_RETURN(value_, Tensor::host(dt, dims));
    if (n) std::memcpy(value_.raw(), src, n * dtype_size(dt));
    return OkStatus();
  }
  Tensor value_;
};

class ConstantOfShapeKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    const Attribute* a = node.attr("value");
    if (a && a->kind == Attribute::Kind::kTensor && a->t) {
      if (a->t->numel() != 1) return InvalidArgument(node.describe(), ": 'value' must hold exactly one element");
      value_ = Tensor::borrow(a->t);
    } else {
      ASSIGN_OR_RETURN(value_, Tensor::host(DataType::kFloat, Dims{1}));
      value_.data<float>()[0] = 0.f;
    }
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(Dims dims, read_int_list(ctx.input(0), "ConstantOfShape input"));
    for (int64_t d : dims)
      if (d < 0) return InvalidArgument("ConstantOfShape: negative dimension in shape ", dims.to_string());
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, value_.dtype(), dims));
    ScalarValue v = scalar_from_tensor(value_, 0);
    fill_elements(out->dtype(), out->raw(), out->numel(), v.ptr(out->dtype()));
    return OkStatus();
  }

 private:
  Tensor value_;
};

class ShapeKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    start_ = node.attr_int("start", 0);
    end_ = node.attr_int("end", std::numeric_limits<int64_t>::max());
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument("Shape: input is not a tensor");
    int64_t r = static_cast<int64_t>(x.rank());
    auto clamp = [r](int64_t v) {
      if (v < 0) v = std::max<int64_t>(0, v + r);
      return std::min(v, r);
    };
    int64_t s = clamp(start_), e = clamp(end_);
    int64_t n = std::max<int64_t>(0, e - s);
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, DataType::kInt64, Dims{n}));
    for (int64_t i = 0; i < n; ++i) out->data<int64_t>()[i] = x.dim(static_cast<size_t>(s + i));
    return OkStatus();
  }

 private:
  int64_t start_ = 0, end_ = 0;
};

class SizeKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument("Size: input is not a tensor");
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, DataType::kInt64, Dims{}));
    out->data<int64_t>()[0] = x.numel();
    return OkStatus();
  }
};

}  // namespace

StatusOr<Dims> reshape_dims(const Dims& in, const Dims& shape, bool allowzero) {
  Dims out = Dims::of_rank(shape.size());
  int64_t infer = -1;
  int64_t known = 1;
  bool has_zero = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t d = shape[i];
    if (d == -1) {
      if (infer >= 0) return InvalidArgument("Reshape: shape ", shape.to_string(), " has more than one -1");
      infer = static_cast<int64_t>(i);
      out[i] = 1;
      continue;
    }
    if (d < -1) return InvalidArgument("Reshape: invalid dimension ", d, " in shape ", shape.to_string());
    if (d == 0) {
      has_zero = true;
      if (!allowzero) {
        if (i >= in.size())
          return InvalidArgument("Reshape: shape ", shape.to_string(), " copies dimension ", i, " (0) but the input ",
                                 in.to_string(), " has rank ", in.size());
        d = in[i];
      }
    }
    out[i] = d;
    if (!checked_mul(known, d, &known))
      return InvalidArgument("Reshape: shape ", shape.to_string(), " has too many elements");
  }
  int64_t total = in.numel();
  if (infer >= 0) {
    if (allowzero && has_zero)
      return InvalidArgument("Reshape: shape ", shape.to_string(), " mixes -1 with 0 while allowzero=1");
    if (known == 0) {
      if (total != 0)
        return InvalidArgument("Reshape: cannot infer -1 in ", shape.to_string(), " for input ", in.to_string());
      return InvalidArgument("Reshape: -1 in ", shape.to_string(), " is ambiguous for an empty input ", in.to_string());
    }
    if (total % known != 0)
      return InvalidArgument("Reshape: cannot reshape input ", in.to_string(), " (", total, " elements) to ",
                             shape.to_string());
    out[static_cast<size_t>(infer)] = total / known;
    known = total;
  }
  if (known != total)
    return InvalidArgument("Reshape: cannot reshape input ", in.to_string(), " (", total, " elements) to ",
                           shape.to_string(), " (", known, " elements)");
  return out;
}

namespace {

class ReshapeKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    allowzero_ = node.attr_int("allowzero", 0) != 0;
    if (node.opset < 5) {
      attr_shape_ = to_dims(node.attr_ints("shape"));
      use_attr_ = true;
    }
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument("Reshape: data is missing");
    Dims shape;
    if (use_attr_) {
      shape = attr_shape_;
    } else {
      ASSIGN_OR_RETURN(shape, read_int_list(ctx.input(1), "Reshape shape"));
    }
    ASSIGN_OR_RETURN(Dims out, reshape_dims(x.dims(), shape, allowzero_));
    ctx.set_output(0, RuntimeValue(x.reshaped(std::move(out))));
    return OkStatus();
  }

 private:
  bool allowzero_ = false;
  bool use_attr_ = false;
  Dims attr_shape_;
};

class FlattenKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    axis_ = node.attr_int("axis", 1);
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument("Flatten: input is missing");
    int64_t r = static_cast<int64_t>(x.rank());
    if (axis_ < -r || axis_ > r) return InvalidArgument("Flatten: axis ", axis_, " is out of range for rank ", r);
    int64_t axis = axis_ < 0 ? axis_ + r : axis_;
    int64_t outer = 1, inner = 1;
    for (size_t i = 0; i < x.rank(); ++i) (int64_t(i) < axis ? outer : inner) *= x.dim(i);
    ctx.set_output(0, RuntimeValue(x.reshaped(Dims{outer, inner})));
    return OkStatus();
  }

 private:
  int64_t axis_ = 1;
};

// Squeeze and Unsqueeze read axes from an attribute before opset 13 and from
// input 1 from opset 13 on.
StatusOr<Dims> read_axes(const KernelContext& ctx, const Dims& attr_axes, bool from_input, bool* given) {
  if (!from_input) {
    *given = !attr_axes.empty();
    return attr_axes;
  }
  *given = ctx.has_input(1);
  if (!*given) return Dims{};
  return read_int_list(ctx.input(1), "axes");
}

class SqueezeKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    from_input_ = node.opset >= 13;
    attr_axes_ = to_dims(node.attr_ints("axes"));
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument("Squeeze: input is missing");
    bool given = false;
    ASSIGN_OR_RETURN(Dims axes, read_axes(ctx, attr_axes_, from_input_, &given));
    int64_t r = static_cast<int64_t>(x.rank());
    Dims dropped = Dims::of_rank(static_cast<size_t>(r), 0);  // inline storage: no heap for rank <= 8
    auto is_dropped = [&](int64_t a) { return dropped[a] != 0; };
    auto set_dropped = [&](int64_t a) { dropped[a] = 1; };
    if (given && !axes.empty()) {
      for (int64_t a : axes) {
        ASSIGN_OR_RETURN(int64_t ax, normalize_axis(a, r, "Squeeze axis"));
        if (is_dropped(ax)) return InvalidArgument("Squeeze: axis ", a, " is repeated");
        if (x.dim(ax) != 1)
          return InvalidArgument("Squeeze: cannot squeeze axis ", a, " of shape ", x.dims().to_string(),
                                 " (size is not 1)");
        set_dropped(ax);
      }
    } else {
      for (int64_t i = 0; i < r; ++i)
        if (x.dim(i) == 1) set_dropped(i);
    }
    Dims out;
    for (int64_t i = 0; i < r; ++i)
      if (!is_dropped(i)) out.push_back(x.dim(i));
    ctx.set_output(0, RuntimeValue(x.reshaped(std::move(out))));
    return OkStatus();
  }

 private:
  bool from_input_ = false;
  Dims attr_axes_;
};

class UnsqueezeKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    from_input_ = node.opset >= 13;
    attr_axes_ = to_dims(node.attr_ints("axes"));
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument("Unsqueeze: input is missing");
    bool given = false;
    ASSIGN_OR_RETURN(Dims axes, read_axes(ctx, attr_axes_, from_input_, &given));
    if (!given) return InvalidArgument("Unsqueeze: axes are required");
    int64_t r = static_cast<int64_t>(x.rank()) + static_cast<int64_t>(axes.size());
    Dims out = Dims::of_rank(static_cast<size_t>(r), -1);
    for (int64_t a : axes) {
      ASSIGN_OR_RETURN(int64_t ax, normalize_axis(a, r, "Unsqueeze axis"));
      if (out[ax] == 1) return InvalidArgument("Unsqueeze: axis ", a, " is repeated");
      out[ax] = 1;
    }
    size_t j = 0;
    for (int64_t i = 0; i < r; ++i)
      if (out[i] == -1) out[i] = x.dim(j++);
    ctx.set_output(0, RuntimeValue(x.reshaped(std::move(out))));
    return OkStatus();
  }

 private:
  bool from_input_ = false;
  Dims attr_axes_;
};

class ExpandKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return InvalidArgument("Expand: input is missing");
    ASSIGN_OR_RETURN(Dims shape, read_int_list(ctx.input(1), "Expand shape"));
    for (int64_t d : shape)
      if (d < 0) return InvalidArgument("Expand: negative dimension in shape ", shape.to_string());
    ASSIGN_OR_RETURN(Dims out_dims, broadcast_dims(x.dims(), shape));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.dtype(), out_dims));
    strided_copy(x.dtype(), out->raw(), x.raw(), out_dims, broadcast_strides(x.dims(), out_dims));
    return OkStatus();
  }
};

// Range: the element count is computed with overflow checks before anything
// is allocated, so absurd ranges fail cleanly.
class RangeKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const RangeSpec spec, range_spec(ctx.input(0), ctx.input(1), ctx.input(2)));
    const DataType dt = spec.dtype;
    const int64_t n = spec.n;
    if (dtype_is_integer(dt)) {
      const int64_t a = spec.istart, c = spec.idelta;
      ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, dt, Dims{n}));
      visit_numeric(dt, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
          T* o = out->data<T>();
          for (int64_t i = 0; i < n; ++i) o[i] = static_cast<T>(a + i * c);
        }
      });
      return OkStatus();
    }
    const double a = spec.fstart, c = spec.fdelta;
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, dt, Dims{n}));
    visit_numeric(dt, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, float>) {
        float* o = out->data<float>();
        const float fa = static_cast<float>(a), fc = static_cast<float>(c);
        // An int32 counter where it fits: SSE2 has no vector conversion of
        // int64 to float, and the loop stayed scalar (3.4x ONNX Runtime's
        // time for 100K elements).
        if (n <= std::numeric_limits<int32_t>::max()) {
          for (int32_t i = 0; i < static_cast<int32_t>(n); ++i) o[i] = fa + static_cast<float>(i) * fc;
        } else {
          for (int64_t i = 0; i < n; ++i) o[i] = fa + static_cast<float>(i) * fc;
        }
      } else if constexpr (std::is_same_v<T, double>) {
        for (int64_t i = 0; i < n; ++i) out->data<double>()[i] = a + static_cast<double>(i) * c;
      } else if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
        for (int64_t i = 0; i < n; ++i) out->data<T>()[i] = T(static_cast<float>(a + static_cast<double>(i) * c));
      }
    });
    return OkStatus();
  }
};

class EyeLikeKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    k_ = node.attr_int("k", 0);
    ASSIGN_OR_RETURN(dtype_, parse_eye_like_dtype(node));
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(const DataType dt, eye_like_output_type(x, dtype_));
    ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, dt, x.dims()));
    int64_t rows = x.dim(0), cols = x.dim(1);
    size_t es = dtype_size(dt);
    if (out->nbytes()) std::memset(out->raw(), 0, out->nbytes());
    ScalarValue one = scalar_from_double(dt, 1.0);
    // Row i holds its one at column i + k, for i in [max(0, -k), cols - k)
    // within the rows. A k outside (-rows, cols) leaves every row empty and
    // is ruled out first: k may be any int64, and i + k overflowed (fuzz
    // seed 1135).
    if (k_ > -rows && k_ < cols)
      for (int64_t i = std::max<int64_t>(0, -k_); i < std::min(rows, cols - k_); ++i)
        std::memcpy(static_cast<char*>(out->raw()) + (i * cols + i + k_) * es, one.bytes, es);
    return OkStatus();
  }

 private:
  int64_t k_ = 0;
  DataType dtype_ = DataType::kUndefined;
};

}  // namespace

std::unique_ptr<Kernel> make_reshape_view_kernel() { return std::make_unique<ReshapeKernel>(); }
std::unique_ptr<Kernel> make_flatten_view_kernel() { return std::make_unique<FlattenKernel>(); }
std::unique_ptr<Kernel> make_squeeze_view_kernel() { return std::make_unique<SqueezeKernel>(); }
std::unique_ptr<Kernel> make_unsqueeze_view_kernel() { return std::make_unique<UnsqueezeKernel>(); }

void register_shape_kernels(KernelRegistry& r) {
  add_kernel<IdentityKernel>(r, "Identity", 1);
  add_kernel<ConstantKernel>(r, "Constant", 1);
  add_kernel<ConstantOfShapeKernel>(r, "ConstantOfShape", 9, kBit0);
  add_shape_reader<ShapeKernel>(r, "Shape", DeviceKind::kCpu);
  add_shape_reader<SizeKernel>(r, "Size", DeviceKind::kCpu);
  add_kernel<ReshapeKernel>(r, "Reshape", 1, kBit1);
  add_kernel<FlattenKernel>(r, "Flatten", 1);
  add_kernel<SqueezeKernel>(r, "Squeeze", 1, kBit1);
  add_kernel<UnsqueezeKernel>(r, "Unsqueeze", 1, kBit1);
  add_kernel<ExpandKernel>(r, "Expand", 8, kBit1);
  add_kernel<RangeKernel>(r, "Range", 11, kBit0 | kBit1 | kBit2);
  add_kernel<EyeLikeKernel>(r, "EyeLike", 9);
}

}  // namespace tensor_ops

void register_cpu_tensor_kernels(KernelRegistry& r) {
  tensor_ops::register_shape_kernels(r);
  tensor_ops::register_movement_kernels(r);
  tensor_ops::register_index_kernels(r);
  tensor_ops::register_resize_kernels(r);
}

}  // namespace sy

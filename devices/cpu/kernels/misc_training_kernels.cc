// CPU kernels for the ai.onnx.preview.training optimisers: Adagrad, Adam and
// Momentum (standard and Nesterov). Each takes R (learning rate), T (update
// count) and then groups of equally long variadic inputs (X..., G..., ...),
// and returns the updated tensors group by group. Arithmetic is in double.
//
// All kernels are stateless after init(); compute() is const and thread-safe.
#include <cmath>
#include <string>
#include <vector>

#include "devices/cpu/cpu_kernels.h"

namespace sy {
namespace {

constexpr const char* kTrainingDomain = "ai.onnx.preview.training";

struct Scalars {
  double r = 0;
  int64_t t = 0;
  size_t n = 0;  // number of optimised tensors
};

// Validates R, T and the variadic layout (`groups` inputs per tensor), and
// checks that every group member matches X's type and shape.
StatusOr<Scalars> check_inputs(const KernelContext& ctx, size_t groups) {
  const std::string where = ctx.node().describe();
  const size_t ni = ctx.num_inputs();
  if (ni < 2 + groups || (ni - 2) % groups != 0)
    return InvalidArgument(where, ": expected R, T and ", groups, " equally long groups of tensors, got ", ni, " inputs");
  Scalars s;
  s.n = (ni - 2) / groups;
  for (size_t i = 0; i < ni; ++i)
    if (!ctx.input_value(i).is_tensor() || !ctx.input(i).defined())
      return InvalidArgument(where, ": input ", i, " must be a tensor");
  const Tensor& r = ctx.input(0);
  const Tensor& t = ctx.input(1);
  if ((r.dtype() != DataType::kFloat && r.dtype() != DataType::kDouble) || r.numel() != 1)
    return InvalidArgument(where, ": R must be a float or double scalar, got ", r.describe());
  if (t.dtype() != DataType::kInt64 || t.numel() != 1)
    return InvalidArgument(where, ": T must be an int64 scalar, got ", t.describe());
  if (ctx.num_outputs() > (groups - 1) * s.n)
    return InvalidArgument(where, ": expected at most ", (groups - 1) * s.n, " outputs, got ", ctx.num_outputs());
  s.r = r.double_at(0);
  s.t = t.int_at(0);
  for (size_t k = 0; k < s.n; ++k) {
    const Tensor& x = ctx.input(2 + k);
    if (x.dtype() != DataType::kFloat && x.dtype() != DataType::kDouble)
      return InvalidArgument(where, ": input ", 2 + k, " must be float or double, got ", x.describe());
    for (size_t g = 1; g < groups; ++g) {
      const Tensor& y = ctx.input(2 + g * s.n + k);
      if (y.dtype() != x.dtype() || y.dims() != x.dims())
        return InvalidArgument(where, ": input ", 2 + g * s.n + k, " is ", y.describe(), " but X is ", x.describe());
    }
  }
  return s;
}

std::vector<double> load(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = t.dtype() == DataType::kFloat ? static_cast<double>(t.data<float>()[i]) : t.data<double>()[i];
  return v;
}

Status store(KernelContext& ctx, size_t out, const Tensor& like, const std::vector<double>& v) {
  ASSIGN_OR_RETURN(Tensor * o, ctx.allocate_output(out, like.dtype(), like.dims()));
  for (size_t i = 0; i < v.size(); ++i) {
    if (like.dtype() == DataType::kFloat)
      o->data<float>()[i] = static_cast<float>(v[i]);
    else
      o->data<double>()[i] = v[i];
  }
  return OkStatus();
}

class AdagradKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    decay_ = node.attr_float("decay_factor", 0.0f);
    epsilon_ = node.attr_float("epsilon", 1e-6f);
    norm_ = node.attr_float("norm_coefficient", 0.0f);
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(Scalars s, check_inputs(ctx, 3));
    const double r = s.r / (1 + static_cast<double>(s.t) * decay_);
    for (size_t k = 0; k < s.n; ++k) {
      const Tensor& xt = ctx.input(2 + k);
      std::vector<double> x = load(xt), g = load(ctx.input(2 + s.n + k)), h = load(ctx.input(2 + 2 * s.n + k));
      for (size_t i = 0; i < x.size(); ++i) {
        const double gr = norm_ * x[i] + g[i];
        h[i] += gr * gr;
        x[i] -= r * gr / (std::sqrt(h[i]) + epsilon_);
      }
      RETURN_IF_ERROR(store(ctx, k, xt, x));
      RETURN_IF_ERROR(store(ctx, s.n + k, xt, h));
    }
    return OkStatus();
  }

 private:
  double decay_ = 0, epsilon_ = 1e-6, norm_ = 0;
};

class AdamKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    alpha_ = node.attr_float("alpha", 0.9f);
    beta_ = node.attr_float("beta", 0.999f);
    epsilon_ = node.attr_float("epsilon", 1e-6f);
    norm_ = node.attr_float("norm_coefficient", 0.0f);
    norm_post_ = node.attr_float("norm_coefficient_post", 0.0f);
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(Scalars s, check_inputs(ctx, 4));
    double r = s.r;
    if (s.t > 0) {
      const double t = static_cast<double>(s.t);
      r = s.r * std::sqrt(1 - std::pow(beta_, t)) / (1 - std::pow(alpha_, t));
    }
    for (size_t k = 0; k < s.n; ++k) {
      const Tensor& xt = ctx.input(2 + k);
      std::vector<double> x = load(xt), g = load(ctx.input(2 + s.n + k)), v = load(ctx.input(2 + 2 * s.n + k)),
                          h = load(ctx.input(2 + 3 * s.n + k));
      for (size_t i = 0; i < x.size(); ++i) {
        const double gr = norm_ * x[i] + g[i];
        v[i] = alpha_ * v[i] + (1 - alpha_) * gr;
        h[i] = beta_ * h[i] + (1 - beta_) * gr * gr;
        x[i] = (1 - norm_post_) * (x[i] - r * v[i] / (std::sqrt(h[i]) + epsilon_));
      }
      RETURN_IF_ERROR(store(ctx, k, xt, x));
      RETURN_IF_ERROR(store(ctx, s.n + k, xt, v));
      RETURN_IF_ERROR(store(ctx, 2 * s.n + k, xt, h));
    }
    return OkStatus();
  }

 private:
  double alpha_ = 0.9, beta_ = 0.999, epsilon_ = 1e-6, norm_ = 0, norm_post_ = 0;
};

class MomentumKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    for (const char* a : {"alpha", "beta", "norm_coefficient", "mode"})
      if (!node.has_attr(a)) return InvalidArgument(node.describe(), ": attribute '", a, "' is required");
    alpha_ = node.attr_float("alpha", 0);
    beta_ = node.attr_float("beta", 0);
    norm_ = node.attr_float("norm_coefficient", 0);
    const std::string mode = node.attr_string("mode", "");
    if (mode != "standard" && mode != "nesterov")
      return InvalidArgument(node.describe(), ": mode must be 'standard' or 'nesterov', got '", mode, "'");
    nesterov_ = mode == "nesterov";
    return OkStatus();
  }
  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(Scalars s, check_inputs(ctx, 3));
    const double beta = s.t > 0 ? beta_ : 1.0;  // the first update uses the raw gradient
    for (size_t k = 0; k < s.n; ++k) {
      const Tensor& xt = ctx.input(2 + k);
      std::vector<double> x = load(xt), g = load(ctx.input(2 + s.n + k)), v = load(ctx.input(2 + 2 * s.n + k));
      for (size_t i = 0; i < x.size(); ++i) {
        const double gr = norm_ * x[i] + g[i];
        v[i] = alpha_ * v[i] + beta * gr;
        x[i] -= nesterov_ ? s.r * (gr + alpha_ * v[i]) : s.r * v[i];
      }
      RETURN_IF_ERROR(store(ctx, k, xt, x));
      RETURN_IF_ERROR(store(ctx, s.n + k, xt, v));
    }
    return OkStatus();
  }

 private:
  double alpha_ = 0, beta_ = 0, norm_ = 0;
  bool nesterov_ = false;
};

void add(KernelRegistry& r, const char* op, KernelFactory f) {
  KernelDef d;
  d.domain = kTrainingDomain;
  d.op = op;
  d.since_version = 1;
  d.factory = f;
  d.host_inputs = (1u << 0) | (1u << 1);  // R and T are host scalars
  r.add(std::move(d));
}

}  // namespace

void register_cpu_misc_training_kernels(KernelRegistry& r) {
  add(r, "Adagrad", &make_kernel<AdagradKernel>);
  add(r, "Adam", &make_kernel<AdamKernel>);
  add(r, "Momentum", &make_kernel<MomentumKernel>);
}

}  // namespace sy

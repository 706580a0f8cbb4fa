// CPU SoftmaxCrossEntropyLoss and NegativeLogLikelihoodLoss. Both view the
// input as [N, C, D] (D = product of the trailing dims) and the labels as
// [N, D]; SoftmaxCrossEntropyLoss is NLL applied to LogSoftmax over C.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "devices/cpu/cpu_kernels.h"
#include "devices/cpu/kernels/loss_plan.h"
#include "devices/cpu/kernels/reduction_common.h"

namespace sy {

namespace loss {

StatusOr<Attrs> parse_attrs(const Node& node) {
  Attrs a;
  a.softmax = node.op_type == "SoftmaxCrossEntropyLoss";
  const std::string red = node.attr_string("reduction", "mean");
  if (red == "none") a.reduction = Reduction::kNone;
  else if (red == "sum") a.reduction = Reduction::kSum;
  else if (red == "mean") a.reduction = Reduction::kMean;
  else return InvalidArgument(node.describe(), ": unknown reduction '", red, "'");
  if (node.has_attr("ignore_index")) a.ignore_index = node.attr_int("ignore_index", 0);
  return a;
}

StatusOr<Plan> plan(const KernelContext& ctx, const Attrs& a) {
  using reduce_detail::check_float_input;
  const Node& node = ctx.node();
  const Tensor& x = ctx.input(0);
  const Tensor& labels = ctx.input(1);
  RETURN_IF_ERROR(check_float_input(node, x, a.softmax ? "scores" : "input"));
  if (!labels.defined() || (labels.dtype() != DataType::kInt32 && labels.dtype() != DataType::kInt64))
    return InvalidArgument(node.describe(), ": labels must be an int32 or int64 tensor");
  if (x.rank() < 2) return InvalidArgument(node.describe(), ": input must have rank >= 2, got ", x.describe());
  Plan p;
  p.n = x.dim(0);
  p.c = x.dim(1);
  p.d = reduce_detail::prod(x.dims(), 2, x.rank());
  Dims label_dims = x.dims();
  label_dims.erase(1);
  if (labels.dims() != label_dims)
    return InvalidArgument(node.describe(), ": labels shape ", labels.dims().to_string(), " does not match input ",
                           x.dims().to_string());
  const Tensor& wt = ctx.input(2);
  if (wt.defined()) {
    RETURN_IF_ERROR(check_float_input(node, wt, "weights"));
    if (wt.rank() != 1 || wt.dim(0) != p.c)
      return InvalidArgument(node.describe(), ": weights must have shape [", p.c, "], got ", wt.describe());
  }
  if (a.reduction == Reduction::kNone) p.loss_dims = label_dims;
  return p;
}

}  // namespace loss

namespace {

using namespace reduce_detail;
using loss::Reduction;

class LossKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(a_, loss::parse_attrs(node));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const loss::Plan p, loss::plan(ctx, a_));
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    const Tensor& labels = ctx.input(1);
    const Tensor& wt = ctx.input(2);
    const int64_t n = p.n, c = p.c, d = p.d;
    // Validate labels before writing anything.
    std::vector<int64_t> lab(static_cast<size_t>(labels.numel()));
    for (int64_t i = 0; i < labels.numel(); ++i) {
      int64_t v = labels.int_at(i);
      if (a_.ignore_index && v == *a_.ignore_index) {
        v = -1;
      } else if (v < 0 || v >= c) {
        return OutOfRange(node.describe(), ": label ", v, " at position ", i, " is outside [0, ", c, ")");
      }
      lab[static_cast<size_t>(i)] = v;
    }
    ASSIGN_OR_RETURN(Tensor * loss, ctx.allocate_output(0, x.dtype(), p.loss_dims));
    Tensor* log_prob = nullptr;
    if (a_.softmax && ctx.output_wanted(1)) {
      ASSIGN_OR_RETURN(log_prob, ctx.allocate_output(1, x.dtype(), x.dims()));
    }
    visit_float(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      using C = ComputeT<T>;
      const T* in = x.data<T>();
      // lp: log-probabilities as [N, C, D] in compute precision.
      std::vector<C> lp;
      if (a_.softmax) {
        lp.resize(static_cast<size_t>(x.numel()));
        parallel_rows(n, c * d * 4, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i)
            for (int64_t k = 0; k < d; ++k) {
              const T* p = in + i * c * d + k;
              C* q = lp.data() + i * c * d + k;
              C mx = -std::numeric_limits<C>::infinity();
              for (int64_t j = 0; j < c; ++j) mx = std::max(mx, C(load(p[j * d])));
              C s = 0;
              for (int64_t j = 0; j < c; ++j) s += std::exp(C(load(p[j * d])) - mx);
              const C lse = mx + std::log(s);
              for (int64_t j = 0; j < c; ++j) q[j * d] = C(load(p[j * d])) - lse;
            }
        });
        if (log_prob) {
          T* o = log_prob->data<T>();
          for (size_t i = 0; i < lp.size(); ++i) o[i] = store<T>(lp[i]);
        }
      }
      auto logp = [&](int64_t i, int64_t j, int64_t k) -> C {
        const int64_t off = (i * c + j) * d + k;
        return a_.softmax ? lp[static_cast<size_t>(off)] : C(load(in[off]));
      };
      std::vector<C> w;
      if (wt.defined()) w = read_floats<C>(wt);
      T* out = loss->data<T>();
      double total = 0, wsum = 0;
      for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < d; ++k) {
          const int64_t li = lab[static_cast<size_t>(i * d + k)];
          C l = 0, wi = 0;
          if (li >= 0) {
            wi = w.empty() ? C(1) : w[static_cast<size_t>(li)];
            l = -logp(i, li, k) * wi;
          }
          if (a_.reduction == Reduction::kNone) out[i * d + k] = store<T>(l);
          total += static_cast<double>(l);
          wsum += static_cast<double>(wi);
        }
      if (a_.reduction == Reduction::kSum) out[0] = store<T>(static_cast<C>(total));
      if (a_.reduction == Reduction::kMean) out[0] = store<T>(static_cast<C>(total / wsum));  // 0/0 = NaN like ONNX
    });
    return OkStatus();
  }

 private:
  loss::Attrs a_;
};

}  // namespace

void register_cpu_loss_kernels(KernelRegistry& r) {
  for (const char* op : {"SoftmaxCrossEntropyLoss", "NegativeLogLikelihoodLoss"}) {
    r.add(cpu_def(op, 12, INT_MAX, &make_kernel<LossKernel>, float_types()));
  }
}

}  // namespace sy

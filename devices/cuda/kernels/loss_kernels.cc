// CUDA SoftmaxCrossEntropyLoss and NegativeLogLikelihoodLoss. The
// attributes and checks are the CPU kernel's (loss_plan.h), so both
// backends accept and refuse the same nodes; the device work is in
// loss_launch.cu. The labels stay in device memory and the kernel checks
// them there (Launch::error_flag): a label out of range fails the task with
// OutOfRange when it completes. Before, a training graph's loss sent its
// logits to the CPU and back.
//
// Thread-safety: compute() is const and keeps no state beyond attributes
// parsed in init().
#include "devices/cpu/kernels/loss_plan.h"
#include "devices/cuda/cuda_launch.h"
#include "devices/cuda/kernels/blas_dnn_common.h"
#include "devices/cuda/kernels/cuda_kernels.h"
#include "devices/cuda/kernels/loss_launch.h"

namespace sy::cuda {
namespace {

class LossKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(a_, loss::parse_attrs(node));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const loss::Plan p, loss::plan(ctx, a_));
    const Tensor& x = ctx.input(0);
    const Tensor& labels = ctx.input(1);
    const Tensor& w = ctx.input(2);
    // The ONNX type constraint gives the weights the input's type; the CPU
    // kernel also reads other float types.
    if (w.defined() && w.dtype() != x.dtype())
      return Unimplemented("CUDA ", ctx.node().op_type, ": weights of another type than the input run on the CPU");
    ASSIGN_OR_RETURN(Tensor * loss, ctx.allocate_output(0, x.dtype(), p.loss_dims));
    Tensor* log_prob = nullptr;
    if (a_.softmax && ctx.output_wanted(1)) {
      ASSIGN_OR_RETURN(log_prob, ctx.allocate_output(1, x.dtype(), x.dims()));
    }
    LossMeta m;
    m.n = p.n;
    m.c = p.c;
    m.d = p.d;
    m.softmax = a_.softmax;
    m.per_point = a_.reduction == loss::Reduction::kNone;
    m.mean = a_.reduction == loss::Reduction::kMean;
    m.has_ignore = a_.ignore_index.has_value();
    m.ignore_index = a_.ignore_index.value_or(0);
    const int64_t points = p.n * p.d;
    if (m.per_point && points == 0) return OkStatus();
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    Tensor partial;
    if (!m.per_point) {
      ASSIGN_OR_RETURN(partial, dnn::scratch(ctx, DataType::kDouble, Dims{2 * points}));
    }
    ASSIGN_OR_RETURN(int* bad, l.error_flag(a_.softmax ? "SoftmaxCrossEntropyLoss: a label is outside [0, C)"
                                                       : "NegativeLogLikelihoodLoss: a label is outside [0, C)"));
    CUDA_RETURN_IF_ERROR(launch_loss(static_cast<int>(x.dtype()), static_cast<int>(labels.dtype()), m, x.raw(),
                                     labels.raw(), w.defined() ? w.raw() : nullptr, loss->raw(),
                                     log_prob ? log_prob->raw() : nullptr,
                                     partial.defined() ? partial.data<double>() : nullptr, bad, l.stream));
    return OkStatus();
  }

 private:
  loss::Attrs a_;
};

}  // namespace

void register_cuda_loss_kernels(KernelRegistry& r) {
  for (const char* op : {"SoftmaxCrossEntropyLoss", "NegativeLogLikelihoodLoss"})
    add_cuda_kernel<LossKernel>(r, op, 12,
                                {DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kBFloat16});
}

}  // namespace sy::cuda

// CUDA RotaryEmbedding (opset 23), float, float16 and bfloat16. Attributes
// and shapes are the CPU kernel's (attention_common.h); a position id
// outside the caches fails the task through the launch's error flag, as
// the CPU kernel fails it before computing. Attention itself runs on the
// CPU (no CUDA kernel yet), which placement handles like any other op.
#include "devices/cpu/kernels/attention_common.h"
#include "devices/cuda/cuda_launch.h"
#include "devices/cuda/kernels/attention_launch.h"
#include "devices/cuda/kernels/cuda_kernels.h"

namespace sy::cuda {
namespace {

using attention::RotaryAttrs;
using attention::RotaryShape;

class RotaryEmbeddingKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(attrs_, RotaryAttrs::parse(node));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Node& node = ctx.node();
    const Tensor& x = ctx.input(0);
    const Tensor* ids = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    const DataType t = x.dtype();
    if (t != DataType::kFloat && t != DataType::kFloat16 && t != DataType::kBFloat16)
      return Unimplemented(node.describe(), ": X of type ", dtype_name(t), " on CUDA");
    ASSIGN_OR_RETURN(RotaryShape s, resolve_rotary_shape(node, attrs_, x, ctx.input(1), ctx.input(2), ids));
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, t, x.dims()));
    RotaryMeta m;
    m.batch = s.batch;
    m.heads = s.heads;
    m.len = s.len;
    m.head = s.head;
    m.rotary_dim = s.rotary_dim;
    m.three_d = x.rank() == 3;
    m.interleaved = attrs_.interleaved;
    m.positions = s.positions;
    int* bad = nullptr;
    if (ids) {
      ASSIGN_OR_RETURN(bad, l.error_flag("RotaryEmbedding: a position id is outside the caches"));
    }
    CUDA_RETURN_IF_ERROR(launch_rotary_embedding(static_cast<int>(t), x.raw(), ctx.input(1).raw(),
                                                 ctx.input(2).raw(), ids ? ids->data<int64_t>() : nullptr, y->raw(),
                                                 m, bad, l.stream));
    return OkStatus();
  }

 private:
  RotaryAttrs attrs_;
};

}  // namespace

void register_cuda_attention_kernels(KernelRegistry& r) {
  add_cuda_kernel<RotaryEmbeddingKernel>(r, "RotaryEmbedding", 23,
                                         {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16});
}

}  // namespace sy::cuda

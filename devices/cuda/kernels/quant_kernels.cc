// CUDA QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear and Dropout.
// Checks and attributes are the CPU kernels' (elementwise_common.h's
// plan_quantize, plan_dequantize and dropout_mode), so both backends accept
// and refuse the same nodes; the device work is in quant_launch.cu.
//
// Without these, a QDQ model's every QuantizeLinear / DequantizeLinear
// pair, and every Dropout an exporter left in, sent its tensor to the CPU
// and back between two GPU nodes.
//
// Thread-safety: compute() is const and keeps no state beyond attributes
// parsed in init().
#include <climits>

#include "devices/cpu/kernels/elementwise_common.h"
#include "devices/cuda/cuda_launch.h"
#include "devices/cuda/kernels/blas_dnn_common.h"
#include "devices/cuda/kernels/cuda_kernels.h"
#include "devices/cuda/kernels/quant_launch.h"

namespace sy::cuda {
namespace {

using elementwise::QuantAttrs;
using elementwise::QuantPlan;

static_assert(kQuantIntTypes == elementwise::kQuantTypes && kQuantInputFloats == elementwise::kQuantInputTypes);

int code(DataType t) { return static_cast<int>(t); }

QuantAxis axis_of(const QuantPlan& p) {
  return QuantAxis{p.params.count, p.params.inner, p.params.block, p.params.axis_len};
}

const void* zero_point(const KernelContext& ctx) { return ctx.has_input(2) ? ctx.input(2).raw() : nullptr; }

class QuantizeLinearKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(attrs_, elementwise::quant_attrs(node));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const QuantPlan plan, elementwise::plan_quantize(ctx, attrs_));
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, plan.out_type, x.dims()));
    if (x.numel() == 0) return OkStatus();
    // As on the CPU: a double x or scale, or precision double, divides in
    // double; everything else in float.
    const bool wide =
        attrs_.precision_double || x.dtype() == DataType::kDouble || ctx.input(1).dtype() == DataType::kDouble;
    const DataType calc = wide ? DataType::kDouble : DataType::kFloat;
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    Tensor converted;
    // The scale as values of the compute type (a float16 scale computed in
    // float, say).
    ASSIGN_OR_RETURN(const void* scale, dnn::as_type(ctx, l.stream, ctx.input(1), calc, converted));
    CUDA_RETURN_IF_ERROR(launch_quantize(code(x.dtype()), code(plan.out_type), code(calc), x.raw(), scale,
                                         zero_point(ctx), y->raw(), x.numel(), axis_of(plan), l.stream));
    return OkStatus();
  }

 private:
  QuantAttrs attrs_;
};

class DequantizeLinearKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(attrs_, elementwise::quant_attrs(node));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const QuantPlan plan, elementwise::plan_dequantize(ctx, attrs_));
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, plan.out_type, x.dims()));
    if (x.numel() == 0) return OkStatus();
    // The CPU computes in the scale's compute type.
    const DataType calc = ctx.input(1).dtype() == DataType::kDouble ? DataType::kDouble : DataType::kFloat;
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    Tensor converted;
    // The scale as values of the compute type (a float16 scale computed in
    // float, say).
    ASSIGN_OR_RETURN(const void* scale, dnn::as_type(ctx, l.stream, ctx.input(1), calc, converted));
    CUDA_RETURN_IF_ERROR(launch_dequantize(code(x.dtype()), code(plan.out_type), code(calc), x.raw(), scale,
                                           zero_point(ctx), y->raw(), x.numel(), axis_of(plan), l.stream));
    return OkStatus();
  }

 private:
  QuantAttrs attrs_;
};

class DynamicQuantizeLinearKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    RETURN_IF_ERROR(elementwise::require_tensor(ctx, 0, "x"));
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DataType::kFloat)
      return elementwise::unsupported_type(ctx, x.dtype(), elementwise::type_bit(DataType::kFloat));
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, DataType::kUInt8, x.dims()));
    ASSIGN_OR_RETURN(Tensor * scale, ctx.allocate_output(1, DataType::kFloat, Dims{}));
    ASSIGN_OR_RETURN(Tensor * zero, ctx.allocate_output(2, DataType::kUInt8, Dims{}));
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    CUDA_RETURN_IF_ERROR(launch_dynamic_quantize(x.data<float>(), y->data<uint8_t>(), scale->data<float>(),
                                                 zero->data<uint8_t>(), x.numel(), l.stream));
    return OkStatus();
  }
};

// Inference (the default): the output is the input itself and the mask all
// ones. Training mode with a ratio above 0 draws its mask with the CPU
// kernel's generator, so this kernel declines it and the node runs there.
class DropoutKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ratio_attr_ = node.attr_float("ratio", 0.5f);
    mask_is_bool_ = node.opset >= 10;
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    RETURN_IF_ERROR(elementwise::require_tensor(ctx, 0, "data"));
    const Tensor& x = ctx.input(0);
    if (!elementwise::dtype_in_mask(x.dtype(), kEwFloats))
      return elementwise::unsupported_type(ctx, x.dtype(), kEwFloats);
    ASSIGN_OR_RETURN(const elementwise::DropoutMode mode, elementwise::dropout_mode(ctx, ratio_attr_));
    if (mode.training && mode.ratio > 0.0f)
      return Unimplemented(ctx.node().describe(), ": training-mode Dropout draws its mask on the CPU");
    ctx.set_output(0, RuntimeValue(x));
    if (!ctx.output_wanted(1)) return OkStatus();
    ASSIGN_OR_RETURN(Tensor * mask, ctx.allocate_output(1, mask_is_bool_ ? DataType::kBool : x.dtype(), x.dims()));
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    CUDA_RETURN_IF_ERROR(launch_fill_ones(code(mask->dtype()), mask->raw(), mask->numel(), l.stream));
    return OkStatus();
  }

 private:
  float ratio_attr_ = 0.5f;
  bool mask_is_bool_ = true;
};

std::vector<DataType> types_of(uint32_t mask) { return elementwise::types_of(mask); }

}  // namespace

void register_cuda_quant_kernels(KernelRegistry& r) {
  // As on the CPU (elementwise_quant.cc); Dropout's ratio and training_mode
  // are read on the host.
  add_cuda_kernel<QuantizeLinearKernel>(r, "QuantizeLinear", 10, types_of(kQuantInputFloats));
  add_cuda_kernel<DequantizeLinearKernel>(r, "DequantizeLinear", 10, types_of(kQuantIntTypes));
  add_cuda_kernel<DynamicQuantizeLinearKernel>(r, "DynamicQuantizeLinear", 11, {DataType::kFloat});
  add_cuda_kernel<DropoutKernel>(r, "Dropout", 1, types_of(kEwFloats), 0b110);
}

}  // namespace sy::cuda

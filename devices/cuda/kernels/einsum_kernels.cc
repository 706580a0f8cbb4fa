// CUDA Einsum and Det. The equation and shape analysis is the CPU kernel's
// (einsum_plan.h), so both backends accept and refuse the same nodes. A
// two-input batched product (einsum::as_gemm) in a float type is one
// strided-batched cuBLAS GEMM, its operands laid out first where the
// inputs' own layout does not already fit and its product permuted into
// the output's order where that differs (both by copy_view, the movement
// kernels' strided copy); everything else, and integers, runs in
// einsum_launch.cu's one-thread-per-output kernel. Einsums with more than
// kEinsumMaxInputs inputs or kEinsumMaxLabels labels decline to the CPU.
//
// Thread-safety: compute() is const and keeps no state beyond the equation
// parsed in init().
#include <algorithm>
#include <cstdint>
#include <vector>

#include "devices/cpu/kernels/einsum_plan.h"
#include "devices/cpu/kernels/reduction_common.h"
#include "devices/cuda/kernels/blas_dnn_common.h"
#include "devices/cuda/kernels/cuda_kernels.h"
#include "devices/cuda/kernels/einsum_launch.h"
#include "devices/cuda/kernels/movement_common.h"

namespace sy::cuda {
namespace {

int code(DataType t) { return static_cast<int>(t); }

// A GEMM operand: the input itself when already laid out as `groups`
// order, else a dense copy in `keep`.
StatusOr<const void*> operand(KernelContext& ctx, const Launch& l, const einsum::Plan& p, size_t input,
                              std::initializer_list<const std::vector<int>*> groups, Tensor* keep) {
  const einsum::View v = einsum::view_of(p, input, groups);
  if (v.contiguous()) return ctx.input(input).raw();
  ASSIGN_OR_RETURN(*keep, dnn::scratch(ctx, p.dtype, Dims{v.dims.numel()}));
  RETURN_IF_ERROR(copy_view(l, p.dtype, keep->raw(), ctx.input(input).raw(), v.dims, v.strides));
  return static_cast<const void*>(keep->raw());
}

Status run_gemm(KernelContext& ctx, const Launch& l, const einsum::Plan& p, const einsum::Gemm& g, Tensor* y) {
  ASSIGN_OR_RETURN(const dnn::GemmTypes gt, dnn::gemm_types(p.dtype, "Einsum"));
  Tensor a_copy, b_copy, product;
  ASSIGN_OR_RETURN(const void* a, operand(ctx, l, p, 0, {&g.batch, &g.m, &g.k}, &a_copy));
  ASSIGN_OR_RETURN(const void* b, operand(ctx, l, p, 1, {&g.batch, &g.k, &g.n}, &b_copy));
  const std::vector<int> c_labels = g.product_labels();
  const bool direct = c_labels == p.out_labels;
  if (!direct) {
    ASSIGN_OR_RETURN(product, dnn::scratch(ctx, p.dtype, Dims{g.nb * g.M * g.N}));
  }
  void* c = direct ? y->raw() : product.raw();
  ASSIGN_OR_RETURN(cublasHandle_t h, l.cublas());
  CUDA_RETURN_IF_ERROR(cublas_api().SetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  // Row-major C = A B per batch is the column-major C^T = B^T A^T.
  const dnn::Scalars sc(1.0, 0.0);
  const int64_t M = g.M, N = g.N, K = g.K;
  CUDA_RETURN_IF_ERROR(cublas_api().GemmStridedBatchedEx_64(
      h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, sc.alpha(p.dtype), b, gt.data, N, K * N, a, gt.data, K, M * K,
      sc.beta(p.dtype), c, gt.data, N, M * N, g.nb, gt.compute, CUBLAS_GEMM_DEFAULT));
  if (direct) return OkStatus();
  return copy_view(l, p.dtype, y->raw(), product.raw(), p.out_dims, einsum::strides_in_output_order(p, c_labels));
}

class EinsumKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    ASSIGN_OR_RETURN(spec_, einsum::parse(node));
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const einsum::Plan p, einsum::plan(ctx, spec_));
    if (!(kEinsumTypes & ew_bit(code(p.dtype))))
      return Unimplemented("CUDA Einsum: ", dtype_name(p.dtype), " runs on the CPU");
    if (p.nin > static_cast<size_t>(kEinsumMaxInputs) ||
        p.out_labels.size() + p.sum_labels.size() > static_cast<size_t>(kEinsumMaxLabels))
      return Unimplemented("CUDA Einsum: more than ", kEinsumMaxInputs, " inputs or ", kEinsumMaxLabels,
                           " labels runs on the CPU");
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, p.dtype, p.out_dims));
    if (y->numel() == 0) return OkStatus();
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    const bool floating = p.dtype != DataType::kInt32 && p.dtype != DataType::kInt64;
    if (floating) {
      if (const auto g = einsum::as_gemm(p)) return run_gemm(ctx, l, p, *g, y);
    }
    EinsumMeta m;
    m.nin = static_cast<int32_t>(p.nin);
    m.out_rank = static_cast<int32_t>(p.out_labels.size());
    m.sum_rank = static_cast<int32_t>(p.sum_labels.size());
    m.sum_n = p.size_of(p.sum_labels);
    const std::vector<int64_t> out_size = p.sizes_of(p.out_labels), sum_size = p.sizes_of(p.sum_labels);
    std::copy(out_size.begin(), out_size.end(), m.out_size);
    std::copy(sum_size.begin(), sum_size.end(), m.sum_size);
    for (size_t i = 0; i < p.nin; ++i) {
      const std::vector<int64_t> os = p.strides_of(i, p.out_labels), ss = p.strides_of(i, p.sum_labels);
      std::copy(os.begin(), os.end(), m.out_stride[i]);
      std::copy(ss.begin(), ss.end(), m.sum_stride[i]);
      m.in[i] = ctx.input(i).raw();
    }
    CUDA_RETURN_IF_ERROR(launch_einsum(code(p.dtype), m, y->raw(), y->numel(), l.stream));
    return OkStatus();
  }

 private:
  einsum::Spec spec_;
};

// Det, batched: one thread per matrix, in double. Its serial m^3 work
// suits small matrices only; past kMaxDetOrder the CPU's threads win.
class DetKernel final : public Kernel {
 public:
  static constexpr int64_t kMaxDetOrder = 64;

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(const Dims od, reduce_detail::det_output_dims(ctx.node(), x));
    const int64_t m = x.dim(x.rank() - 1);
    if (m > kMaxDetOrder) return Unimplemented("CUDA Det: matrices past ", kMaxDetOrder, " rows run on the CPU");
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), od));
    if (y->numel() == 0) return OkStatus();
    ASSIGN_OR_RETURN(Tensor work, dnn::scratch(ctx, DataType::kDouble, Dims{x.numel()}));
    CUDA_RETURN_IF_ERROR(launch_det(code(x.dtype()), x.raw(), y->raw(), work.data<double>(), y->numel(), m, l.stream));
    return OkStatus();
  }
};

}  // namespace

void register_cuda_einsum_kernels(KernelRegistry& r) {
  add_cuda_kernel<EinsumKernel>(r, "Einsum", 12,
                                {DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kBFloat16,
                                 DataType::kInt32, DataType::kInt64});
  add_cuda_kernel<DetKernel>(r, "Det", 11,
                             {DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kBFloat16});
}

}  // namespace sy::cuda

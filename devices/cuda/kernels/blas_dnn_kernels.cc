// CUDA MatMul and Gemm on cuBLAS, plus the registration of the whole
// cuBLAS / cuDNN family (Conv* in dnn_conv_kernels.cc, pooling,
// normalisation and softmax in dnn_kernels.cc).
//
// cuBLAS is column-major: a row-major [R, C] matrix is its column-major
// transpose, so row-major Y = op(A) op(B) is computed as the column-major
// Y^T = op(B)^T op(A)^T by passing B first. Products use CUBLAS_COMPUTE_32F
// (64F for double): no TF32, so results stay within the CPU's tolerance.
// float16 and bfloat16 products accumulate in float and round once, as the
// CPU kernels do.
#include <cstdint>
#include <vector>

#include "devices/cpu/kernels/nn_common.h"
#include "devices/cuda/kernels/blas_dnn_common.h"
#include "devices/cuda/kernels/cuda_kernels.h"

namespace sy::cuda {
namespace {

using dnn::gemm_types;
using dnn::GemmTypes;
using dnn::Scalars;

const void* at(const Tensor& t, int64_t elem_offset, size_t elem) {
  return static_cast<const char*>(t.raw()) + elem_offset * static_cast<int64_t>(elem);
}
void* at(Tensor& t, int64_t elem_offset, size_t elem) {
  return static_cast<char*>(t.raw()) + elem_offset * static_cast<int64_t>(elem);
}

class MatMulKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (!a.defined() || !b.defined()) return InvalidArgument("MatMul: missing input");
    if (a.dtype() != b.dtype())
      return InvalidArgument("MatMul: input types differ: ", a.describe(), " vs ", b.describe());
    ASSIGN_OR_RETURN(GemmTypes gt, gemm_types(a.dtype(), "MatMul"));
    ASSIGN_OR_RETURN(nn::MatMulPlan p, nn::plan_matmul(a.dims(), b.dims(), "MatMul"));
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, a.dtype(), p.out));
    if (y->numel() == 0) return OkStatus();
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    if (p.K == 0) {  // empty sum: cuBLAS is not asked to define it
      CUDA_RETURN_IF_ERROR(cudaMemsetAsync(y->raw(), 0, y->nbytes(), l.stream));
      return OkStatus();
    }
    ASSIGN_OR_RETURN(cublasHandle_t h, l.cublas());
    CUDA_RETURN_IF_ERROR(cublas_api().SetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    const Scalars sc(1.0, 0.0);
    const DataType dt = a.dtype();
    const int64_t M = p.M, N = p.N, K = p.K, MK = M * K, MN = M * N;
    const int64_t nb = static_cast<int64_t>(p.a_off.size());

    // B shared by every batch and the A blocks consecutive: one tall GEMM.
    bool fold = nb > 1;
    for (int64_t i = 1; fold && i < nb; ++i) fold = p.b_off[i] == p.b_off[0] && p.a_off[i] == p.a_off[0] + i * MK;
    if (fold) {
      CUDA_RETURN_IF_ERROR(cublas_api().GemmEx_64(
          h, CUBLAS_OP_N, CUBLAS_OP_N, N, M * nb, K, sc.alpha(dt), at(b, p.b_off[0], gt.elem), gt.data, N,
          at(a, p.a_off[0], gt.elem), gt.data, K, sc.beta(dt), y->raw(), gt.data, N, gt.compute, CUBLAS_GEMM_DEFAULT));
      return OkStatus();
    }
    // Runs of batches with fixed strides: one strided-batched call each.
    for (const nn::BatchRun& r : nn::batch_runs(p)) {
      const int64_t i = r.first;
      if (r.count == 1) {
        CUDA_RETURN_IF_ERROR(cublas_api().GemmEx_64(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, sc.alpha(dt),
                                                    at(b, p.b_off[i], gt.elem), gt.data, N, at(a, p.a_off[i], gt.elem),
                                                    gt.data, K, sc.beta(dt), at(*y, i * MN, gt.elem), gt.data, N,
                                                    gt.compute, CUBLAS_GEMM_DEFAULT));
      } else {
        CUDA_RETURN_IF_ERROR(cublas_api().GemmStridedBatchedEx_64(
            h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, sc.alpha(dt), at(b, p.b_off[i], gt.elem), gt.data, N, r.b_stride,
            at(a, p.a_off[i], gt.elem), gt.data, K, r.a_stride, sc.beta(dt), at(*y, i * MN, gt.elem), gt.data, N, MN,
            r.count, gt.compute, CUBLAS_GEMM_DEFAULT));
      }
    }
    return OkStatus();
  }
};

class GemmKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    alpha_ = node.attr_float("alpha", 1.f);
    beta_ = node.attr_float("beta", 1.f);
    trans_a_ = node.attr_int("transA", 0) != 0;
    trans_b_ = node.attr_int("transB", 0) != 0;
    return OkStatus();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    const Tensor* c = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    ASSIGN_OR_RETURN(nn::GemmPlan plan, nn::plan_gemm(a, b, c, trans_a_, trans_b_));
    const int64_t M = plan.M, K = plan.K, N = plan.N, cs_m = plan.cs_m, cs_n = plan.cs_n;
    ASSIGN_OR_RETURN(GemmTypes gt, gemm_types(a.dtype(), "Gemm"));
    const bool use_c = c && beta_ != 0.f && c->numel() > 0;
    // With no product to add, Y = beta * C: cuBLAS is not asked for an
    // empty sum, and the CPU kernel scales C (rare enough to leave there).
    const bool no_product = K == 0 || alpha_ == 0.f;
    if (no_product && use_c && beta_ != 1.f) return Unimplemented("Gemm: beta * C alone on CUDA");
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, a.dtype(), Dims{M, N}));
    if (y->numel() == 0) return OkStatus();
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    const DataType dt = a.dtype();
    // Y starts as C (broadcast), and the GEMM computes alpha * AB + beta * Y,
    // rounding once; without C (or with beta 0) it overwrites Y.
    if (use_c) CUDA_RETURN_IF_ERROR(launch_broadcast_copy(c->raw(), y->raw(), gt.elem, M, N, cs_m, cs_n, l.stream));
    if (no_product) {
      if (!use_c) CUDA_RETURN_IF_ERROR(cudaMemsetAsync(y->raw(), 0, y->nbytes(), l.stream));
      return OkStatus();
    }
    ASSIGN_OR_RETURN(cublasHandle_t h, l.cublas());
    CUDA_RETURN_IF_ERROR(cublas_api().SetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    const Scalars sc(static_cast<double>(alpha_), use_c ? static_cast<double>(beta_) : 0.0);
    CUDA_RETURN_IF_ERROR(cublas_api().GemmEx_64(h, trans_b_ ? CUBLAS_OP_T : CUBLAS_OP_N,
                                                trans_a_ ? CUBLAS_OP_T : CUBLAS_OP_N, N, M, K, sc.alpha(dt), b.raw(),
                                                gt.data, b.dim(1), a.raw(), gt.data, a.dim(1), sc.beta(dt), y->raw(),
                                                gt.data, N, gt.compute, CUBLAS_GEMM_DEFAULT));
    return OkStatus();
  }

 private:
  float alpha_ = 1.f, beta_ = 1.f;
  bool trans_a_ = false, trans_b_ = false;
};

}  // namespace

void register_cuda_blas_dnn_kernels(KernelRegistry& r) {
  const std::vector<DataType> types = {DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kBFloat16};
  add_cuda_kernel<MatMulKernel>(r, "MatMul", 1, types);
  add_cuda_kernel<GemmKernel>(r, "Gemm", 1, types);
  dnn::register_conv_kernels(r);
  dnn::register_dnn_kernels(r);
}

}  // namespace sy::cuda

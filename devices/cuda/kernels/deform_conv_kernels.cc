// CUDA DeformConv (opsets 19 and 22), 1-D to 3-D, float, double and the
// half types. The checks are the CPU kernel's (nn::plan_deform_conv), so
// both backends accept and refuse the same nodes with the same messages.
// As on the CPU, it is a deformable im2col and a GEMM a group:
//   1. Y = the bias rows (deform_conv_launch.cu);
//   2. col = the deformable im2col of a chunk of images;
//   3. Y[n, group] += W[group] x col[n, group], one strided-batched cuBLAS
//      call a group over the chunk's images (W's stride 0).
// The half types compute as the CPU does, in float: W is converted once,
// the columns and Y accumulate in float, and Y is rounded once at the end.
// Before, a detection model's deformable convolutions sent their inputs
// to the CPU and back.
//
// Thread-safety: compute() is const and keeps no state beyond attributes
// parsed in init().
#include <algorithm>

#include "devices/cpu/kernels/nn_common.h"
#include "devices/cuda/cuda_launch.h"
#include "devices/cuda/cuda_libraries.h"
#include "devices/cuda/kernels/blas_dnn_common.h"
#include "devices/cuda/kernels/cuda_kernels.h"
#include "devices/cuda/kernels/deform_conv_launch.h"
#include "devices/cuda/kernels/elementwise_launch.h"

namespace sy::cuda {
namespace {

class DeformConvKernel final : public Kernel {
 public:
  Status init(const Node& node) override { return attrs_.parse(node); }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const nn::DeformConvPlan p, nn::plan_deform_conv(ctx, attrs_));
    const nn::ConvShape& s = p.s;
    const nn::Window& w = s.w;
    const Tensor& x = ctx.input(0);
    const DataType dt = x.dtype();
    if (dt != DataType::kFloat && dt != DataType::kDouble && !is_16bit_float(dt))
      return Unimplemented("CUDA DeformConv: no kernel for ", dtype_name(dt));
    if (w.nsp < 1 || w.nsp > kDeformMaxAxes)
      return Unimplemented("CUDA DeformConv: ", w.nsp, " spatial axes run on the CPU");
    // The compute type: the half types accumulate in a float copy of Y.
    const DataType ct = compute_type(dt);
    ASSIGN_OR_RETURN(const dnn::GemmTypes gt, dnn::gemm_types(ct, "DeformConv"));
    if (static_cast<double>(s.C) * static_cast<double>(w.k_size() * w.out_size()) * static_cast<double>(gt.elem) >
        static_cast<double>(kMaxImageColBytes))
      return Unimplemented("CUDA DeformConv: an image's columns would take more than ", kMaxImageColBytes,
                           " bytes; the CPU kernel tiles them");
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, dt, s.out));
    if (y->numel() == 0) return OkStatus();
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));

    Tensor acc_keep, w_keep;
    void* acc = y->raw();
    if (ct != dt) {
      ASSIGN_OR_RETURN(acc_keep, dnn::scratch(ctx, ct, s.out));
      acc = acc_keep.raw();
    }
    const int64_t O = w.out_size(), KC = s.C / attrs_.group * w.k_size();
    CUDA_RETURN_IF_ERROR(
        launch_deform_bias_rows(static_cast<int>(dt), p.bias ? p.bias->raw() : nullptr, s.N, s.M, O, acc, l.stream));
    // No input elements (no channels, or an empty image): every tap reads
    // a zero, and Y is the bias.
    if (KC > 0 && w.in_size() > 0) {
      ASSIGN_OR_RETURN(const void* wt, dnn::as_type(ctx, l.stream, ctx.input(1), ct, w_keep));
      RETURN_IF_ERROR(accumulate(ctx, l, p, gt, x, wt, acc));
    }
    if (ct != dt)
      CUDA_RETURN_IF_ERROR(
          launch_cast(static_cast<int>(ct), static_cast<int>(dt), acc, y->raw(), y->numel(), l.stream));
    return OkStatus();
  }

 private:
  // Chunks of images whose columns fit this many bytes (at least one
  // image at a time).
  static constexpr int64_t kColBytes = int64_t{256} << 20;
  // One image's columns past this decline: the GPU kernel does not tile
  // output positions as the CPU kernel does.
  static constexpr int64_t kMaxImageColBytes = int64_t{2} << 30;

  static DataType compute_type(DataType t) { return t == DataType::kDouble ? DataType::kDouble : DataType::kFloat; }

  // acc [N, M, O] += W x the deformable columns of x, chunk by chunk.
  Status accumulate(KernelContext& ctx, const Launch& l, const nn::DeformConvPlan& p, const dnn::GemmTypes& gt,
                    const Tensor& x, const void* wt, void* acc) const {
    const nn::ConvShape& s = p.s;
    const nn::Window& w = s.w;
    DeformColMeta m;
    m.nsp = w.nsp;
    const int first = nn::kMaxSpatial - w.nsp;  // the window's real axes are [first, 3)
    for (int a = 0; a < w.nsp; ++a) {
      m.in[a] = w.in[first + a];
      m.k[a] = w.k[first + a];
      m.out[a] = w.out[first + a];
      m.stride[a] = w.stride[first + a];
      m.dil[a] = w.dil[first + a];
      m.pad[a] = w.pad_b[first + a];
    }
    m.channels = s.C;
    m.offset_groups = attrs_.offset_groups;
    m.in_size = w.in_size();
    m.k_size = w.k_size();
    m.out_size = w.out_size();
    const int64_t O = m.out_size, G = attrs_.group, Mg = s.M / G, KC = s.C / G * m.k_size, rows = s.C * m.k_size;
    const int64_t per_image = rows * O;
    const int64_t chunk = std::clamp<int64_t>(kColBytes / static_cast<int64_t>(gt.elem) / per_image, 1, s.N);
    const DataType ct = compute_type(x.dtype());
    ASSIGN_OR_RETURN(Tensor col, dnn::scratch(ctx, ct, Dims{chunk * per_image}));
    ASSIGN_OR_RETURN(cublasHandle_t h, l.cublas());
    CUDA_RETURN_IF_ERROR(cublas_api().SetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    const dnn::Scalars sc(1.0, 1.0);
    const size_t es = dtype_size(x.dtype());
    const int64_t offset_image = p.offset->numel() / s.N, mask_image = p.mask ? p.mask->numel() / s.N : 0;
    for (int64_t n0 = 0; n0 < s.N; n0 += chunk) {
      m.images = std::min(chunk, s.N - n0);
      CUDA_RETURN_IF_ERROR(launch_deform_im2col(
          static_cast<int>(x.dtype()), m, static_cast<const char*>(x.raw()) + n0 * s.C * m.in_size * es,
          static_cast<const char*>(p.offset->raw()) + n0 * offset_image * es,
          p.mask ? static_cast<const char*>(p.mask->raw()) + n0 * mask_image * es : nullptr, col.raw(), l.stream));
      // Row-major Y[n, g] [Mg, O] += W_g [Mg, KC] x col[n, g] [KC, O] is
      // column-major Y^T = col^T x W_g^T.
      for (int64_t g = 0; g < G; ++g) {
        CUDA_RETURN_IF_ERROR(cublas_api().GemmStridedBatchedEx_64(
            h, CUBLAS_OP_N, CUBLAS_OP_N, O, Mg, KC, sc.alpha(ct),
            static_cast<const char*>(col.raw()) + g * KC * O * gt.elem, gt.data, O, per_image,
            static_cast<const char*>(wt) + g * Mg * KC * gt.elem, gt.data, KC, 0, sc.beta(ct),
            static_cast<char*>(acc) + ((n0 * s.M) + g * Mg) * O * gt.elem, gt.data, O, s.M * O, m.images, gt.compute,
            CUBLAS_GEMM_DEFAULT));
      }
    }
    return OkStatus();
  }

  nn::DeformConvAttrs attrs_;
};

}  // namespace

void register_cuda_deform_conv_kernels(KernelRegistry& r) {
  add_cuda_kernel<DeformConvKernel>(r, "DeformConv", 19,
                                    {DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kBFloat16});
}

}  // namespace sy::cuda

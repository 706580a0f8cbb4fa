// CUDA MatMulInteger, QLinearMatMul, ConvInteger and QLinearConv. Shapes
// and quantization parameters are checked by the CPU kernels' own plans
// (nn::plan_int_matmul, nn::plan_int_conv), so both backends accept and
// refuse the same nodes with the same messages. The product is
// int_matmul_launch.cu's tiled integer GEMM: one launch per run of evenly
// strided MatMul batches, and for a convolution an im2col of a chunk of
// images, then one launch for all their groups. y_scale and y_zero_point
// are host inputs, read by the plans; the other zero points and scales
// (per tensor, per row or per channel) stay on the device, 16-bit and
// double scales (opset 21) first converted to float there. Before, a
// quantized model's products and convolutions sent their operands to the
// CPU and back.
//
// Thread-safety: compute() is const and the kernels keep no state beyond
// attributes parsed in init().
#include <algorithm>

#include "devices/cpu/kernels/nn_common.h"
#include "devices/cuda/cuda_launch.h"
#include "devices/cuda/kernels/blas_dnn_common.h"
#include "devices/cuda/kernels/cuda_kernels.h"
#include "devices/cuda/kernels/elementwise_launch.h"
#include "devices/cuda/kernels/int_matmul_launch.h"

namespace sy::cuda {
namespace {

// Zero points, scales and the output's parameters of one node, set into
// the GEMM's metadata; float copies of other scale types live in `copies`
// (scratch, freed in stream order) until compute() returns.
struct QuantParams {
  const Tensor* a_zero = nullptr;
  const Tensor* b_zero = nullptr;
  const Tensor* a_scale = nullptr;  // null: not requantized
  const Tensor* b_scale = nullptr;
  float y_scale = 1;
  int32_t y_zero = 0;
};

// `scale` as float values on the device, as the CPU's nn::float_at reads
// it; a converted copy lives in `copy`.
StatusOr<const float*> float_scale(KernelContext& ctx, const Launch& l, const Tensor& scale, Tensor& copy) {
  ASSIGN_OR_RETURN(const void* v, dnn::as_type(ctx, l.stream, scale, DataType::kFloat, copy));
  return static_cast<const float*>(v);
}

// Unimplemented, so that the node runs on the CPU, for what ONNX does not
// allow but the CPU kernels read anyway: a zero point of another type than
// its matrix, integer scales.
Status check_supported(const char* op, const QuantParams& q, const Tensor& a, const Tensor& b) {
  if ((q.a_zero && q.a_zero->dtype() != a.dtype()) || (q.b_zero && q.b_zero->dtype() != b.dtype()))
    return Unimplemented("CUDA ", op, ": zero points of another type than their matrix run on the CPU");
  if (q.a_scale && (!dtype_is_float(q.a_scale->dtype()) || !dtype_is_float(q.b_scale->dtype())))
    return Unimplemented("CUDA ", op, ": scales of a non-float type run on the CPU");
  return OkStatus();
}

Status set_params(KernelContext& ctx, const Launch& l, const QuantParams& q, IntMatMulMeta& m, Tensor (&copies)[2]) {
  if (q.a_zero) {
    m.a_zero = q.a_zero->raw();
    m.a_zero_n = q.a_zero->numel();
  }
  if (q.b_zero) {
    m.b_zero = q.b_zero->raw();
    m.b_zero_n = q.b_zero->numel();
  }
  if (!q.a_scale) return OkStatus();
  ASSIGN_OR_RETURN(m.a_scale, float_scale(ctx, l, *q.a_scale, copies[0]));
  m.a_scale_n = q.a_scale->numel();
  ASSIGN_OR_RETURN(m.b_scale, float_scale(ctx, l, *q.b_scale, copies[1]));
  m.b_scale_n = q.b_scale->numel();
  m.y_scale = q.y_scale;
  m.y_zero = q.y_zero;
  return OkStatus();
}

template <bool kQLinear>
class IntMatMulKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const nn::IntMatMulPlan q, nn::plan_int_matmul(ctx, kQLinear));
    const nn::MatMulPlan& p = q.mm;
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(kQLinear ? 3 : 1);
    const QuantParams qp{q.a_zero, q.b_zero, q.a_scale, q.b_scale, q.y_scale, q.y_zero};
    RETURN_IF_ERROR(check_supported(kQLinear ? "QLinearMatMul" : "MatMulInteger", qp, a, b));
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, q.y_type, p.out));
    if (y->numel() == 0) return OkStatus();
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    IntMatMulMeta m;
    m.M = p.M;
    m.K = p.K;
    m.N = p.N;
    Tensor copies[2];
    RETURN_IF_ERROR(set_params(ctx, l, qp, m, copies));
    const size_t ys = dtype_size(q.y_type);
    for (const nn::BatchRun& r : nn::batch_runs(p)) {
      m.count = r.count;
      m.a_stride = r.a_stride;
      m.b_stride = r.b_stride;
      CUDA_RETURN_IF_ERROR(launch_int_matmul(static_cast<int>(a.dtype()), static_cast<int>(b.dtype()),
                                             static_cast<int>(q.y_type), m,
                                             static_cast<const int8_t*>(a.raw()) + p.a_off[r.first],
                                             static_cast<const int8_t*>(b.raw()) + p.b_off[r.first],
                                             static_cast<char*>(y->raw()) + r.first * p.M * p.N * ys, l.stream));
    }
    return OkStatus();
  }
};

// Per image and group: Y[n, g] [Mg, out] = W_g [Mg, Cg * k] x col[n, g]
// [Cg * k, out], W as A (its zero points, scales and bias per output
// channel) and the im2col as B (X's scalar zero point and scale).
template <bool kQLinear>
class IntConvKernel final : public Kernel {
 public:
  Status init(const Node& node) override {
    group_ = node.attr_int("group", 1);
    if (group_ <= 0) return InvalidArgument(node.describe(), ": group must be positive");
    return attrs_.parse(node);
  }

  Status compute(KernelContext& ctx) const override {
    ASSIGN_OR_RETURN(const nn::IntConvPlan q, nn::plan_int_conv(ctx, attrs_, group_, kQLinear));
    const nn::ConvShape& s = q.s;
    const nn::Window& w = s.w;
    const Tensor& x = ctx.input(0);
    const Tensor& wt = ctx.input(kQLinear ? 3 : 1);
    const int64_t G = group_, Mg = s.M / G, K = s.C / G * w.k_size(), osz = w.out_size();
    const QuantParams qp{q.w_zero, q.x_zero, q.w_scale, q.x_scale, q.y_scale, q.y_zero};
    RETURN_IF_ERROR(check_supported(kQLinear ? "QLinearConv" : "ConvInteger", qp, wt, x));
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, q.y_type, s.out));
    if (y->numel() == 0) return OkStatus();
    ASSIGN_OR_RETURN(Launch l, current_launch(ctx));
    IntMatMulMeta m;
    m.M = Mg;
    m.K = K;
    m.N = osz;
    m.a_cycle = G;
    m.a_stride = Mg * K;
    m.b_stride = K * osz;
    if (q.bias) m.bias = q.bias->data<int32_t>();
    Tensor copies[2];
    RETURN_IF_ERROR(set_params(ctx, l, qp, m, copies));
    Im2colMeta c;
    for (int d = 0; d < 3; ++d) {
      c.in[d] = w.in[d];
      c.k[d] = w.k[d];
      c.out[d] = w.out[d];
      c.stride[d] = w.stride[d];
      c.dil[d] = w.dil[d];
      c.pad[d] = w.pad_b[d];
    }
    // Images in chunks whose im2col fits kColBytes, at least one at a time.
    const int64_t per_image = s.C * w.k_size() * osz;
    const int64_t chunk = std::clamp<int64_t>(kColBytes / std::max<int64_t>(per_image, 1), 1, s.N);
    ASSIGN_OR_RETURN(Tensor col, dnn::scratch(ctx, x.dtype(), Dims{chunk * per_image}));
    const size_t ys = dtype_size(q.y_type);
    const int64_t in_image = s.C * w.in_size(), out_image = s.M * osz;
    for (int64_t n0 = 0; n0 < s.N; n0 += chunk) {
      const int64_t images = std::min(chunk, s.N - n0);
      c.nc = images * s.C;
      CUDA_RETURN_IF_ERROR(launch_int_im2col(static_cast<int>(x.dtype()), c,
                                             static_cast<const int8_t*>(x.raw()) + n0 * in_image,
                                             q.x_zero ? q.x_zero->raw() : nullptr, col.raw(), l.stream));
      m.count = images * G;
      CUDA_RETURN_IF_ERROR(launch_int_matmul(static_cast<int>(wt.dtype()), static_cast<int>(x.dtype()),
                                             static_cast<int>(q.y_type), m, wt.raw(), col.raw(),
                                             static_cast<char*>(y->raw()) + n0 * out_image * ys, l.stream));
    }
    return OkStatus();
  }

 private:
  static constexpr int64_t kColBytes = int64_t{256} << 20;

  nn::WindowAttrs attrs_;
  int64_t group_ = 1;
};

}  // namespace

void register_cuda_int_matmul_kernels(KernelRegistry& r) {
  const std::vector<DataType> int8 = {DataType::kUInt8, DataType::kInt8};
  // y_scale and y_zero_point (inputs 6 and 7) are read on the host.
  constexpr uint64_t kYParams = (uint64_t{1} << 6) | (uint64_t{1} << 7);
  add_cuda_kernel<IntMatMulKernel<false>>(r, "MatMulInteger", 10, int8);
  add_cuda_kernel<IntMatMulKernel<true>>(r, "QLinearMatMul", 10, int8, kYParams);
  add_cuda_kernel<IntConvKernel<false>>(r, "ConvInteger", 10, int8);
  add_cuda_kernel<IntConvKernel<true>>(r, "QLinearConv", 10, int8, kYParams);
}

}  // namespace sy::cuda

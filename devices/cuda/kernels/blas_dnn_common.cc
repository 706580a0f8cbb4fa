#include "devices/cuda/kernels/blas_dnn_common.h"

#include <climits>
#include <vector>

#include "devices/cuda/kernels/elementwise_launch.h"

namespace sy::cuda::dnn {
namespace {

// Narrows host geometry to the int arrays cuDNN takes.
StatusOr<std::vector<int>> to_ints(std::span<const int64_t> v, const char* what) {
  std::vector<int> r;
  r.reserve(v.size());
  for (int64_t x : v) {
    if (x < INT_MIN || x > INT_MAX) return Unimplemented("cuDNN: ", what, " value ", x, " does not fit in int");
    r.push_back(static_cast<int>(x));
  }
  return r;
}

}  // namespace

Status check_int_range(std::span<const int64_t> dims, const char* op) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0 || d > INT_MAX || !checked_mul(n, d, &n) || n > INT_MAX)
      return Unimplemented(op, ": tensor of ", Dims(dims).to_string(), " is too large for cuDNN (2^31 elements)");
  }
  return OkStatus();
}

StatusOr<cudnnDataType_t> cudnn_type(DataType t, const char* op, Also16 also) {
  switch (t) {
    case DataType::kFloat: return CUDNN_DATA_FLOAT;
    case DataType::kDouble: return CUDNN_DATA_DOUBLE;
    case DataType::kFloat16:
      if (also != Also16::kNone) return CUDNN_DATA_HALF;
      break;
    case DataType::kBFloat16:
      if (also == Also16::kHalfAndBFloat16) return CUDNN_DATA_BFLOAT16;
      break;
    default: break;
  }
  return Unimplemented(op, ": unsupported element type ", dtype_name(t), " on CUDA");
}

cudnnDataType_t conv_compute_type(cudnnDataType_t data) {
  return data == CUDNN_DATA_HALF || data == CUDNN_DATA_BFLOAT16 ? CUDNN_DATA_FLOAT : data;
}

const void* one_for(DataType t) {
  static const float kOneF = 1.f;
  static const double kOneD = 1.0;
  return t == DataType::kDouble ? static_cast<const void*>(&kOneD) : static_cast<const void*>(&kOneF);
}

const void* zero_for(DataType t) {
  static const float kZeroF = 0.f;
  static const double kZeroD = 0.0;
  return t == DataType::kDouble ? static_cast<const void*>(&kZeroD) : static_cast<const void*>(&kZeroF);
}

StatusOr<GemmTypes> gemm_types(DataType t, const char* op) {
  switch (t) {
    case DataType::kFloat: return GemmTypes{CUDA_R_32F, CUBLAS_COMPUTE_32F, sizeof(float)};
    case DataType::kDouble: return GemmTypes{CUDA_R_64F, CUBLAS_COMPUTE_64F, sizeof(double)};
    case DataType::kFloat16: return GemmTypes{CUDA_R_16F, CUBLAS_COMPUTE_32F, 2};
    case DataType::kBFloat16: return GemmTypes{CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2};
    default: return Unimplemented(op, ": unsupported element type ", dtype_name(t), " on CUDA");
  }
}

StatusOr<Tensor> scratch(KernelContext& ctx, DataType t, const Dims& dims) {
  RETURN_IF_ERROR(checked_nbytes(t, dims).status());
  return ctx.device().allocate(t, dims);
}

StatusOr<const void*> as_type(KernelContext& ctx, cudaStream_t stream, const Tensor& t, DataType to, Tensor& keep) {
  if (t.dtype() == to) return t.raw();
  ASSIGN_OR_RETURN(keep, scratch(ctx, to, t.dims()));
  CUDA_RETURN_IF_ERROR(
      launch_cast(static_cast<int>(t.dtype()), static_cast<int>(to), t.raw(), keep.raw(), t.numel(), stream));
  return keep.raw();
}

Status window_copy(cudaStream_t stream, const Tensor& x, std::span<const int64_t> in_dims, Tensor& y,
                   std::span<const int64_t> out_dims, std::span<const int64_t> offset, double fill) {
  const size_t rank = in_dims.size();
  if (rank == 0 || rank > static_cast<size_t>(kWindowMaxRank) || out_dims.size() != rank || offset.size() != rank)
    return Internal("window_copy: bad rank ", rank);
  WindowCopy m;
  m.rank = static_cast<int>(rank);
  int64_t n_in = 1, n_out = 1;
  for (size_t d = 0; d < rank; ++d) {
    m.in_dims[d] = in_dims[d];
    m.out_dims[d] = out_dims[d];
    m.offset[d] = offset[d];
    n_in *= in_dims[d];
    n_out *= out_dims[d];
  }
  if (n_in != x.numel() || n_out != y.numel() || x.dtype() != y.dtype())
    return Internal("window_copy: dims do not match the tensors ", x.describe(), " -> ", y.describe());
  if (n_out == 0) return OkStatus();
  const auto bits16 = [&](uint16_t fill_bits) {
    return launch_window_copy<uint16_t>(static_cast<const uint16_t*>(x.raw()), static_cast<uint16_t*>(y.raw()), n_out,
                                        m, fill_bits, stream);
  };
  switch (x.dtype()) {
    case DataType::kFloat:
      CUDA_RETURN_IF_ERROR(
          launch_window_copy<float>(x.data<float>(), y.data<float>(), n_out, m, static_cast<float>(fill), stream));
      return OkStatus();
    case DataType::kDouble:
      CUDA_RETURN_IF_ERROR(launch_window_copy<double>(x.data<double>(), y.data<double>(), n_out, m, fill, stream));
      return OkStatus();
    // A copy moves 16-bit values as bits; only the fill needs their format.
    case DataType::kFloat16: CUDA_RETURN_IF_ERROR(bits16(Float16(static_cast<float>(fill)).bits)); return OkStatus();
    case DataType::kBFloat16: CUDA_RETURN_IF_ERROR(bits16(BFloat16(static_cast<float>(fill)).bits)); return OkStatus();
    default: return Internal("window_copy: unsupported type ", dtype_name(x.dtype()));
  }
}

TensorDesc::~TensorDesc() {
  if (d_) (void)cudnn_api().DestroyTensorDescriptor(d_);
}

Status TensorDesc::set(cudnnDataType_t type, std::span<const int64_t> dims) {
  // cudnnSetTensorNdDescriptor refuses fewer than 4 dims (NOT_SUPPORTED).
  if (dims.size() < 4 || dims.size() > 8) return Internal("cuDNN tensor descriptor of rank ", dims.size());
  RETURN_IF_ERROR(check_int_range(dims, "cuDNN"));
  ASSIGN_OR_RETURN(std::vector<int> d, to_ints(dims, "tensor dim"));
  std::vector<int> strides(d.size());
  int s = 1;
  for (size_t i = d.size(); i-- > 0;) {
    strides[i] = s;
    s *= d[i] > 0 ? d[i] : 1;
  }
  if (!d_) CUDA_RETURN_IF_ERROR(cudnn_api().CreateTensorDescriptor(&d_));
  CUDA_RETURN_IF_ERROR(
      cudnn_api().SetTensorNdDescriptor(d_, type, static_cast<int>(d.size()), d.data(), strides.data()));
  return OkStatus();
}

FilterDesc::~FilterDesc() {
  if (d_) (void)cudnn_api().DestroyFilterDescriptor(d_);
}

Status FilterDesc::set(cudnnDataType_t type, std::span<const int64_t> dims) {
  if (dims.size() < 3 || dims.size() > 8) return Internal("cuDNN filter descriptor of rank ", dims.size());
  RETURN_IF_ERROR(check_int_range(dims, "cuDNN"));
  ASSIGN_OR_RETURN(std::vector<int> d, to_ints(dims, "filter dim"));
  if (!d_) CUDA_RETURN_IF_ERROR(cudnn_api().CreateFilterDescriptor(&d_));
  CUDA_RETURN_IF_ERROR(
      cudnn_api().SetFilterNdDescriptor(d_, type, CUDNN_TENSOR_NCHW, static_cast<int>(d.size()), d.data()));
  return OkStatus();
}

ConvDesc::~ConvDesc() {
  if (d_) (void)cudnn_api().DestroyConvolutionDescriptor(d_);
}

Status ConvDesc::set(cudnnDataType_t data, std::span<const int64_t> pads, std::span<const int64_t> strides,
                     std::span<const int64_t> dilations, int64_t group) {
  if (pads.size() != strides.size() || pads.size() != dilations.size())
    return Internal("cuDNN convolution descriptor: inconsistent ranks");
  ASSIGN_OR_RETURN(std::vector<int> p, to_ints(pads, "pad"));
  ASSIGN_OR_RETURN(std::vector<int> s, to_ints(strides, "stride"));
  ASSIGN_OR_RETURN(std::vector<int> d, to_ints(dilations, "dilation"));
  if (group <= 0 || group > INT_MAX) return Unimplemented("cuDNN: group ", group, " out of range");
  if (!d_) CUDA_RETURN_IF_ERROR(cudnn_api().CreateConvolutionDescriptor(&d_));
  CUDA_RETURN_IF_ERROR(cudnn_api().SetConvolutionNdDescriptor(d_, static_cast<int>(p.size()), p.data(), s.data(),
                                                              d.data(), CUDNN_CROSS_CORRELATION,
                                                              conv_compute_type(data)));
  CUDA_RETURN_IF_ERROR(cudnn_api().SetConvolutionGroupCount(d_, static_cast<int>(group)));
  CUDA_RETURN_IF_ERROR(cudnn_api().SetConvolutionMathType(d_, CUDNN_FMA_MATH));
  return OkStatus();
}

PoolDesc::~PoolDesc() {
  if (d_) (void)cudnn_api().DestroyPoolingDescriptor(d_);
}

Status PoolDesc::set(cudnnPoolingMode_t mode, std::span<const int64_t> window, std::span<const int64_t> pads,
                     std::span<const int64_t> strides) {
  if (window.size() != pads.size() || window.size() != strides.size())
    return Internal("cuDNN pooling descriptor: inconsistent ranks");
  ASSIGN_OR_RETURN(std::vector<int> w, to_ints(window, "window"));
  ASSIGN_OR_RETURN(std::vector<int> p, to_ints(pads, "pad"));
  ASSIGN_OR_RETURN(std::vector<int> s, to_ints(strides, "stride"));
  if (!d_) CUDA_RETURN_IF_ERROR(cudnn_api().CreatePoolingDescriptor(&d_));
  CUDA_RETURN_IF_ERROR(cudnn_api().SetPoolingNdDescriptor(d_, mode, CUDNN_PROPAGATE_NAN, static_cast<int>(w.size()),
                                                          w.data(), p.data(), s.data()));
  return OkStatus();
}

LrnDesc::~LrnDesc() {
  if (d_) (void)cudnn_api().DestroyLRNDescriptor(d_);
}

Status LrnDesc::set(unsigned n, double alpha, double beta, double k) {
  if (!d_) CUDA_RETURN_IF_ERROR(cudnn_api().CreateLRNDescriptor(&d_));
  CUDA_RETURN_IF_ERROR(cudnn_api().SetLRNDescriptor(d_, n, alpha, beta, k));
  return OkStatus();
}

}  // namespace sy::cuda::dnn

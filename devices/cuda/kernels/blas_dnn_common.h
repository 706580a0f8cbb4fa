// Shared host-side helpers of the CUDA cuBLAS / cuDNN kernels
// (blas_dnn_kernels.cc, dnn_conv_kernels.cc, dnn_kernels.cc): owning cuDNN
// descriptors, element-type mapping and scratch allocation. Descriptors are
// created per call (cheap host objects), so kernels keep no mutable state
// and compute() stays thread-safe.
#pragma once

#include <cstdint>
#include <span>

#include "devices/cuda/cuda_launch.h"
#include "devices/cuda/kernels/blas_dnn_launch.h"
#include "devices/kernel_registry.h"

namespace sy::cuda::dnn {

// Per-file registration, called from register_cuda_blas_dnn_kernels.
void register_conv_kernels(KernelRegistry& r);  // dnn_conv_kernels.cc
void register_dnn_kernels(KernelRegistry& r);   // dnn_kernels.cc

// cuDNN's legacy API takes int dims and strides: a tensor must have fewer
// than 2^31 elements. Unimplemented otherwise (the CPU kernel has no limit).
Status check_int_range(std::span<const int64_t> dims, const char* op);

// The 16-bit types a cuDNN kernel takes besides float and double: each
// kernel lists what its cuDNN call supports (and its registration says), so
// a value whose type was unknown at placement is declined, not passed on.
enum class Also16 { kNone, kHalf, kHalfAndBFloat16 };

// CUDNN_DATA_FLOAT / CUDNN_DATA_DOUBLE, and CUDNN_DATA_HALF / _BFLOAT16 as
// `also` allows; Unimplemented for other types (the node then runs on a CPU).
StatusOr<cudnnDataType_t> cudnn_type(DataType t, const char* op, Also16 also = Also16::kNone);

// The type a convolution accumulates in: float for 16-bit data (cuDNN's
// "pseudo half" configurations, which round once, as the CPU kernel does),
// the data type otherwise.
cudnnDataType_t conv_compute_type(cudnnDataType_t data);

// The 1 and 0 blend factors cuDNN expects: double for double tensors,
// float for everything else.
const void* one_for(DataType t);
const void* zero_for(DataType t);

// cuBLAS's data and compute types for a GEMM on `t`: float and double
// natively (CUBLAS_COMPUTE_32F / 64F, never TF32), float16 and bfloat16
// accumulating in float. Unimplemented for other types.
struct GemmTypes {
  cudaDataType_t data;
  cublasComputeType_t compute;
  size_t elem;
};
StatusOr<GemmTypes> gemm_types(DataType t, const char* op);

// Alpha / beta in the compute type's precision, passed by host pointer.
struct Scalars {
  float f[2];
  double d[2];
  Scalars(double alpha, double beta) : f{static_cast<float>(alpha), static_cast<float>(beta)}, d{alpha, beta} {}
  const void* alpha(DataType t) const { return t == DataType::kDouble ? static_cast<const void*>(&d[0]) : &f[0]; }
  const void* beta(DataType t) const { return t == DataType::kDouble ? static_cast<const void*>(&d[1]) : &f[1]; }
};

// A scratch device tensor on ctx's device, freed in stream order after
// compute() returns.
StatusOr<Tensor> scratch(KernelContext& ctx, DataType t, const Dims& dims);

// t's elements as type `to` on the device: t's own data when it has that
// type, else a copy converted on `stream` (launch_cast: the CPU's Cast
// rounding) into `keep`, a scratch tensor to hold until compute() returns.
StatusOr<const void*> as_type(KernelContext& ctx, cudaStream_t stream, const Tensor& t, DataType to, Tensor& keep);

// Enqueues `y = window of x` (see WindowCopy) for float, double, float16 or
// bfloat16 tensors; `fill` is rounded to the tensors' type.
// `in_dims` / `out_dims` have the same rank (<= kWindowMaxRank);
// in coordinate = out coordinate + offset.
Status window_copy(cudaStream_t stream, const Tensor& x, std::span<const int64_t> in_dims, Tensor& y,
                   std::span<const int64_t> out_dims, std::span<const int64_t> offset, double fill);

class TensorDesc {
 public:
  TensorDesc() = default;
  ~TensorDesc();
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
  // A packed row-major tensor; dims has 4 or 5 entries (NCHW / NCDHW).
  Status set(cudnnDataType_t type, std::span<const int64_t> dims);
  cudnnTensorDescriptor_t get() const { return d_; }

 private:
  cudnnTensorDescriptor_t d_ = nullptr;
};

class FilterDesc {
 public:
  FilterDesc() = default;
  ~FilterDesc();
  FilterDesc(const FilterDesc&) = delete;
  FilterDesc& operator=(const FilterDesc&) = delete;
  // KCRS / KCDRS packed filter (ONNX's W layout).
  Status set(cudnnDataType_t type, std::span<const int64_t> dims);
  cudnnFilterDescriptor_t get() const { return d_; }

 private:
  cudnnFilterDescriptor_t d_ = nullptr;
};

class ConvDesc {
 public:
  ConvDesc() = default;
  ~ConvDesc();
  ConvDesc(const ConvDesc&) = delete;
  ConvDesc& operator=(const ConvDesc&) = delete;
  // Cross-correlation (ONNX Conv) with symmetric pads, accumulating in
  // conv_compute_type(data); FMA math so that float convolutions never run
  // in TF32.
  Status set(cudnnDataType_t data, std::span<const int64_t> pads, std::span<const int64_t> strides,
             std::span<const int64_t> dilations, int64_t group);
  cudnnConvolutionDescriptor_t get() const { return d_; }

 private:
  cudnnConvolutionDescriptor_t d_ = nullptr;
};

class PoolDesc {
 public:
  PoolDesc() = default;
  ~PoolDesc();
  PoolDesc(const PoolDesc&) = delete;
  PoolDesc& operator=(const PoolDesc&) = delete;
  Status set(cudnnPoolingMode_t mode, std::span<const int64_t> window, std::span<const int64_t> pads,
             std::span<const int64_t> strides);
  cudnnPoolingDescriptor_t get() const { return d_; }

 private:
  cudnnPoolingDescriptor_t d_ = nullptr;
};

class LrnDesc {
 public:
  LrnDesc() = default;
  ~LrnDesc();
  LrnDesc(const LrnDesc&) = delete;
  LrnDesc& operator=(const LrnDesc&) = delete;
  Status set(unsigned n, double alpha, double beta, double k);
  cudnnLRNDescriptor_t get() const { return d_; }

 private:
  cudnnLRNDescriptor_t d_ = nullptr;
};

}  // namespace sy::cuda::dnn

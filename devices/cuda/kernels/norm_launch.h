// Launchers for the CUDA normalisation kernels (norm_launch.cu): Layer-, RMS-,
// Instance-, Group-, MeanVariance- and LpNormalization. Plain C++ so that both nvcc
// and the C++20 kernel files can include it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "devices/cuda/kernels/reduction_launch.h"

namespace sy::cuda {

constexpr int kMaxNormParamRank = 8;

// x viewed as [rows, cols], normalised per row.
struct NormMeta {
  int64_t rows = 1;
  int64_t cols = 1;
  double epsilon = 1e-5;
  // Grouped norms (Instance-, GroupNormalization): row r is group r % groups
  // of an image, `per_group` channels of `spatial` elements each. Its column
  // j reads scale/bias element r % groups when params_per_group, else that
  // of its channel, (r % groups) * per_group + j / spatial.
  int64_t groups = 1;
  int64_t per_group = 1;
  int64_t spatial = 1;
  bool params_per_group = false;
  // RMSNormalization: no mean is taken out; the variance is the mean square.
  bool rms = false;
  // LayerNormalization: column j reads scale[j] / bias[j] when dense, else
  // decomposes j row-major over norm_dims and uses the broadcast strides.
  bool scale_dense = true;
  bool bias_dense = true;
  int norm_rank = 0;
  int64_t norm_dims[kMaxNormParamRank] = {};
  int64_t scale_strides[kMaxNormParamRank] = {};
  int64_t bias_strides[kMaxNormParamRank] = {};
};

// `bias`, `mean` and `inv_std` may be null (omitted input / outputs).
template <typename T, typename S>
cudaError_t launch_layer_norm(const T* x, const T* scale, const T* bias, T* y, S* mean, S* inv_std,
                              const NormMeta& m, cudaStream_t stream);

// The same for float16 (dtype 10) or bfloat16 (16) X, scale, bias and Y,
// computed in float; cudaErrorNotSupported for another dtype.
template <typename S>
cudaError_t launch_layer_norm_16(int dtype, const void* x, const void* scale, const void* bias, void* y, S* mean,
                                 S* inv_std, const NormMeta& m, cudaStream_t stream);

// x is [N, C, spatial...]: rows = N * groups, cols = per_group * spatial.
template <typename T>
cudaError_t launch_grouped_norm(const T* x, const T* scale, const T* bias, T* y, const NormMeta& m,
                                 cudaStream_t stream);

// The same for float16 (dtype 10) or bfloat16 (16) tensors, computed in
// float; cudaErrorNotSupported for another dtype.
cudaError_t launch_grouped_norm_16(int dtype, const void* x, const void* scale, const void* bias, void* y,
                                   const NormMeta& m, cudaStream_t stream);

// MeanVarianceNormalization: statistics per kept index of `g` (only the
// group tables and counts are used), over its reduced elements.
template <typename T>
cudaError_t launch_mvn(const T* x, T* y, const ReduceGroups& g, cudaStream_t stream);
// The same for float16 (dtype 10) or bfloat16 (16), computed in float.
cudaError_t launch_mvn_16(int dtype, const void* x, void* y, const ReduceGroups& g, cudaStream_t stream);

// LpNormalization along the middle axis of [outer, d, inner]; p is 1 or 2.
struct LpMeta {
  int64_t outer = 1;
  int64_t d = 1;
  int64_t inner = 1;
  int p = 2;
};

template <typename T>
cudaError_t launch_lp_norm(const T* x, T* y, const LpMeta& m, cudaStream_t stream);
// The same for float16 (dtype 10) or bfloat16 (16), computed in float.
cudaError_t launch_lp_norm_16(int dtype, const void* x, void* y, const LpMeta& m, cudaStream_t stream);

// BatchNormalization's statistics path (training mode, an old opset's
// statistics outputs, or an epsilon below cuDNN's minimum), as the CPU
// kernel computes it: per channel of x [n, c, sp], the batch mean and
// biased variance (two passes in float, double for double X), y
// normalised by them (training) or by the given mean and var, and
// stats [4, c]: the running mean and var (momentum-weighted), then the
// batch mean and var. scale, bias, mean and var hold c values in the
// compute type (float, double for double X). dtype: X's ONNX type, a float.
struct BatchNormMeta {
  int64_t n = 0, c = 0, sp = 1;
  double epsilon = 1e-5, momentum = 0.9;
  bool training = false;
};
cudaError_t launch_batch_norm_stats(int dtype, const void* x, void* y, const void* scale, const void* bias,
                                    const void* mean, const void* var, void* stats, const BatchNormMeta& m,
                                    cudaStream_t stream);

}  // namespace sy::cuda

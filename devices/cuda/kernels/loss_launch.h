// Launcher of the CUDA SoftmaxCrossEntropyLoss and NegativeLogLikelihoodLoss
// (loss_launch.cu). Element types are ONNX codes (elementwise_launch.h's
// ew_type): the input and weights float, double, float16 or bfloat16 (the
// same type), the labels int32 or int64. The launcher only enqueues on
// `stream` and returns the launch error; it never synchronises. Reentrant.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace sy::cuda {

struct LossMeta {
  int64_t n = 0, c = 0, d = 0;  // the input viewed as [n, c, d], the labels as [n, d]
  bool softmax = false;         // log-softmax over c first (SoftmaxCrossEntropyLoss)
  bool per_point = false;       // reduction "none": one loss per label
  bool mean = false;            // otherwise the weighted mean, or else the sum
  bool has_ignore = false;
  int64_t ignore_index = 0;
};

// loss: [n, d] (per_point) or a scalar, in the input's type; log_prob
// (optional, softmax only): [n, c, d]. weights: [c] or null. partial:
// 2 * n * d doubles of scratch when !per_point, else unused. A label outside
// [0, c) that is not ignore_index sets *bad.
cudaError_t launch_loss(int x_type, int label_type, const LossMeta& m, const void* x, const void* labels,
                        const void* weights, void* loss, void* log_prob, double* partial, int* bad,
                        cudaStream_t stream);

}  // namespace sy::cuda

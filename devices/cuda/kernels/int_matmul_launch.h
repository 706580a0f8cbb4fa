// Launchers of the CUDA integer products (int_matmul_launch.cu):
// MatMulInteger's and QLinearMatMul's, and ConvInteger's and QLinearConv's
// as im2col and the same GEMM. Element types are ONNX codes (elementwise_launch.h's
// ew_type). The launchers only enqueue on `stream` and return the launch
// error; they never synchronise. Reentrant.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace sy::cuda {

// `count` products y[z] = (A[z] - a_zero) x (B[z] - b_zero), A[z] [M, K]
// at a + z * a_stride, B[z] [K, N] at b + z * b_stride, y[z] [M, N]
// contiguous, accumulated in int32.
struct IntMatMulMeta {
  int64_t M = 0, K = 0, N = 0;
  int64_t count = 1;
  int64_t a_stride = 0, b_stride = 0;  // elements between consecutive products
  // Zero points of A's and B's type, and scales (QLinearMatMul): null
  // (0; no scale), or 1 value, or one per row of A (per column of B).
  const void* a_zero = nullptr;
  const void* b_zero = nullptr;
  int64_t a_zero_n = 1, b_zero_n = 1;
  const float* a_scale = nullptr;
  const float* b_scale = nullptr;
  int64_t a_scale_n = 1, b_scale_n = 1;
  // A grouped convolution's weights: when > 0, product z uses A block
  // z % a_cycle, whose rows are rows (z % a_cycle) * M + r of the per-row
  // zero points, scales and bias.
  int64_t a_cycle = 0;
  const int32_t* bias = nullptr;  // per row of A, added to each sum; null: none
  // The requantized output: y = saturate(rint((acc + bias) * (a_scale *
  // b_scale / y_scale)) + y_zero), in float as the CPU kernels round.
  float y_scale = 1;
  int32_t y_zero = 0;
};

// a_type, b_type: uint8 or int8. y_type: int32 (MatMulInteger, the sums
// themselves) or uint8 / int8 (QLinearMatMul, requantized with the scales).
cudaError_t launch_int_matmul(int a_type, int b_type, int y_type, const IntMatMulMeta& m, const void* a, const void* b,
                              void* y, cudaStream_t stream);

// ConvInteger's and QLinearConv's im2col: col [nc, k, out] of x [nc, in]
// (spatial dims padded to 3 with 1s), where column o of row kk holds the
// input under output point o for window tap kk, or x's zero point where
// that falls in the padding, so that it adds nothing once the zero point
// is subtracted.
struct Im2colMeta {
  int64_t nc = 0;  // images times channels
  int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1}, dil[3] = {1, 1, 1}, pad[3] = {};
};

// type: uint8 or int8; x_zero: null (0) or one value of that type.
cudaError_t launch_int_im2col(int type, const Im2colMeta& m, const void* x, const void* x_zero, void* col,
                              cudaStream_t stream);

}  // namespace sy::cuda

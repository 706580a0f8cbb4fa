// Launchers of the CUDA DeformConv kernels (deform_conv_launch.cu): the
// deformable im2col and the bias rows the GEMM adds to. Element types are
// ONNX codes (elementwise_launch.h's ew_type), float types only; the
// columns and the output rows are in the compute type (double for double,
// float otherwise). The launchers only enqueue on `stream` and return the
// launch error; they never synchronise. Reentrant.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace sy::cuda {

constexpr int kDeformMaxAxes = 3;

// The sampling geometry of `images` images of `channels` channels, spatial
// axes [0, nsp) (last fastest): each tap reads at
// out * stride - pad + tap * dil + offset along each axis.
struct DeformColMeta {
  int nsp = 0;
  int64_t in[kDeformMaxAxes] = {}, k[kDeformMaxAxes] = {}, out[kDeformMaxAxes] = {}, stride[kDeformMaxAxes] = {},
          dil[kDeformMaxAxes] = {}, pad[kDeformMaxAxes] = {};
  int64_t images = 0, channels = 0, offset_groups = 1;
  int64_t in_size = 0, k_size = 0, out_size = 0;
};

// col [images, channels * k_size, out_size]: row c * k_size + k holds, for
// each output position, channel c of x [images, channels, in...] sampled
// at tap k moved by `offset` [images, offset_groups * k_size * nsp,
// out...], interpolated linearly along each axis (zero outside the input)
// and weighted by `mask` [images, offset_groups * k_size, out...] (null:
// 1). A NaN offset gives NaN.
cudaError_t launch_deform_im2col(int type, const DeformColMeta& m, const void* x, const void* offset, const void* mask,
                                 void* col, cudaStream_t stream);

// y [images, rows, cols] (compute type) = bias[row] ([rows], `type`; null:
// 0), the start the GEMM accumulates onto.
cudaError_t launch_deform_bias_rows(int type, const void* bias, int64_t images, int64_t rows, int64_t cols, void* y,
                                    cudaStream_t stream);

}  // namespace sy::cuda

// Launchers of the CUDA Col2Im and MaxUnpool kernels (fold_launch.cu),
// the ops that put values back into a larger image. Element types are
// ONNX codes (elementwise_launch.h's ew_type). The launchers only enqueue
// on `stream` and return the launch error; they never synchronise.
// Reentrant.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace sy::cuda {

// Spatial axes Col2Im handles on the device; more run on the CPU.
constexpr int kMaxFoldAxes = 4;

// Col2Im of x [planes, kernel, blocks] into y [planes, image...] (see
// col2im::Plan), float types, summed in each pixel in increasing kernel
// position (float, or double for double) as the CPU kernel does.
struct Col2ImMeta {
  int n = 0;
  int64_t image[kMaxFoldAxes] = {}, block[kMaxFoldAxes] = {}, dil[kMaxFoldAxes] = {}, pad[kMaxFoldAxes] = {},
          stride[kMaxFoldAxes] = {}, count[kMaxFoldAxes] = {};
  int64_t planes = 0, plane = 0, kernel = 1, blocks = 1;
};
cudaError_t launch_col2im(int type, const Col2ImMeta& m, const void* x, void* y, cudaStream_t stream);

// Dimensions MaxUnpool handles on the device (N, C and six spatial).
constexpr int kMaxUnpoolRank = 8;

// MaxUnpool: y (zeroed here) at the position of `indices[e]` (flat over
// `inferred`, placed at the same coordinates of `out`) = x[e], for the n
// elements of x, `unit` bytes each (1, 2, 4, 8 or 16). Where several
// elements name one position the last wins, as on the CPU; `claims` is
// scratch of one int64 per element of y. An index outside [0, total) sets
// *error and is skipped.
struct MaxUnpoolMeta {
  int rank = 0;
  int64_t inferred[kMaxUnpoolRank] = {}, out[kMaxUnpoolRank] = {};
  int64_t n = 0, total = 0, out_numel = 0;
};
cudaError_t launch_max_unpool(int unit, const MaxUnpoolMeta& m, const void* x, const int64_t* indices, void* y,
                              unsigned long long* claims, int* error, cudaStream_t stream);

}  // namespace sy::cuda

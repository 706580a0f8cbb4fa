// Launchers for the CUDA RotaryEmbedding kernel (attention_launch.cu).
// Plain C++ so that both nvcc and the C++20 kernel files can include it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace sy::cuda {

// X and Y are [B, H, S, D] (4-D X) or [B, S, H, D] (3-D X, H * D wide)
// in memory; the first rotary_dim elements of each head are rotated.
struct RotaryMeta {
  int64_t batch = 0, heads = 0, len = 0, head = 0, rotary_dim = 0;
  bool three_d = false;
  bool interleaved = false;
  // Rows of [positions, rotary_dim / 2] caches read through position_ids;
  // 0 when the caches are [B, S, rotary_dim / 2], a row a token.
  int64_t positions = 0;
};

// `dtype` is X's ONNX element type: float (1), float16 (10) or bfloat16
// (16). A position id outside [0, positions) sets *bad and leaves its
// token's elements unwritten. cudaErrorNotSupported for another type.
cudaError_t launch_rotary_embedding(int dtype, const void* x, const void* cos, const void* sin, const int64_t* ids,
                                    void* y, const RotaryMeta& m, int* bad, cudaStream_t stream);

}  // namespace sy::cuda

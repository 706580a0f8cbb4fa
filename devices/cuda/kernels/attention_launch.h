// Launchers for the CUDA Attention and RotaryEmbedding kernels
// (attention_launch.cu).
// Plain C++ so that both nvcc and the C++20 kernel files can include it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "devices/cuda/kernels/attention_plan.h"

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

// Where element (b, h, s, 0) of a [B, H, S, D] view starts, in elements.
struct HeadStrides {
  int64_t b = 0, h = 0, s = 0;
};

// dst(b, h, s, d) = src(b, h, s, d) for the [B, H, S, D] views, converting
// between float (1), float16 (10) and bfloat16 (16). The attention kernel
// reads its inputs into dense float buffers with it, and writes its
// outputs back.
cudaError_t launch_heads_copy(int src_dtype, const void* src, HeadStrides src_at, int dst_dtype, void* dst,
                              HeadStrides dst_at, int64_t B, int64_t H, int64_t S, int64_t D, cudaStream_t stream);

// What the softmax of one tile of attention scores needs (attention_plan.h
// for tiles and rows). Each row, of total_len floats, is biased, masked,
// softmaxed and left in place as probabilities.
struct AttnSoftmaxMeta {
  attention_plan::Dims dims;
  attention_plan::Tile tile;
  int64_t q_heads = 0, past_len = 0;
  float softcap = 0.f;  // 0: none
  bool causal = false;
  bool softmax_double = false;
  // The mask, broadcast over [B, Hq, Sq, mask_len] by these strides; null
  // for none. Boolean (9: false masks a key out) or float, float16 or
  // bfloat16, added to the scores.
  const void* mask = nullptr;
  int mask_dtype = 0;
  int64_t mask_len = 0;
  int64_t mask_stride[4] = {};
  // The qk_matmul_output, [B, Hq, Sq, total_len] of qk_dtype, or null; it
  // takes each row after stage qk_mode (0 QK^T, 1 softcap, 2 bias, 3 softmax).
  void* qk = nullptr;
  int qk_dtype = 0;
  int qk_mode = 0;
};

cudaError_t launch_attention_softmax(float* scores, const AttnSoftmaxMeta& m, cudaStream_t stream);

}  // namespace sy::cuda

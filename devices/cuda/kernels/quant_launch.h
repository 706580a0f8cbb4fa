// Launchers of the CUDA quantization kernels (quant_launch.cu):
// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear and Dropout's
// mask. Element types are ONNX codes (elementwise_launch.h's ew_type). Every
// launcher only enqueues on `stream` and returns the launch error; it never
// synchronises. Thread-safety: all launchers are reentrant.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "devices/cuda/kernels/elementwise_launch.h"

namespace sy::cuda {

constexpr uint32_t kQuantIntTypes = ew_bit(ew_type::kUInt8) | ew_bit(ew_type::kInt8) | ew_bit(ew_type::kUInt16) |
                                    ew_bit(ew_type::kInt16) | ew_bit(ew_type::kInt32);
constexpr uint32_t kQuantInputFloats = kEwFloats | ew_bit(ew_type::kInt32);

// Which scale and zero point element i uses, as the CPU's QuantParams
// (elementwise_common.h): per tensor (count 1), per axis ((i / inner) %
// count), or per block of `block` along an axis of axis_len (count blocks).
struct QuantAxis {
  int64_t count = 1;
  int64_t inner = 1;
  int64_t block = 0;
  int64_t axis_len = 1;
};

// y = saturate(rint(x / scale) + zero) with NaN giving 0, computed in
// `calc` (kFloat or kDouble). `scale` holds values of type `calc`; `zero`
// (null: 0) has y's type `q_type`.
cudaError_t launch_quantize(int x_type, int q_type, int calc, const void* x, const void* scale, const void* zero,
                            void* y, int64_t n, QuantAxis a, cudaStream_t stream);

// y = (x - zero) * scale computed in `calc` (kFloat or kDouble), rounded to
// `out_type`. `scale` holds values of type `calc`; `zero` (null: 0) has x's
// type.
cudaError_t launch_dequantize(int x_type, int out_type, int calc, const void* x, const void* scale, const void* zero,
                              void* y, int64_t n, QuantAxis a, cudaStream_t stream);

// DynamicQuantizeLinear on float x: scale and zero point from the range of
// x and 0 (one block reduces; NaN is skipped), then y as launch_quantize
// would compute it. `scale` (float) and `zero` (uint8) are one element each
// in device memory.
cudaError_t launch_dynamic_quantize(const float* x, uint8_t* y, float* scale, uint8_t* zero, int64_t n,
                                    cudaStream_t stream);

// out[i] = 1 in `type` (a float type or bool): Dropout's mask in inference.
cudaError_t launch_fill_ones(int type, void* out, int64_t n, cudaStream_t stream);

}  // namespace sy::cuda

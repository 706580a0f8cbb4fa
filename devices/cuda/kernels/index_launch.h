// Launchers for the CUDA index kernels (index_launch.cu): ScatterND,
// ScatterElements, GatherND, Trilu, Range, EyeLike and OneHot. Element types
// are passed as ONNX TensorProto codes (the values of sy::DataType), so this
// header, which nvcc also reads, needs no project header beyond the other
// launch headers. Shapes arrive
// validated, in small by-value structs; every launcher enqueues on `stream`
// and returns the launch error without synchronising. Indices that only the
// device sees are range-checked there: a bad one sets *error (a device int,
// Launch::error_flag) and never addresses memory. Thread-safety: all
// launchers are reentrant.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "devices/cuda/kernels/movement_launch.h"

namespace sy::cuda {

// Rank limit of the by-value metadata (indexed dims for the ND ops).
constexpr int kIndexMaxRank = 8;

// Scatter reductions, as the CPU kernels' Reduction enum orders them.
enum class ScatterReduce : int { kNone = 0, kAdd = 1, kMul = 2, kMax = 3, kMin = 4 };

// True if the device kernels apply `r` to elements of ONNX type `dtype`
// atomically (kNone: any type of 1, 2, 4, 8 or 16 bytes is stored as is).
// 8-bit integers have no atomic of their own width, so they are refused for
// every reduction; the node then runs on the CPU.
bool scatter_reduce_supported(int dtype, ScatterReduce r);

// ScatterND: for each of `tuples` index tuples t (k indices each, into the
// leading k data dims), out[offset(t) + e] (op)= updates[t * slice + e] for
// e < slice. `out` already holds a copy of data. With kNone, elements move
// as units of `unit` bytes (slice and strides are then in units);
// otherwise unit is the element size and `dtype` picks the arithmetic.
struct ScatterNDMeta {
  int64_t tuples = 0;
  int64_t slice = 0;
  int32_t k = 0;
  int64_t dims[kIndexMaxRank] = {};     // bound of index j
  int64_t strides[kIndexMaxRank] = {};  // stride of index j
};
cudaError_t launch_scatter_nd(void* out, const void* updates, const void* indices, bool indices64, int dtype,
                              int unit, ScatterReduce r, const ScatterNDMeta& m, int* error, cudaStream_t stream);

// ScatterElements: for each position p of indices (dims, contiguous),
// out[p with the axis coordinate replaced by indices[p]] (op)= updates[p].
// The layout is GatherElements': the two ops walk indices the same way.
using ScatterElementsMeta = GatherElementsMeta;
static_assert(kMoveMaxRank == kIndexMaxRank, "ScatterElementsMeta's arrays are kIndexMaxRank long");
cudaError_t launch_scatter_elements(void* out, const void* updates, const void* indices, bool indices64, int dtype,
                                    int unit, ScatterReduce r, int64_t n, const ScatterElementsMeta& m, int* error,
                                    cudaStream_t stream);

// GatherND: out[t * slice + e] = data[(t / per_batch) * batch_stride +
// offset(t) + e], where offset(t) sums index j of tuple t times strides[j].
// slice, strides and batch_stride are in units of `unit` bytes.
struct GatherNDMeta {
  int64_t tuples = 0;
  int64_t slice = 0;
  int64_t per_batch = 1;  // tuples per batch entry
  int64_t batch_stride = 0;
  int32_t k = 0;
  int64_t dims[kIndexMaxRank] = {};
  int64_t strides[kIndexMaxRank] = {};
};
cudaError_t launch_gather_nd(void* out, const void* data, const void* indices, bool indices64, int unit,
                             const GatherNDMeta& m, int* error, cudaStream_t stream);

// Range-checks `count` indices laid out as tuples of k (index j below
// dims[j]) without moving data: the ND ops whose slices are empty still
// reject bad indices, as the CPU kernels do.
cudaError_t launch_check_nd_indices(const void* indices, bool indices64, int64_t count, int32_t k,
                                    const int64_t (&dims)[kIndexMaxRank], int* error, cudaStream_t stream);

// Trilu over n elements of [..., rows, cols] matrices: keeps (col - row >= k)
// when upper, (col - row <= k) otherwise, zeros the rest. unit: 1, 2, 4, 8.
struct TriluMeta {
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t k = 0;
  bool upper = true;
};
cudaError_t launch_trilu(void* out, const void* in, int unit, int64_t n, const TriluMeta& m, cudaStream_t stream);

// Range: out[i] = start + i * delta for i < n, with the CPU kernel's
// arithmetic: integers wrap in 64 bits, float multiplies and adds in float,
// double in double, and 16-bit floats in double rounded through float. No
// fused multiply-add, so results match the CPU bit for bit.
struct RangeMeta {
  int64_t istart = 0, idelta = 0;  // integer types
  double fstart = 0, fdelta = 0;   // float types
};
cudaError_t launch_range(void* out, int dtype, int64_t n, const RangeMeta& m, cudaStream_t stream);

// EyeLike's diagonal: out[(row0 + i) * cols + row0 + i + k] = the value in
// the first `unit` bytes of one_bits, for i < count. The caller zeroes out.
cudaError_t launch_eye(void* out, int unit, uint64_t one_bits, int64_t cols, int64_t row0, int64_t k, int64_t count,
                       cudaStream_t stream);

// OneHot: out [outer, depth, inner] = values[1] where the index at
// [outer, inner] (of ONNX type index_dtype, read as a double) selects the
// depth position, else values[0]. Indices in [-depth, 0) count from the end;
// others outside [0, depth) give an all-off row. `values` is in device
// memory; unit is the value type's size (1, 2, 4, 8).
struct OneHotMeta {
  int64_t outer = 0;
  int64_t depth = 0;
  int64_t inner = 0;
};
cudaError_t launch_one_hot(void* out, const void* values, int unit, const void* indices, int index_dtype,
                           const OneHotMeta& m, cudaStream_t stream);

}  // namespace sy::cuda

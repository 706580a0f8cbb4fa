// Launchers for the CUDA data-movement kernels (movement_launch.cu). They
// only move bytes, so element types are picked by storage size ("unit", in
// bytes: 1, 2, 4, 8 and, where noted, 16). Shapes arrive already validated
// and in small by-value structs; every launcher enqueues on `stream` and
// returns the launch error without synchronising. Plain C++17 so nvcc never
// sees the project's headers.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace sy::cuda {

// Rank limit of the by-value metadata. Strided views allow twice that because
// Tile views a rank-8 input as [r0, d0, ..., r7, d7].
constexpr int kMoveMaxRank = 8;
constexpr int kMoveMaxViewDims = 2 * kMoveMaxRank;

// dst (contiguous, dims) = src viewed with element strides (negative for
// reversed axes, 0 for broadcast); src points at the element of output
// index 0. Dims and strides are in units.
struct StridedCopyMeta {
  int32_t rank = 0;
  int64_t dims[kMoveMaxViewDims] = {};
  int64_t strides[kMoveMaxViewDims] = {};
};
// unit: 1, 2, 4, 8 or 16 bytes (src, dst and strides aligned to it).
// index32: every output index and source offset fits in int32.
cudaError_t launch_strided_copy(void* dst, const void* src, int64_t n, int unit, bool index32,
                                const StridedCopyMeta& m, cudaStream_t stream);

// dst[b][a][c] = src[b * batch_stride + c * rows + a] for b < batch, a < rows,
// c < cols: the swap of the last two dims of a (batched) matrix, through
// shared-memory tiles so both sides stay coalesced. unit: 1, 2, 4 or 8.
struct TransposeTileMeta {
  int64_t batch = 1;
  int64_t batch_stride = 0;
  int64_t rows = 0;  // output rows (contiguous in the source)
  int64_t cols = 0;  // output columns (contiguous in the output)
};
cudaError_t launch_transpose_tiled(void* dst, const void* src, int unit, const TransposeTileMeta& m,
                                   cudaStream_t stream);

// Concat and Split: a "big" tensor viewed as [outer, big_row] and parts
// viewed as [outer, row_j] that occupy consecutive column ranges of it. One
// launch moves up to kMaxSlabParts parts covering columns [col0, col0 +
// col_end[count - 1]). Null parts (omitted Split outputs) are skipped.
constexpr int kMaxSlabParts = 32;
struct SlabMeta {
  void* parts[kMaxSlabParts] = {};
  int64_t col_end[kMaxSlabParts] = {};  // exclusive end column of part j, relative to col0
  int32_t count = 0;
  int64_t outer = 0;
  int64_t big_row = 0;
  int64_t col0 = 0;
};
// unit: 1, 2, 4, 8 or 16. to_parts: Split (big -> parts), else Concat.
cudaError_t launch_slab_copy(void* big, const SlabMeta& m, int unit, bool to_parts, bool index32,
                             cudaStream_t stream);

// Gather: out [outer, nidx, inner] = src [outer, axis_dim, inner] at the
// indices (int32 or int64, negative counts from the end). Indices outside
// [-axis_dim, axis_dim) produce zeros: they are never used to address memory.
struct GatherMeta {
  int64_t outer = 0;
  int64_t nidx = 0;
  int64_t inner = 0;  // in units
  int64_t axis_dim = 0;
};
// unit: 1, 2, 4, 8 or 16.
// An index outside [-axis_dim, axis_dim) sets *error (a device int) and
// produces zeros; it never addresses memory.
cudaError_t launch_gather(void* dst, const void* src, const void* indices, bool indices64, int unit, bool index32,
                          const GatherMeta& m, int* error, cudaStream_t stream);

// GatherElements: out (shape of indices, contiguous) at position p =
// data[p with the axis coordinate replaced by indices[p]]. Out-of-range
// indices set *error and produce zeros.
struct GatherElementsMeta {
  int32_t rank = 0;
  int32_t axis = 0;
  int64_t axis_dim = 0;
  int64_t dims[kMoveMaxRank] = {};          // indices / output dims
  int64_t data_strides[kMoveMaxRank] = {};  // element strides of data
};
cudaError_t launch_gather_elements(void* dst, const void* src, const void* indices, bool indices64, int unit,
                                   int64_t n, const GatherElementsMeta& m, int* error, cudaStream_t stream);
// Device code only (SY_EMULATED_CUDA: the host emulation of the kernels in
// tests/devices/cuda/emulated compiles it too).
#if defined(__CUDACC__) || defined(SY_EMULATED_CUDA)
// The element offset in data of position i of the indices (row-major over
// m.dims) with its axis coordinate replaced by g, an in-range index. Shared
// by GatherElements and ScatterElements.
__device__ inline int64_t elements_data_offset(const GatherElementsMeta& m, int64_t i, int64_t g) {
  int64_t rem = i, off = 0;
#pragma unroll
  for (int k = kMoveMaxRank - 1; k >= 0; --k) {
    if (k < m.rank) {
      int64_t c = rem;
      if (k > 0) {
        c = rem % m.dims[k];
        rem /= m.dims[k];
      }
      off += (k == m.axis ? g : c) * m.data_strides[k];
    }
  }
  return off;
}
#endif

// Pad. Modes match tensor_ops::PadMode: 0 constant, 1 reflect, 2 edge, 3 wrap.
struct PadMeta {
  int32_t rank = 0;
  int32_t mode = 0;
  int64_t out_dims[kMoveMaxRank] = {};
  int64_t in_dims[kMoveMaxRank] = {};
  int64_t in_strides[kMoveMaxRank] = {};
  int64_t before[kMoveMaxRank] = {};  // leading pad per axis (negative crops)
  uint64_t value = 0;                 // constant, in its first `unit` bytes
};
// unit: 1, 2, 4 or 8.
cudaError_t launch_pad(void* dst, const void* src, int unit, int64_t n, const PadMeta& m, cudaStream_t stream);

// dst[0..n) = the value in the first `unit` bytes of value_bits. unit: 1, 2, 4, 8.
cudaError_t launch_fill(void* dst, int64_t n, int unit, uint64_t value_bits, cudaStream_t stream);

// dst[0..count) = v[0..count): small host-known results (Shape, Size)
// passed by value, so no host buffer must outlive the call.
struct SmallInt64s {
  int32_t count = 0;
  int64_t v[kMoveMaxRank] = {};
};
cudaError_t launch_write_int64s(int64_t* dst, const SmallInt64s& values, cudaStream_t stream);

}  // namespace sy::cuda

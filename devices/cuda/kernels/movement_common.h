// Host-side helpers shared by the CUDA movement kernel files
// (movement_kernels.cc, movement_index_kernels.cc). Stateless and
// thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "devices/cuda/cuda_launch.h"
#include "devices/kernel_registry.h"
#include "ir/dims.h"

namespace sy::cuda {

// Element types the movement kernels accept: everything stored as plain
// bytes of 1-8 (no strings, no 16-byte complex).
const std::vector<DataType>& movement_types();

// The widest unit (bytes, a power of two up to max_unit) that is a multiple
// of elem_size and divides every value OR-ed into `must_divide` (row byte
// counts, byte strides, addresses). Copies then move units, not elements.
int widest_unit(size_t elem_size, uint64_t must_divide, int max_unit = 16);

inline uint64_t address_bits(const void* p) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)); }

// True if n and every offset up to max_offset fit in int32 index math.
inline bool fits_index32(int64_t n, int64_t max_offset = 0) {
  constexpr int64_t kLimit = int64_t{1} << 31;
  return n < kLimit && max_offset < kLimit;
}

// dst (contiguous, out_dims) = src viewed with element strides src_strides
// (negative for reversed axes, 0 for broadcast); src points at the element of
// output index 0. Collapses the view, then picks a memcpy, the tiled
// transpose, or the strided-copy kernel (widened where rows allow). Enqueues
// on l.stream. Unimplemented if the collapsed view has more than
// kMoveMaxViewDims dims.
Status copy_view(const Launch& l, DataType dtype, void* dst, const void* src, const Dims& out_dims,
                 const Dims& src_strides);

void register_cuda_movement_index_kernels(KernelRegistry& r);  // movement_index_kernels.cc

}  // namespace sy::cuda

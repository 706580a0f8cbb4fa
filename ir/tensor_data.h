// TensorData: a host-resident constant tensor owned by the IR (initializers,
// Constant values, tensor attributes). Devices wrap it without copying.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "ir/data_type.h"
#include "ir/dims.h"

namespace sy {

// Memory aligned to a cache line (64 bytes). A constant's first element
// starts a line, so that the kernels' 64-byte vector loads of a weight do
// not each straddle two: at malloc's 16-byte alignment a [4096, 4096]
// MatMul weight streamed from memory at three quarters of the speed.
template <class T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlign{64};
  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlign)); }
  void deallocate(T* p, size_t) { ::operator delete(p, kAlign); }
  bool operator==(const CacheLineAllocator&) const = default;
};

using AlignedBytes = std::vector<uint8_t, CacheLineAllocator<uint8_t>>;

struct TensorData {
  DataType dtype = DataType::kUndefined;
  Dims dims;
  std::string name;
  // Raw little-endian element bytes for every type except strings.
  AlignedBytes bytes;
  // Element values for DataType::kString.
  std::vector<std::string> strings;

  int64_t numel() const { return dims.numel(); }
  template <typename T>
  const T* data() const { return reinterpret_cast<const T*>(bytes.data()); }
};

}  // namespace sy

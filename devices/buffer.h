// Buffer: a reference-counted block of device memory tagged with its memory
// space. The refcount is intrusive so that handing a tensor from one node to
// the next never allocates.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "devices/device_id.h"
#include "ir/data_type.h"

namespace sy {

struct Buffer {
  void* data = nullptr;
  size_t bytes = 0;
  MemorySpace space;
  // Number of std::string objects constructed in `data` (string tensors only);
  // they are destroyed before the memory is released.
  int64_t num_strings = 0;
  std::atomic<int32_t> refs{1};
  // Returns the memory (and the Buffer header) to whoever made it. A plain
  // function pointer, not std::function, to keep release allocation-free.
  void (*release)(Buffer*) = nullptr;
  void* owner = nullptr;  // allocator or keep-alive object, used by release
};

class BufferRef {
 public:
  BufferRef() = default;
  explicit BufferRef(Buffer* b) : b_(b) {}  // adopts one reference
  BufferRef(const BufferRef& o) : b_(o.b_) {
    if (b_) b_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  BufferRef(BufferRef&& o) noexcept : b_(std::exchange(o.b_, nullptr)) {}
  BufferRef& operator=(const BufferRef& o) {
    BufferRef(o).swap(*this);
    return *this;
  }
  BufferRef& operator=(BufferRef&& o) noexcept {
    BufferRef(std::move(o)).swap(*this);
    return *this;
  }
  ~BufferRef() { reset(); }
  void reset() {
    if (b_ && b_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) destroy(b_);
    b_ = nullptr;
  }
  void swap(BufferRef& o) noexcept { std::swap(b_, o.b_); }
  Buffer* get() const { return b_; }
  Buffer* operator->() const { return b_; }
  explicit operator bool() const { return b_ != nullptr; }
  int32_t use_count() const { return b_ ? b_->refs.load(std::memory_order_relaxed) : 0; }

 private:
  static void destroy(Buffer* b);
  Buffer* b_ = nullptr;
};

}  // namespace sy

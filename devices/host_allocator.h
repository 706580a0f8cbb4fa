// HostAllocator: 64-byte aligned host memory with per-thread size-class
// caches. A run that frees a tensor and allocates one of the same size class
// reuses the block without a lock or a malloc, which keeps the per-node hot
// path allocation-free in steady state. Blocks over 1 MiB are kept in one
// bounded process-wide cache, so that steady runs touch no fresh pages.
// A GPU backend may install a BlockSource of page-locked memory for large
// buffers (set_block_source).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "devices/buffer.h"
#include "ir/status.h"

namespace sy {

class HostAllocator {
 public:
  // Where buffers of at least a set size come from instead of ordinary
  // memory. The CUDA backend installs page-locked memory here: a copy from
  // it to a GPU is a DMA that the issuing thread does not wait for, where
  // the driver stages ordinary memory while the run loop waits.
  class BlockSource {
   public:
    virtual ~BlockSource() = default;
    // A block of at least `bytes`, or nullptr to decline (the allocator
    // then uses ordinary memory). Thread-safe.
    virtual void* take(size_t bytes) = 0;
    // Returns a block take(bytes) gave. Thread-safe; any thread.
    virtual void give_back(void* block, size_t bytes) = 0;
  };

  // `space` tags every buffer it makes; `capacity_bytes` bounds one request so
  // that an absurd shape fails with ResourceExhausted instead of an OOM kill.
  HostAllocator(MemorySpace space, uint64_t capacity_bytes);
  HostAllocator(const HostAllocator&) = delete;
  HostAllocator& operator=(const HostAllocator&) = delete;

  // Thread-safe. Strings are constructed in place when `dtype` is kString.
  StatusOr<BufferRef> allocate(size_t bytes, DataType dtype = DataType::kUndefined, int64_t numel = 0);
  MemorySpace space() const { return space_; }
  uint64_t capacity() const { return capacity_.load(std::memory_order_relaxed); }
  // Thread-safe. Lowers (or raises) the bound on the bytes held at once, e.g.
  // for an embedder that shares the machine; tensors already held stay.
  void set_capacity(uint64_t bytes) { capacity_.store(bytes, std::memory_order_relaxed); }
  uint64_t bytes_in_use() const { return in_use_.load(std::memory_order_relaxed); }
  uint64_t peak_bytes() const { return peak_.load(std::memory_order_relaxed); }

  // From now on, numeric buffers of at least `min_bytes` are asked of
  // `source` first; nullptr goes back to ordinary memory. The source must
  // outlive every buffer it gave. Thread-safe.
  void set_block_source(BlockSource* source, size_t min_bytes);
  // The source `b` came from, or nullptr.
  static const BlockSource* source_of(const Buffer* b);

  // The process-wide allocator for host memory space kHostSpace.
  static HostAllocator& host();

 private:
  static void release(Buffer* b);
  static void release_sourced(Buffer* b);
  MemorySpace space_;
  std::atomic<BlockSource*> source_{nullptr};
  std::atomic<size_t> source_min_bytes_{0};
  std::atomic<uint64_t> capacity_;
  std::atomic<uint64_t> in_use_{0};
  std::atomic<uint64_t> peak_{0};
};

// Physical memory of this machine, or the process's cgroup memory limit if
// that is lower: the default capacity.
uint64_t physical_memory_bytes();

// For kernels whose host-side tables (batch offsets, sampling taps) grow
// with dims that a model or its inputs can make huge, even when the data
// is small or empty: they size the tables up with this before making them,
// since a std::vector too large to be had throws. ResourceExhausted when
// `bytes` (a double, so the caller's sum cannot overflow) is more than the
// host allocator gives one tensor.
Status check_host_table_bytes(double bytes, const std::string& what);

}  // namespace sy

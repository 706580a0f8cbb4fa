// PinnedPool: page-locked host memory for transfers, cached by size class.
//
// Copies between the host and a GPU run asynchronously, at full link speed,
// only from page-locked memory, and allocating or freeing it is slow
// (cudaFreeHost even synchronises the device). So blocks are allocated once
// with cudaHostAlloc(portable) and then recycled: results copied back from a
// GPU land in them, and large copies from ordinary host memory are staged
// through them chunk by chunk.
//
// Once a GPU joins a session it also serves the host allocator's larger
// tensors (serve_host_tensors), within a budget: what the CPU computes for
// a GPU, and inputs made after, then copy without staging.
//
// Process-wide and never destroyed, because host tensors made from it (run
// outputs) may outlive every session and device.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "devices/buffer.h"
#include "devices/host_allocator.h"
#include "ir/status.h"

namespace sy::cuda {

class PinnedPool {
 public:
  static PinnedPool& instance();

  // A buffer of at least `bytes` tagged with memory space `space` (a host
  // space). Thread-safe.
  StatusOr<BufferRef> allocate(size_t bytes, MemorySpace space);
  // A raw staging block and its size class, returned with give_back(),
  // which may be called from a CUDA host callback (it makes no CUDA call).
  StatusOr<void*> take(size_t bytes, int* size_class);
  void give_back(void* block, int size_class);

  // Blocks (and size classes) whose return waits for queued copies.
  using Held = std::vector<std::pair<void*, int>>;
  // While a CUDA device launches a task on this thread, a buffer of this
  // pool dropped there (a copied result the task discards on a failure, a
  // pinned source) may still be written or read by a copy the task queued:
  // it goes to `held` instead of back to the pool, and the device returns
  // the list with give_back_all() once the task's work is done. Returns the
  // list it replaces, to restore afterwards. Thread-safety: per thread.
  static Held* hold_releases(Held* held);
  // Puts `block` on this thread's held list; false if none is set (the
  // caller must then keep the block out of the pool).
  static bool hold(void* block, int size_class);
  // Makes no CUDA call: may run in a host callback.
  void give_back_all(Held& held);

  // True if `b` was made by this pool (its memory is page-locked), as a
  // result, a staging block or a host tensor.
  static bool owns(const Buffer* b);

  // Host tensors of at least this size come from the pool once it serves
  // them: smaller copies cost about their launch either way.
  static constexpr size_t kHostTensorMinBytes = size_t{64} << 10;
  // Makes the pool the source of HostAllocator::host()'s tensors of
  // kHostTensorMinBytes and more, growing only while it holds less than
  // `budget_bytes` of page-locked memory in all (free blocks are reused
  // past it); beyond that, and if page-locking fails, tensors take ordinary
  // memory. 0 stops. Thread-safe.
  void serve_host_tensors(uint64_t budget_bytes);
  // The budget from SWITCHYARD_PINNED_HOST_MIB (MiB; 0 turns it off), by
  // default a quarter of physical memory; an error names a bad value.
  static StatusOr<uint64_t> host_tensor_budget_from_env();
  // Page-locked bytes allocated so far (never freed).
  uint64_t allocated_bytes();

 private:
  class HostTensors final : public HostAllocator::BlockSource {
   public:
    explicit HostTensors(PinnedPool& pool) : pool_(pool) {}
    void* take(size_t bytes) override;
    void give_back(void* block, size_t bytes) override;
    std::atomic<uint64_t> budget{0};

   private:
    PinnedPool& pool_;
  };

  PinnedPool() = default;
  static void release(Buffer* b);
  // A free block of class `c`, or nullptr.
  void* reuse(int c);

  std::mutex mu_;
  std::vector<std::vector<void*>> free_;  // per size class
  uint64_t allocated_ = 0;                // page-locked bytes, under mu_
  HostTensors host_tensors_{*this};
};

}  // namespace sy::cuda

#include "devices/cuda/pinned_pool.h"

#include <bit>

#include "devices/cuda/cuda_check.h"
#include "devices/host_allocator.h"

namespace sy::cuda {
namespace {
constexpr int kMinClassLog2 = 12;  // 4 KiB: smaller copies gain nothing from pinning
constexpr int kMaxClassLog2 = 40;
// Power-of-two classes: a returned block is never freed (cudaFreeHost
// would synchronise the device), so rounding up keeps reuse high.
int class_of(size_t bytes) {
  const size_t b = bytes < (size_t{1} << kMinClassLog2) ? (size_t{1} << kMinClassLog2) : bytes;
  return static_cast<int>(std::bit_width(b - 1)) - kMinClassLog2;
}
size_t class_bytes(int c) { return size_t{1} << (c + kMinClassLog2); }
thread_local PinnedPool::Held* t_held = nullptr;  // see hold_releases()
}  // namespace

PinnedPool& PinnedPool::instance() {
  static PinnedPool* p = new PinnedPool();  // never destroyed, see header
  return *p;
}

StatusOr<void*> PinnedPool::take(size_t bytes, int* size_class) {
  const int c = class_of(bytes);
  if (c + kMinClassLog2 > kMaxClassLog2) return ResourceExhausted("pinned host buffer of ", bytes, " bytes is too large");
  *size_class = c;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (static_cast<size_t>(c) < free_.size() && !free_[static_cast<size_t>(c)].empty()) {
      void* p = free_[static_cast<size_t>(c)].back();
      free_[static_cast<size_t>(c)].pop_back();
      return p;
    }
  }
  void* p = nullptr;
  CUDA_RETURN_IF_ERROR(cudaHostAlloc(&p, class_bytes(c), cudaHostAllocPortable));
  return p;
}

void PinnedPool::give_back(void* block, int size_class) {
  std::lock_guard<std::mutex> lock(mu_);
  if (free_.size() <= static_cast<size_t>(size_class)) free_.resize(static_cast<size_t>(size_class) + 1);
  free_[static_cast<size_t>(size_class)].push_back(block);
}

PinnedPool::Held* PinnedPool::hold_releases(Held* held) { return std::exchange(t_held, held); }

bool PinnedPool::hold(void* block, int size_class) {
  if (!t_held) return false;
  t_held->emplace_back(block, size_class);
  return true;
}

void PinnedPool::give_back_all(Held& held) {
  for (auto [block, size_class] : held) give_back(block, size_class);
  held.clear();
}

StatusOr<BufferRef> PinnedPool::allocate(size_t bytes, MemorySpace space) {
  // A tensor in pinned memory (a result copied back from a GPU) is host
  // memory like any other: the host allocator's bound on one tensor holds
  // for it too, or a GPU larger than that bound would bring back what the
  // host refuses to make (a mutant's 16 GiB ReduceMax output did).
  if (const uint64_t capacity = HostAllocator::host().capacity(); bytes > capacity)
    return ResourceExhausted("cannot allocate ", bytes, " bytes in ", space.to_string(), " (capacity ", capacity,
                             " bytes)");
  int c = 0;
  ASSIGN_OR_RETURN(void* block, take(bytes, &c));
  auto* b = new Buffer();
  b->data = block;
  b->bytes = bytes;
  b->space = space;
  b->release = &PinnedPool::release;
  b->owner = reinterpret_cast<void*>(static_cast<intptr_t>(c));
  return BufferRef(b);
}

void PinnedPool::release(Buffer* b) {
  const int c = static_cast<int>(reinterpret_cast<intptr_t>(b->owner));
  if (!hold(b->data, c)) instance().give_back(b->data, c);
  delete b;
}

bool PinnedPool::owns(const Buffer* b) { return b && b->release == &PinnedPool::release; }

}  // namespace sy::cuda

#include "devices/cuda/pinned_pool.h"

#include <bit>
#include <cerrno>
#include <cstdlib>

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

void* PinnedPool::reuse(int c) {
  std::lock_guard<std::mutex> lock(mu_);
  if (static_cast<size_t>(c) >= free_.size() || free_[static_cast<size_t>(c)].empty()) return nullptr;
  void* p = free_[static_cast<size_t>(c)].back();
  free_[static_cast<size_t>(c)].pop_back();
  return p;
}

StatusOr<void*> PinnedPool::take(size_t bytes, int* size_class) {
  const int c = class_of(bytes);
  if (c + kMinClassLog2 > kMaxClassLog2) return ResourceExhausted("pinned host buffer of ", bytes, " bytes is too large");
  *size_class = c;
  if (void* p = reuse(c)) return p;
  void* p = nullptr;
  CUDA_RETURN_IF_ERROR(cudaHostAlloc(&p, class_bytes(c), cudaHostAllocPortable));
  std::lock_guard<std::mutex> lock(mu_);
  allocated_ += class_bytes(c);
  return p;
}

void* PinnedPool::HostTensors::take(size_t bytes) {
  const int c = class_of(bytes);
  if (c + kMinClassLog2 > kMaxClassLog2) return nullptr;
  if (void* p = pool_.reuse(c)) return p;
  {
    // Counted before the allocation, so that threads allocating at once
    // cannot all pass the budget.
    std::lock_guard<std::mutex> lock(pool_.mu_);
    if (pool_.allocated_ + class_bytes(c) > budget.load(std::memory_order_relaxed)) return nullptr;
    pool_.allocated_ += class_bytes(c);
  }
  void* p = nullptr;
  if (cudaHostAlloc(&p, class_bytes(c), cudaHostAllocPortable) == cudaSuccess) return p;
  // Out of lockable memory (a ulimit, a container): ordinary memory will
  // do. Clear the error, or the next launch check on this thread reports it.
  (void)cudaGetLastError();
  std::lock_guard<std::mutex> lock(pool_.mu_);
  pool_.allocated_ -= class_bytes(c);
  return nullptr;
}

void PinnedPool::HostTensors::give_back(void* block, size_t bytes) {
  // Like a result's block: a copy a task on this thread queued may still read it.
  const int c = class_of(bytes);
  if (!hold(block, c)) pool_.give_back(block, c);
}

void PinnedPool::serve_host_tensors(uint64_t budget_bytes) {
  host_tensors_.budget.store(budget_bytes, std::memory_order_relaxed);
  HostAllocator::host().set_block_source(budget_bytes > 0 ? &host_tensors_ : nullptr, kHostTensorMinBytes);
}

StatusOr<uint64_t> PinnedPool::host_tensor_budget_from_env() {
  const char* v = std::getenv("SWITCHYARD_PINNED_HOST_MIB");
  if (!v || !*v) return physical_memory_bytes() / 4;
  char* end = nullptr;
  errno = 0;
  const unsigned long long mib = std::strtoull(v, &end, 10);
  if (*end != '\0' || errno == ERANGE || v[0] == '-' || mib > (uint64_t{1} << 40))
    return InvalidArgument("SWITCHYARD_PINNED_HOST_MIB is '", v,
                           "'; give the MiB of page-locked memory host tensors may take (0 turns it off)");
  return static_cast<uint64_t>(mib) << 20;
}

uint64_t PinnedPool::allocated_bytes() {
  std::lock_guard<std::mutex> lock(mu_);
  return allocated_;
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

bool PinnedPool::owns(const Buffer* b) {
  return b && (b->release == &PinnedPool::release || HostAllocator::source_of(b) == &instance().host_tensors_);
}

}  // namespace sy::cuda

#include "devices/host_allocator.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <new>
#include <string>

namespace sy {
namespace {

constexpr size_t kAlign = 64;
constexpr size_t kHeader = 64;  // Buffer header lives in the first 64 bytes
static_assert(sizeof(Buffer) <= kHeader);
constexpr int kNumClasses = 15;  // 64 B .. 1 MiB
constexpr int kMaxCachedPerClass = 64;

int size_class(size_t bytes) {
  size_t cap = 64;
  for (int c = 0; c < kNumClasses; ++c, cap <<= 1)
    if (bytes <= cap) return c;
  return -1;
}
size_t class_bytes(int c) { return size_t{64} << c; }

struct FreeBlock {
  FreeBlock* next;
};

// Per-thread free lists. Blocks are plain aligned_alloc memory, so a block
// freed on one thread may be reused on another.
struct ThreadCache {
  FreeBlock* head[kNumClasses] = {};
  int count[kNumClasses] = {};
  ~ThreadCache() {
    for (auto*& h : head) {
      while (h) {
        FreeBlock* n = h->next;
        std::free(h);
        h = n;
      }
    }
  }
};
thread_local ThreadCache t_cache;

void* take_block(int cls, size_t total) {
  if (cls >= 0) {
    if (FreeBlock* b = t_cache.head[cls]) {
      t_cache.head[cls] = b->next;
      --t_cache.count[cls];
      return b;
    }
    total = kHeader + class_bytes(cls);
  }
  return std::aligned_alloc(kAlign, (total + kAlign - 1) / kAlign * kAlign);
}

void give_block(void* p, int cls) {
  if (cls >= 0 && t_cache.count[cls] < kMaxCachedPerClass) {
    auto* b = static_cast<FreeBlock*>(p);
    b->next = t_cache.head[cls];
    t_cache.head[cls] = b;
    ++t_cache.count[cls];
    return;
  }
  std::free(p);
}

}  // namespace

void BufferRef::destroy(Buffer* b) {
  if (b->num_strings > 0) {
    auto* s = static_cast<std::string*>(b->data);
    for (int64_t i = 0; i < b->num_strings; ++i) s[i].~basic_string();
    b->num_strings = 0;
  }
  b->release(b);
}

namespace {
// The memory limit of this process's cgroup (v2, then v1), or 0 if none can
// be read: in a container it, not the host's RAM, is what an allocation
// can use before the OOM killer ends the process.
uint64_t cgroup_limit_bytes() {
  for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream f(path);
    unsigned long long v = 0;
    if (f >> v && v > 0) return v;  // "max" (no limit) fails to parse
  }
  return 0;
}
}  // namespace

uint64_t physical_memory_bytes() {
  static const uint64_t bytes = [] {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page = sysconf(_SC_PAGE_SIZE);
    uint64_t b = pages <= 0 || page <= 0 ? uint64_t{8} << 30 : static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
    if (const uint64_t limit = cgroup_limit_bytes(); limit > 0) b = std::min(b, limit);
    return b;
  }();
  return bytes;
}

HostAllocator::HostAllocator(MemorySpace space, uint64_t capacity_bytes) : space_(space), capacity_(capacity_bytes) {}

HostAllocator& HostAllocator::host() {
  static HostAllocator* a = new HostAllocator(kHostSpace, physical_memory_bytes());  // never destroyed: buffers may outlive statics
  return *a;
}

StatusOr<BufferRef> HostAllocator::allocate(size_t bytes, DataType dtype, int64_t numel) {
  const uint64_t capacity = capacity_.load(std::memory_order_relaxed);
  if (bytes > capacity) {
    return ResourceExhausted("cannot allocate ", bytes, " bytes in ", space_.to_string(), " (capacity ", capacity,
                             " bytes)");
  }
  uint64_t now = in_use_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  if (now > capacity) {
    in_use_.fetch_sub(bytes, std::memory_order_relaxed);
    return ResourceExhausted("out of memory in ", space_.to_string(), ": ", bytes, " bytes requested, ",
                             now - bytes, " in use of ", capacity);
  }
  uint64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  int cls = size_class(bytes);
  void* block = take_block(cls, kHeader + bytes);
  if (!block) {
    in_use_.fetch_sub(bytes, std::memory_order_relaxed);
    return ResourceExhausted("host allocation of ", bytes, " bytes failed");
  }
  auto* b = new (block) Buffer();
  b->data = static_cast<char*>(block) + kHeader;
  b->bytes = bytes;
  b->space = space_;
  b->release = &HostAllocator::release;
  b->owner = this;
  if (dtype == DataType::kString) {
    auto* s = static_cast<std::string*>(b->data);
    for (int64_t i = 0; i < numel; ++i) new (s + i) std::string();
    b->num_strings = numel;
  }
  return BufferRef(b);
}

void HostAllocator::release(Buffer* b) {
  auto* self = static_cast<HostAllocator*>(b->owner);
  size_t bytes = b->bytes;
  self->in_use_.fetch_sub(bytes, std::memory_order_relaxed);
  b->~Buffer();
  give_block(b, size_class(bytes));
}

}  // namespace sy

#include "devices/host_allocator.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

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

// Blocks of more than 1 MiB: one process-wide cache under a mutex (such
// allocations are few), by size rounded up to one of four steps per power
// of two, holding at most 1 GiB or a sixteenth of memory. Without it each
// came from mmap and went back at free, so a run touched fresh pages every
// time: a 768x768 Transpose took 0.8 ms instead of 0.2 in page faults,
// depending on whether glibc's adaptive mmap threshold had risen above the
// size yet.
struct BigCache {
  std::mutex mu;
  std::unordered_map<size_t, std::vector<void*>> free;
  size_t bytes = 0;
  const size_t limit = std::min<uint64_t>(uint64_t{1} << 30, physical_memory_bytes() / 16);
};
BigCache& big_cache() {
  static auto* c = new BigCache();  // never destroyed: buffers may outlive statics
  return *c;
}
size_t big_block_bytes(size_t total) {
  const size_t step = std::bit_floor(total - 1) / 4;
  return (total + step - 1) / step * step;
}

// A block for a buffer of `bytes` and its header.
void* take_block(size_t bytes) {
  const int cls = size_class(bytes);
  if (cls >= 0) {
    if (FreeBlock* b = t_cache.head[cls]) {
      t_cache.head[cls] = b->next;
      --t_cache.count[cls];
      return b;
    }
    return std::aligned_alloc(kAlign, kHeader + class_bytes(cls));
  }
  const size_t size = big_block_bytes(kHeader + bytes);
  {
    BigCache& c = big_cache();
    std::lock_guard<std::mutex> lock(c.mu);
    if (auto it = c.free.find(size); it != c.free.end() && !it->second.empty()) {
      void* b = it->second.back();
      it->second.pop_back();
      c.bytes -= size;
      return b;
    }
  }
  return std::aligned_alloc(kAlign, size);
}

void give_block(void* p, size_t bytes) {
  const int cls = size_class(bytes);
  if (cls >= 0) {
    if (t_cache.count[cls] < kMaxCachedPerClass) {
      auto* b = static_cast<FreeBlock*>(p);
      b->next = t_cache.head[cls];
      t_cache.head[cls] = b;
      ++t_cache.count[cls];
      return;
    }
  } else {
    const size_t size = big_block_bytes(kHeader + bytes);
    BigCache& c = big_cache();
    std::lock_guard<std::mutex> lock(c.mu);
    if (c.bytes + size <= c.limit) {
      c.free[size].push_back(p);
      c.bytes += size;
      return;
    }
  }
  std::free(p);
}

// A buffer whose memory came from a BlockSource. Its header lives apart
// from the block (a source's blocks have sizes of their own), and it
// remembers the source, which may have been replaced since.
struct Sourced : Buffer {
  HostAllocator::BlockSource* source = nullptr;
};

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

Status check_host_table_bytes(double bytes, const std::string& what) {
  const uint64_t capacity = HostAllocator::host().capacity();
  if (bytes <= static_cast<double>(capacity)) return OkStatus();
  // A whole number where it fits in 64 bits, as the allocator's own errors give.
  const std::string amount = bytes < 1e19 ? std::to_string(static_cast<uint64_t>(bytes)) : std::to_string(bytes);
  return ResourceExhausted(what, " would take ", amount, " bytes, more than the ", capacity,
                           " the host allocator gives one tensor");
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
  if (BlockSource* source = source_.load(std::memory_order_acquire);
      source && dtype != DataType::kString && bytes >= source_min_bytes_.load(std::memory_order_relaxed)) {
    if (void* block = source->take(bytes)) {
      auto* b = new Sourced();
      b->data = block;
      b->bytes = bytes;
      b->space = space_;
      b->release = &HostAllocator::release_sourced;
      b->owner = this;
      b->source = source;
      return BufferRef(b);
    }
  }
  void* block = take_block(bytes);
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

void HostAllocator::set_block_source(BlockSource* source, size_t min_bytes) {
  source_min_bytes_.store(min_bytes, std::memory_order_relaxed);
  source_.store(source, std::memory_order_release);
}

const HostAllocator::BlockSource* HostAllocator::source_of(const Buffer* b) {
  return b && b->release == &HostAllocator::release_sourced ? static_cast<const Sourced*>(b)->source : nullptr;
}

void HostAllocator::release_sourced(Buffer* b) {
  auto* s = static_cast<Sourced*>(b);
  static_cast<HostAllocator*>(b->owner)->in_use_.fetch_sub(b->bytes, std::memory_order_relaxed);
  s->source->give_back(b->data, b->bytes);
  delete s;
}

void HostAllocator::release(Buffer* b) {
  auto* self = static_cast<HostAllocator*>(b->owner);
  size_t bytes = b->bytes;
  self->in_use_.fetch_sub(bytes, std::memory_order_relaxed);
  b->~Buffer();
  give_block(b, bytes);
}

}  // namespace sy

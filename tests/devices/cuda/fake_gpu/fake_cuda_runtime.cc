// The simulated CUDA runtime described in fake_cuda.h: the subset of the
// runtime API that devices/cuda calls, plus the registration hooks that
// nvcc's generated host code calls at start-up. The test binary links this
// file before the CUDA runtime library, so the linker takes no member of
// the real one (a missing function here shows as a duplicate definition).
#include "tests/devices/cuda/fake_gpu/fake_cuda.h"

#include <cuda_runtime.h>
#include <sanitizer/asan_interface.h>  // its macros are no-ops outside ASan builds

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

using sy::fake_cuda::kFakeGpuMemory;
using sy::fake_cuda::kFakeGpus;

// The runtime's opaque handle types, made concrete here.
struct CUstream_st {
  int device = 0;
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::function<void()>> queue;
  uint64_t enqueued = 0;
  uint64_t done = 0;
  bool destroyed = false;
  uint32_t seed = 0;
};

struct CUevent_st {
  int device = 0;
  CUstream_st* stream = nullptr;  // of the last record, null before one
  uint64_t target = 0;            // that stream's operation count then
};

struct CUmemPoolHandle_st {
  int device = 0;
};

namespace {

struct Block {
  size_t bytes = 0;
  int device = -1;  // -1: pinned host memory
  bool live = true;
  bool ready = true;     // false until the stream of a stream-ordered allocation reaches it
  bool freeing = false;  // a stream-ordered free is queued
};

// Never destroyed: detached stream threads may still wait on it at exit.
struct State {
  std::mutex mu;
  std::map<uintptr_t, Block> blocks;  // by start address, live and quarantined
  std::deque<uintptr_t> quarantine;   // dead blocks kept poisoned a while
  size_t quarantined_bytes = 0;
  uint64_t device_bytes[kFakeGpus] = {};
  bool peer[kFakeGpus][kFakeGpus] = {};
  std::vector<CUstream_st*> streams;  // not destroyed yet (none is ever freed)
  CUstream_st* legacy[kFakeGpus] = {};
  CUmemPoolHandle_st pools[kFakeGpus];
  std::atomic<bool> faulted[kFakeGpus] = {};
  std::atomic<int64_t> fault_in[kFakeGpus] = {};  // operations left before a fault; 0: none pending
  std::atomic<uint32_t> jitter_seed{0};
  std::atomic<int> jitter_us{0};
  std::atomic<uint32_t> stream_count{0};
  std::atomic<uint64_t> peer_copies{0};
  std::atomic<uint64_t> pageable_copies{0};
  std::atomic<int64_t> events{0};
};

State& st() {
  static State* s = [] {
    auto* s = new State();
    for (int d = 0; d < kFakeGpus; ++d) s->pools[d].device = d;
    return s;
  }();
  return *s;
}

constexpr size_t kQuarantineBytes = size_t{32} << 20;
constexpr unsigned char kUninitialised = 0xCD;
constexpr unsigned char kFreed = 0xDD;

// Device memory is host memory, but its address as handed out lies this far
// above it, outside the canonical address range: the host cannot read it,
// as it cannot read a real GPU's memory, so a host-side read of a device
// tensor crashes here as it would there. Only the fake's own copies and
// host kernels reach the memory behind it (host_view). Not with the
// emulated kernels (tests/devices/cuda/emulated), whose device code runs on
// the host and reads device addresses itself.
#if SY_FAKE_CUDA_HOST_READABLE_DEVICE_MEMORY
constexpr uintptr_t kDeviceAddressOffset = 0;
#else
constexpr uintptr_t kDeviceAddressOffset = uintptr_t{1} << 62;
#endif

void* device_address(void* host) {
  return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(host) + kDeviceAddressOffset);
}

thread_local int t_device = 0;
thread_local cudaError_t t_error = cudaSuccess;
thread_local bool t_in_host_code = false;  // running a host function or stream callback

[[noreturn]] void violation(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::fputs("fake CUDA: ", stderr);
  std::vfprintf(stderr, fmt, args);
  std::fputc('\n', stderr);
  va_end(args);
  std::fflush(stderr);
  std::abort();
}

// Every API call but cudaGetErrorString starts here.
void enter(const char* api) {
  if (t_in_host_code) violation("%s called from a host function or stream callback (CUDA forbids it)", api);
}

cudaError_t fail(cudaError_t e) {
  t_error = e;
  return e;
}

bool faulted(int device) { return st().faulted[device].load(); }
bool valid_device(int d) { return d >= 0 && d < kFakeGpus; }

void run_host_code(const std::function<void()>& f) {
  t_in_host_code = true;
  f();
  t_in_host_code = false;
}

void stream_loop(CUstream_st* s) {
  State& g = st();
  std::minstd_rand rng(s->seed);
  for (;;) {
    std::function<void()> op;
    {
      std::unique_lock<std::mutex> lock(s->mu);
      s->cv.wait(lock, [&] { return !s->queue.empty() || s->destroyed; });
      if (s->queue.empty()) break;  // destroyed and drained
      op = std::move(s->queue.front());
      s->queue.pop_front();
    }
    if (const int us = g.jitter_us.load(); us > 0 && rng() % 4 == 0)
      std::this_thread::sleep_for(std::chrono::microseconds(rng() % static_cast<unsigned>(us)));
    if (g.fault_in[s->device].load() > 0 && g.fault_in[s->device].fetch_sub(1) == 1) g.faulted[s->device] = true;
    op();
    {
      std::lock_guard<std::mutex> lock(s->mu);
      ++s->done;
    }
    s->cv.notify_all();
  }
  // Off the list that synchronising calls walk. The stream itself stays:
  // an event recorded on it may still be waited for.
  std::lock_guard<std::mutex> lock(g.mu);
  g.streams.erase(std::find(g.streams.begin(), g.streams.end(), s));
}

CUstream_st* new_stream(int device) {
  State& g = st();
  auto* s = new CUstream_st();
  s->device = device;
  s->seed = g.jitter_seed.load() * 7919u + g.stream_count.fetch_add(1);
  {
    std::lock_guard<std::mutex> lock(g.mu);
    g.streams.push_back(s);
  }
  std::thread(stream_loop, s).detach();
  return s;
}

// The stream a handle names; the default stream (0) is one per device.
CUstream_st* resolve(cudaStream_t s) {
  if (s != nullptr && s != cudaStreamLegacy && s != cudaStreamPerThread) return s;
  static std::once_flag once[kFakeGpus];
  const int d = t_device;
  std::call_once(once[d], [d] { st().legacy[d] = new_stream(d); });
  return st().legacy[d];
}

// Queues `op`; returns the stream's operation count with it.
uint64_t push(CUstream_st* s, std::function<void()> op) {
  std::lock_guard<std::mutex> lock(s->mu);
  if (s->destroyed) violation("operation queued on a destroyed stream");
  s->queue.push_back(std::move(op));
  s->cv.notify_all();
  return ++s->enqueued;
}

void wait_for(CUstream_st* s, uint64_t target) {
  std::unique_lock<std::mutex> lock(s->mu);
  s->cv.wait(lock, [&] { return s->done >= target; });
}

void drain(CUstream_st* s) {
  uint64_t target;
  {
    std::lock_guard<std::mutex> lock(s->mu);
    target = s->enqueued;
  }
  wait_for(s, target);
}

void drain_all() {
  std::vector<CUstream_st*> all;
  {
    std::lock_guard<std::mutex> lock(st().mu);
    all = st().streams;
  }
  for (CUstream_st* s : all) drain(s);
}

// The block holding [p, p + n), or null. Caller holds st().mu.
Block* block_of(const void* p, size_t n, uintptr_t* start = nullptr) {
  auto& blocks = st().blocks;
  const auto a = reinterpret_cast<uintptr_t>(p);
  auto it = blocks.upper_bound(a);
  if (it == blocks.begin()) return nullptr;
  --it;
  const size_t span = std::max<size_t>(it->second.bytes, 1);
  if (a < it->first || a + n > it->first + span) return nullptr;
  if (start) *start = it->first;
  return &it->second;
}

enum class Kind { kDevice, kPinned, kPageable };

// Where [p, p + n) lives; a range in a dead allocation is a violation.
Kind classify(const void* p, size_t n, int* device, const char* what) {
  std::lock_guard<std::mutex> lock(st().mu);
  Block* b = block_of(p, n);
  if (!b) return Kind::kPageable;
  if (!b->live) violation("%s: %zu bytes at %p are in an allocation that was freed", what, n, p);
  if (b->device < 0) return Kind::kPinned;
  *device = b->device;
  return Kind::kDevice;
}

// At execution: the range must still be in a live block of that kind.
void check_live(const void* p, size_t n, Kind kind, const char* what) {
  if (kind == Kind::kPageable || n == 0) return;
  std::lock_guard<std::mutex> lock(st().mu);
  Block* b = block_of(p, n);
  if (!b || !b->live)
    violation("%s: a stream reached an operation on %zu bytes at %p after their %s was freed", what, n, p,
              kind == Kind::kDevice ? "device allocation" : "pinned block");
  if (!b->ready)
    violation(
        "%s: a stream reached an operation on %zu bytes at %p before the stream-ordered allocation of "
        "that memory (no event or synchronisation orders them)",
        what, n, p);
}

size_t span_of(size_t n) { return (std::max<size_t>(n, 1) + 255) / 256 * 256; }

// Under AddressSanitizer, the bytes of a block that no one may touch are
// poisoned: the rounding past its end, all of it until the stream reaches a
// stream-ordered allocation, all of it once freed. The copies and host
// functions above check the same by range; this catches what they cannot
// see, the emulated kernels' own reads and writes of device memory (and the
// host's of pinned memory), at the faulting instruction. Elsewhere, no-ops.
void poison(const void* p, size_t n) { ASAN_POISON_MEMORY_REGION(sy::fake_cuda::host_view(p), n); }
void unpoison(const void* p, size_t n) { ASAN_UNPOISON_MEMORY_REGION(sy::fake_cuda::host_view(p), n); }

void* new_block(size_t n, int device, bool ready = true) {
  const size_t span = span_of(n);
  void* p = std::aligned_alloc(256, span);
  if (!p) return nullptr;
  std::memset(p, kUninitialised, span);
  const size_t usable = ready ? n : 0;  // a stream-ordered allocation: none until its stream gets there
  poison(static_cast<char*>(p) + usable, span - usable);
  if (device >= 0) p = device_address(p);
  State& g = st();
  std::lock_guard<std::mutex> lock(g.mu);
  g.blocks[reinterpret_cast<uintptr_t>(p)] = Block{n, device, true, ready};
  if (device >= 0) g.device_bytes[device] += n;
  return p;
}

// Kills the live block at `start` (caller holds st().mu); its memory is
// poisoned and kept for a while, so late users are caught.
void kill_block(uintptr_t start) {
  State& g = st();
  Block& b = g.blocks[start];
  b.live = false;
  if (b.device >= 0) g.device_bytes[b.device] -= b.bytes;
  unpoison(reinterpret_cast<void*>(start), span_of(b.bytes));  // a block freed before its stream reached it
  std::memset(sy::fake_cuda::host_view(reinterpret_cast<void*>(start)), kFreed, std::max<size_t>(b.bytes, 1));
  poison(reinterpret_cast<void*>(start), span_of(b.bytes));
  g.quarantine.push_back(start);
  g.quarantined_bytes += b.bytes;
  while (g.quarantined_bytes > kQuarantineBytes) {
    const uintptr_t old = g.quarantine.front();
    g.quarantine.pop_front();
    g.quarantined_bytes -= g.blocks[old].bytes;
    unpoison(reinterpret_cast<void*>(old), span_of(g.blocks[old].bytes));
    g.blocks.erase(old);
    std::free(sy::fake_cuda::host_view(reinterpret_cast<void*>(old)));
  }
}

// The live block starting exactly at `p` of the given kind, marked as
// being freed; a violation otherwise.
uintptr_t claim_for_free(const void* p, bool device, const char* api) {
  std::lock_guard<std::mutex> lock(st().mu);
  auto it = st().blocks.find(reinterpret_cast<uintptr_t>(p));
  if (it == st().blocks.end() || !it->second.live || it->second.freeing || (it->second.device >= 0) != device)
    violation("%s(%p): not the start of a live %s allocation (double free, or the wrong kind)", api, p,
              device ? "device" : "pinned");
  it->second.freeing = true;
  return it->first;
}

const char* error_name(cudaError_t e) {
  switch (e) {
    case cudaSuccess:
      return "no error";
    case cudaErrorInvalidValue:
      return "invalid argument";
    case cudaErrorMemoryAllocation:
      return "out of memory";
    case cudaErrorInvalidDevice:
      return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle:
      return "invalid resource handle";
    case cudaErrorIllegalAddress:
      return "an illegal memory access was encountered";
    case cudaErrorPeerAccessAlreadyEnabled:
      return "peer access is already enabled";
    case cudaErrorInvalidDeviceFunction:
      return "invalid device function (the fake GPU runs no device code)";
    default:
      return "fake CUDA error";
  }
}

}  // namespace

namespace sy::fake_cuda {

void set_jitter(uint32_t seed, int max_us) {
  st().jitter_seed = seed;
  st().jitter_us = max_us;
}

void fault_device(int device, uint64_t after) {
  if (!valid_device(device)) violation("fault_device(%d): no such fake GPU", device);
  if (after == 0)
    st().faulted[device] = true;
  else
    st().fault_in[device] = static_cast<int64_t>(after);
}

void heal(int device) {
  if (!valid_device(device)) violation("heal(%d): no such fake GPU", device);
  st().fault_in[device] = 0;
  st().faulted[device] = false;
}

void* host_view(const void* p) {
  auto a = reinterpret_cast<uintptr_t>(p);
  if (kDeviceAddressOffset && a >= kDeviceAddressOffset) a -= kDeviceAddressOffset;
  return reinterpret_cast<void*>(a);
}

void check_device_range(const void* p, size_t bytes, const char* what) {
  if (bytes == 0) return;
  std::lock_guard<std::mutex> lock(st().mu);
  Block* b = block_of(p, bytes);
  if (!b || b->device < 0 || !b->live || !b->ready)
    violation("%s: %zu bytes at %p are not in a live device allocation%s", what, bytes, p,
              !b || b->device < 0 ? ""
              : !b->live          ? " (it was freed)"
                                  : " (its stream has not reached its allocation yet)");
}

Stats stats() {
  drain_all();  // queued stream-ordered frees count as done
  State& g = st();
  Stats s;
  {
    std::lock_guard<std::mutex> lock(g.mu);
    for (uint64_t b : g.device_bytes) s.device_bytes += b;
  }
  s.peer_copies = g.peer_copies;
  s.pageable_copies = g.pageable_copies;
  s.events = g.events;
  s.streams = g.stream_count;
  return s;
}

}  // namespace sy::fake_cuda

// ---- Devices and errors -----------------------------------------------------

cudaError_t cudaGetDeviceCount(int* count) {
  enter("cudaGetDeviceCount");
  *count = kFakeGpus;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  enter("cudaSetDevice");
  if (!valid_device(device)) return fail(cudaErrorInvalidDevice);
  t_device = device;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  enter("cudaGetDevice");
  *device = t_device;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  enter("cudaGetDeviceProperties");
  if (!valid_device(device)) return fail(cudaErrorInvalidDevice);
  std::memset(prop, 0, sizeof(*prop));
  std::snprintf(prop->name, sizeof(prop->name), "Switchyard fake GPU");
  prop->totalGlobalMem = kFakeGpuMemory;
  prop->multiProcessorCount = 8;
  prop->major = 9;
  prop->minor = 0;
  prop->warpSize = 32;
  prop->maxThreadsPerBlock = 1024;
  prop->unifiedAddressing = 1;
  return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total) {
  enter("cudaMemGetInfo");
  if (faulted(t_device)) return fail(cudaErrorIllegalAddress);
  std::lock_guard<std::mutex> lock(st().mu);
  *total = kFakeGpuMemory;
  *free_bytes = kFakeGpuMemory - st().device_bytes[t_device];
  return cudaSuccess;
}

cudaError_t cudaGetLastError() {
  enter("cudaGetLastError");
  if (faulted(t_device)) return cudaErrorIllegalAddress;  // sticky
  return std::exchange(t_error, cudaSuccess);
}

cudaError_t cudaPeekAtLastError() {
  enter("cudaPeekAtLastError");
  return faulted(t_device) ? cudaErrorIllegalAddress : t_error;
}

const char* cudaGetErrorString(cudaError_t error) { return error_name(error); }

cudaError_t cudaDeviceCanAccessPeer(int* can, int device, int peer) {
  enter("cudaDeviceCanAccessPeer");
  if (!valid_device(device) || !valid_device(peer)) return fail(cudaErrorInvalidDevice);
  *can = device != peer;
  return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int flags) {
  enter("cudaDeviceEnablePeerAccess");
  if (!valid_device(peer) || peer == t_device) return fail(cudaErrorInvalidDevice);
  if (flags != 0) return fail(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(st().mu);
  if (st().peer[t_device][peer]) return fail(cudaErrorPeerAccessAlreadyEnabled);
  st().peer[t_device][peer] = true;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device) {
  enter("cudaDeviceGetDefaultMemPool");
  if (!valid_device(device)) return fail(cudaErrorInvalidDevice);
  *pool = &st().pools[device];
  return cudaSuccess;
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr, void* value) {
  enter("cudaMemPoolSetAttribute");
  return pool && value ? cudaSuccess : fail(cudaErrorInvalidValue);
}

cudaError_t cudaMemPoolSetAccess(cudaMemPool_t pool, const cudaMemAccessDesc* descs, size_t count) {
  enter("cudaMemPoolSetAccess");
  for (size_t i = 0; i < count; ++i)
    if (!valid_device(descs[i].location.id)) return fail(cudaErrorInvalidDevice);
  return pool ? cudaSuccess : fail(cudaErrorInvalidValue);
}

// ---- Streams and events -----------------------------------------------------

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int) {
  enter("cudaStreamCreateWithFlags");
  *stream = new_stream(t_device);
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  enter("cudaStreamDestroy");
  CUstream_st* s = resolve(stream);
  {
    std::lock_guard<std::mutex> lock(s->mu);
    if (s->destroyed) violation("cudaStreamDestroy: stream destroyed twice");
    s->destroyed = true;  // its thread drains the queue, then ends
  }
  s->cv.notify_all();
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  enter("cudaStreamSynchronize");
  CUstream_st* s = resolve(stream);
  drain(s);
  return faulted(s->device) ? fail(cudaErrorIllegalAddress) : cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int) {
  enter("cudaEventCreateWithFlags");
  *event = new CUevent_st{t_device};
  ++st().events;
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  enter("cudaEventDestroy");
  if (event) --st().events;
  delete event;  // queued waits hold what they need, not the event
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  enter("cudaEventRecord");
  CUstream_st* s = resolve(stream);
  if (event->device != s->device) return fail(cudaErrorInvalidResourceHandle);
  if (faulted(s->device)) return fail(cudaErrorIllegalAddress);
  std::lock_guard<std::mutex> lock(s->mu);
  event->stream = s;
  event->target = s->enqueued;
  return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  enter("cudaEventQuery");
  CUstream_st* s = event->stream;
  if (!s) return cudaSuccess;  // never recorded: nothing to wait for
  {
    // Not ready is an answer, not an error: the last-error slot keeps it.
    // Even after a fault: a GPU's faulted work stops at once, but a host
    // function the fake's stream is running goes on, and whoever hears of
    // the fault may free the memory it writes.
    std::lock_guard<std::mutex> lock(s->mu);
    if (s->done < event->target) return cudaErrorNotReady;
  }
  // As on a GPU, a fault is sticky: every query reports it from then on.
  return faulted(s->device) ? fail(cudaErrorIllegalAddress) : cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int) {
  enter("cudaStreamWaitEvent");
  CUstream_st* s = resolve(stream);
  if (faulted(s->device)) return fail(cudaErrorIllegalAddress);
  CUstream_st* other = event->stream;
  if (!other || other == s) return cudaSuccess;  // never recorded, or already in order
  const uint64_t target = event->target;
  push(s, [other, target] { wait_for(other, target); });
  return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* data) {
  enter("cudaLaunchHostFunc");
  CUstream_st* s = resolve(stream);
  if (faulted(s->device)) return fail(cudaErrorIllegalAddress);
  const int device = s->device;
  // Unlike a stream callback, a host function is not called after a fault.
  push(s, [fn, data, device] {
    if (faulted(device)) return;
    run_host_code([&] { fn(data); });
  });
  return cudaSuccess;
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t cb, void* data, unsigned int flags) {
  enter("cudaStreamAddCallback");
  if (flags != 0) return fail(cudaErrorInvalidValue);
  CUstream_st* s = resolve(stream);
  if (faulted(s->device)) return fail(cudaErrorIllegalAddress);
  const int device = s->device;
  push(s, [stream, cb, data, device] {
    const cudaError_t status = faulted(device) ? cudaErrorIllegalAddress : cudaSuccess;
    run_host_code([&] { cb(stream, status, data); });
  });
  return cudaSuccess;
}

// ---- Memory -----------------------------------------------------------------

cudaError_t cudaMallocAsync(void** p, size_t bytes, cudaStream_t stream) {
  enter("cudaMallocAsync");
  CUstream_st* s = resolve(stream);
  if (faulted(s->device)) return fail(cudaErrorIllegalAddress);
  {
    std::lock_guard<std::mutex> lock(st().mu);
    if (bytes > kFakeGpuMemory - st().device_bytes[s->device]) return fail(cudaErrorMemoryAllocation);
  }
  void* block = new_block(bytes, s->device, /*ready=*/false);
  if (!block) return fail(cudaErrorMemoryAllocation);
  // Usable in this stream's order; elsewhere only once ordered after it.
  push(s, [block] {
    std::lock_guard<std::mutex> lock(st().mu);
    if (Block* b = block_of(block, 0)) {
      b->ready = true;
      unpoison(block, b->bytes);
    }
  });
  *p = block;
  return cudaSuccess;
}

cudaError_t cudaFreeAsync(void* p, cudaStream_t stream) {
  enter("cudaFreeAsync");
  if (!p) return cudaSuccess;
  CUstream_st* s = resolve(stream);
  const uintptr_t start = claim_for_free(p, true, "cudaFreeAsync");
  push(s, [start] {
    std::lock_guard<std::mutex> lock(st().mu);
    kill_block(start);
  });
  return cudaSuccess;
}

cudaError_t cudaMalloc(void** p, size_t bytes) {
  enter("cudaMalloc");
  {
    std::lock_guard<std::mutex> lock(st().mu);
    if (bytes > kFakeGpuMemory - st().device_bytes[t_device]) return fail(cudaErrorMemoryAllocation);
  }
  *p = new_block(bytes, t_device);
  return *p ? cudaSuccess : fail(cudaErrorMemoryAllocation);
}

cudaError_t cudaFree(void* p) {
  enter("cudaFree");
  if (!p) return cudaSuccess;
  const uintptr_t start = claim_for_free(p, true, "cudaFree");
  drain_all();  // cudaFree synchronises
  std::lock_guard<std::mutex> lock(st().mu);
  kill_block(start);
  return cudaSuccess;
}

cudaError_t cudaHostAlloc(void** p, size_t bytes, unsigned int) {
  enter("cudaHostAlloc");
  *p = new_block(bytes, -1);
  return *p ? cudaSuccess : fail(cudaErrorMemoryAllocation);
}

cudaError_t cudaHostGetDevicePointer(void** device_ptr, void* host, unsigned int flags) {
  enter("cudaHostGetDevicePointer");
  int unused = 0;
  if (flags != 0 || classify(host, 1, &unused, "cudaHostGetDevicePointer") != Kind::kPinned)
    return fail(cudaErrorInvalidValue);
  *device_ptr = host;  // unified addressing: one address for both
  return cudaSuccess;
}

cudaError_t cudaFreeHost(void* p) {
  enter("cudaFreeHost");
  if (!p) return cudaSuccess;
  const uintptr_t start = claim_for_free(p, false, "cudaFreeHost");
  drain_all();  // like cudaFree, it waits for the GPUs
  std::lock_guard<std::mutex> lock(st().mu);
  kill_block(start);
  return cudaSuccess;
}

// ---- Copies -----------------------------------------------------------------

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t n, cudaMemcpyKind kind, cudaStream_t stream) {
  enter("cudaMemcpyAsync");
  CUstream_st* s = resolve(stream);
  if (faulted(s->device)) return fail(cudaErrorIllegalAddress);
  if (n == 0) return cudaSuccess;
  int dst_dev = -1, src_dev = -1;
  const Kind d = classify(dst, n, &dst_dev, "cudaMemcpyAsync destination");
  const Kind r = classify(src, n, &src_dev, "cudaMemcpyAsync source");
  const bool dst_gpu = d == Kind::kDevice, src_gpu = r == Kind::kDevice;
  const bool kind_ok = kind == cudaMemcpyDefault || (kind == cudaMemcpyHostToDevice && dst_gpu && !src_gpu) ||
                       (kind == cudaMemcpyDeviceToHost && !dst_gpu && src_gpu) ||
                       (kind == cudaMemcpyDeviceToDevice && dst_gpu && src_gpu) ||
                       (kind == cudaMemcpyHostToHost && !dst_gpu && !src_gpu);
  if (!kind_ok) violation("cudaMemcpyAsync: kind %d does not match the pointers (%p <- %p)", kind, dst, src);
  const int device = s->device;
  if (r == Kind::kPageable || d == Kind::kPageable) ++st().pageable_copies;
  if (r == Kind::kPageable) {
    // The runtime stages pageable memory before it returns: the caller may
    // reuse the source at once.
    auto staged = std::make_shared<std::vector<unsigned char>>(static_cast<const unsigned char*>(src),
                                                               static_cast<const unsigned char*>(src) + n);
    push(s, [=] {
      if (faulted(device)) return;
      check_live(dst, n, d, "cudaMemcpyAsync destination");
      std::memcpy(sy::fake_cuda::host_view(dst), staged->data(), n);
    });
    return cudaSuccess;
  }
  const uint64_t at = push(s, [=] {
    if (faulted(device)) return;
    check_live(dst, n, d, "cudaMemcpyAsync destination");
    check_live(src, n, r, "cudaMemcpyAsync source");
    std::memcpy(sy::fake_cuda::host_view(dst), sy::fake_cuda::host_view(src), n);
  });
  // Into pageable memory the copy is synchronous.
  if (d == Kind::kPageable) wait_for(s, at);
  return cudaSuccess;
}

cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device, size_t n,
                                cudaStream_t stream) {
  enter("cudaMemcpyPeerAsync");
  CUstream_st* s = resolve(stream);
  if (!valid_device(dst_device) || !valid_device(src_device)) return fail(cudaErrorInvalidDevice);
  if (faulted(s->device) || faulted(src_device) || faulted(dst_device)) return fail(cudaErrorIllegalAddress);
  if (n == 0) return cudaSuccess;
  int dd = -1, sd = -1;
  if (classify(dst, n, &dd, "cudaMemcpyPeerAsync destination") != Kind::kDevice || dd != dst_device ||
      classify(src, n, &sd, "cudaMemcpyPeerAsync source") != Kind::kDevice || sd != src_device)
    violation("cudaMemcpyPeerAsync: %p on GPU %d <- %p on GPU %d: not device memory of those GPUs", dst, dst_device,
              src, src_device);
  push(s, [=] {
    if (faulted(src_device) || faulted(dst_device)) return;
    check_live(dst, n, Kind::kDevice, "cudaMemcpyPeerAsync destination");
    check_live(src, n, Kind::kDevice, "cudaMemcpyPeerAsync source");
    std::memcpy(sy::fake_cuda::host_view(dst), sy::fake_cuda::host_view(src), n);
    ++st().peer_copies;
  });
  return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* p, int value, size_t n, cudaStream_t stream) {
  enter("cudaMemsetAsync");
  CUstream_st* s = resolve(stream);
  if (faulted(s->device)) return fail(cudaErrorIllegalAddress);
  if (n == 0) return cudaSuccess;
  int dev = -1;
  if (classify(p, n, &dev, "cudaMemsetAsync") != Kind::kDevice)
    violation("cudaMemsetAsync: %p is not device memory", p);
  const int device = s->device;
  push(s, [=] {
    if (faulted(device)) return;
    check_live(p, n, Kind::kDevice, "cudaMemsetAsync");
    std::memset(sy::fake_cuda::host_view(p), value, n);
  });
  return cudaSuccess;
}

// ---- Device code: the fake GPU runs none ------------------------------------

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes*, const void*) {
  enter("cudaFuncGetAttributes");
  return fail(cudaErrorInvalidDeviceFunction);
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int*, const void*, int, size_t, unsigned int) {
  enter("cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags");
  return fail(cudaErrorInvalidDeviceFunction);
}

// Referenced by CUB's launcher in unoptimised builds (the sanitizer build).
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t*, const void*, void**) {
  violation("a CUDA kernel was launched: the fake GPU runs no device code (use the host kernels of fake_gpu/)");
}

// What nvcc's generated host code calls: module registration at start-up
// (nothing to register here) and kernel launches (a violation).
extern "C" {
void** __cudaRegisterFatBinary(void*) {
  static void* handle = nullptr;
  return &handle;
}
void __cudaRegisterFatBinaryEnd(void**) {}
char __cudaInitModule(void**) { return 0; }  // unoptimised builds only
void __cudaUnregisterFatBinary(void**) {}
void __cudaRegisterFunction(void**, const char*, char*, const char*, int, uint3*, uint3*, dim3*, dim3*, int*) {}
void __cudaRegisterVar(void**, char*, char*, const char*, int, size_t, int, int) {}
unsigned __cudaPushCallConfiguration(dim3, dim3, size_t, cudaStream_t) { return 0; }
cudaError_t __cudaPopCallConfiguration(dim3*, dim3*, size_t*, void*) { return cudaSuccess; }
cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void*) {
  *kernel = nullptr;
  return cudaSuccess;
}
cudaError_t __cudaLaunchKernel(cudaKernel_t, dim3, dim3, void**, size_t, cudaStream_t) {
  violation("a CUDA kernel was launched: the fake GPU runs no device code (use the host kernels of fake_gpu/)");
}
}

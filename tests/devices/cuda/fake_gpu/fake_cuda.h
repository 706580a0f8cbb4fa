// A simulated CUDA runtime, linked into test binaries instead of the real
// one, so that the real CudaDevice, its copies, pools and completion
// callbacks, and the run loop driving it, run in every CUDA build on
// machines without a GPU (CI's).
//
// The fake has kFakeGpus GPUs of kFakeGpuMemory bytes each. Device memory is
// host memory at an address the host cannot read (host_view); each stream
// is a thread that runs its queued operations in order; events, cross-
// stream waits, stream-ordered allocation and free, pinned and pageable
// copies, peer copies, host functions and stream callbacks follow the CUDA
// runtime's documented semantics. It cannot run device code: launching a
// real CUDA kernel is a violation.
//
// What it checks, as the real GPU would not (there a mistake is a silent
// wrong answer or a rare crash): every copy, memset and host function that
// a stream reaches reads and writes only live allocations (a use after a
// stream-ordered free is caught when the freeing stream ran first), frees
// name live allocations, no CUDA call is made from a host function or a
// stream callback, events are recorded on their own device's streams. A
// violation prints "fake CUDA: ..." and aborts the process. Under
// AddressSanitizer, memory no one may touch (a block's rounding past its
// end, a freed block, a stream-ordered allocation its stream has not
// reached) is also poisoned, so a kernel's or the host's stray access
// is reported where it happens.
//
// All functions are thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sy::fake_cuda {

inline constexpr int kFakeGpus = 2;
inline constexpr uint64_t kFakeGpuMemory = uint64_t{1} << 30;

// Each stream sleeps up to `max_us` before some of its operations (a
// pseudo-random choice from `seed`), so that operations on different
// streams interleave in many orders over a test. 0 turns it off.
void set_jitter(uint32_t seed, int max_us);

// The `after`-th operation that a stream of GPU `device` executes from now
// on faults it: from then on it runs no copy or host function, callbacks
// hear cudaErrorIllegalAddress, and every call on the device fails with
// it (a sticky error, as after a kernel's illegal address). `after` 0
// faults it at once. heal() ends the fault so that later tests may use the
// GPU again (the real one would need a new process).
void fault_device(int device, uint64_t after);
void heal(int device);

// The host memory behind device address `p` (any other address as it is).
// Device addresses are not host addresses: reading one on the host faults,
// as on a real GPU (except in the emulated-kernel build, whose kernels read
// device memory as the host). For the fake's own kernels and for tests
// that inspect what a GPU holds.
void* host_view(const void* p);

// Aborts, naming `what`, unless [p, p + bytes) lies in a live device
// allocation. For fake kernels, from inside their host functions.
void check_device_range(const void* p, size_t bytes, const char* what);

struct Stats {
  uint64_t device_bytes = 0;  // live device allocations, all GPUs
  uint64_t peer_copies = 0;   // GPU-to-GPU copies executed
  uint64_t streams = 0;       // streams created, all GPUs
  // cudaMemcpyAsync calls from or to pageable memory, which the real
  // runtime stages while the caller waits.
  uint64_t pageable_copies = 0;
  int64_t events = 0;  // created and not destroyed
};
// Once every stream has run what was queued on it so far.
Stats stats();

}  // namespace sy::fake_cuda

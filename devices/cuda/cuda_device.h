// CudaDevice: one NVIDIA GPU (`cuda:N`) as a Device.
//
// - Several compute streams, so independent nodes overlap on one GPU; a
//   task goes to the compute stream with the least work in flight.
// - Dedicated host-to-device and device-to-host copy streams, so transfers
//   overlap kernels. GPU-to-GPU copies are pulled by the destination with
//   cudaMemcpyPeerAsync: direct over NVLink/PCIe when peer access is
//   available (enabled at creation), staged through the host by the driver
//   otherwise.
// - Memory from the device's cudaMallocAsync pool, allocated and freed in
//   stream order; the pool keeps freed memory (release threshold = max), so
//   a steady-state run does not go back to the driver.
// - Host results land in pinned blocks (PinnedPool); copies from ordinary
//   host memory above 8 MiB (64 KiB inside a kernel task) are staged
//   through pinned blocks chunk by chunk (each chunk's memcpy split across
//   oneTBB's threads).
//   A pinned block a task drops (a result discarded on a failure) goes
//   back to the pool only when the task's work is done: a copy it queued
//   may still use it.
//
// enqueue() launches the task's work on the calling thread and returns:
// the run loop is never blocked by a synchronous CUDA call. Completion is
// an event the device's EventPoller thread sees complete (by default), or a
// stream callback (cudaStreamAddCallback) with
// SWITCHYARD_CUDA_COMPLETION=callback; both report device faults. It is
// recorded as the task's end time; its start is the end of its launch (or
// the end of the task before it on the stream), so the host time launching
// took is the loop's issue cost, not the kernel's. A kernel
// task keeps all its work (copies included) on its compute stream, a copy
// task on one copy stream, so its allocations, uses and stream-ordered
// frees are ordered without events; work spread over several streams
// anyway is joined with events before the callback.
//
// Calls made outside enqueue() (allocate, copy: tests, link measurement,
// bringing run outputs back) are synchronous: they use a private stream and
// wait for it.
//
// Sessions share one CudaDevice per GPU (shared()): its streams, mapped
// error flags and cuBLAS/cuDNN handles are made once per process instead of
// once per session, which matters to programs that open many sessions
// (`bench` opens one per model and policy; cudnnCreate alone takes
// milliseconds), and concurrent sessions then pick compute streams by the
// GPU's whole load.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "devices/cuda/cuda_check.h"
#include "devices/cuda/event_poller.h"
#include "devices/cuda/pinned_pool.h"
#include "devices/device.h"

namespace sy::cuda {

struct DeviceMemory;

// One stream of a device and what is bound to it.
class StreamSlot {
 public:
  cudaStream_t stream = nullptr;
  cudaEvent_t join = nullptr;        // recorded to join this stream into another
  cublasHandle_t cublas = nullptr;   // created on first use
  cudnnHandle_t cudnn = nullptr;     // created on first use
  std::atomic<int> in_flight{0};     // tasks whose callback has not run
  int64_t last_end_ns = 0;           // only touched by this stream's completions
  int index = 0;                     // in the device's slot list
};

// How a CudaDevice learns that a task's work is done.
enum class Completion { kPoll, kCallback };
// From SWITCHYARD_CUDA_COMPLETION: "poll" (the default, unset or empty) or
// "callback"; anything else is an error that names both.
StatusOr<Completion> completion_from_env();

class CudaDevice final : public Device {
 public:
  // Opens GPU `ordinal` with `compute_streams` compute streams.
  static constexpr int kDefaultComputeStreams = 4;
  static StatusOr<std::unique_ptr<CudaDevice>> create(int ordinal, int compute_streams = kDefaultComputeStreams,
                                                      Completion completion = Completion::kPoll);
  // The process's device for GPU `ordinal`, opened by the first call (a
  // failure is remembered too) and never destroyed, like the memory its
  // buffers come from. Thread-safe.
  static StatusOr<CudaDevice*> shared(int ordinal);
  ~CudaDevice() override;

  DeviceId id() const override { return {DeviceKind::kCuda, static_cast<int16_t>(ordinal_)}; }
  MemorySpace memory_space() const override { return {DeviceKind::kCuda, static_cast<int16_t>(ordinal_)}; }
  const DeviceInfo& info() const override { return info_; }
  StatusOr<Tensor> allocate(DataType dtype, const Dims& dims) override;
  void enqueue(DeviceTask* task, CompletionSink* sink) override;
  StatusOr<Tensor> copy(const Tensor& src, MemorySpace dst_space) override;
  uint64_t bytes_in_use() const override;
  bool runs_inline() const override { return false; }
  int64_t now_ns() const override;

  int ordinal() const { return ordinal_; }
  // The compute stream of the task this thread is launching on this device
  // (marked as used), or null outside one. Used by current_launch().
  StreamSlot* launch_slot();
  // The current task's error flag (zeroed in `slot`'s order) as the GPU
  // addresses it, armed so that the task fails with `what` if it is set on
  // completion.
  StatusOr<int*> arm_error_flag(StreamSlot& slot, const char* what);

 private:
  struct Scope;
  struct Pending;
  // A mapped pinned int a kernel sets to report bad input (Launch::error_flag).
  // Each task that asks gets its own until its completion has read it: a
  // flag per stream would do only if completions held the stream up, as
  // callbacks do; polled events do not, so the next task on the stream
  // could zero a shared flag before the last one's completion read it.
  struct Flag {
    int* host = nullptr;  // as the completion reads it
    int* dev = nullptr;   // the same int as kernels address it
  };
  StatusOr<Flag> take_flag();
  void give_back_flag(Flag f);  // makes no CUDA call
  CudaDevice(int ordinal, DeviceMemory* memory) : ordinal_(ordinal), memory_(memory) {}
  Status init(int compute_streams, Completion completion);
  bool in_task() const;
  // Records that the current task put work on `slot`.
  void mark_used(StreamSlot& slot);
  StreamSlot& least_busy_compute();
  StatusOr<Tensor> allocate_on(StreamSlot& slot, DataType dtype, const Dims& dims);
  Status copy_h2d(void* dst, const Tensor& src, const StreamSlot& slot);
  // The body of copy(): queues the copy on `slot` into `out`, which the
  // caller owns so that it can outlive queued work on a failure.
  Status copy_on(StreamSlot& slot, const Tensor& src, MemorySpace dst_space, Tensor& out);
  // Joins the slots in `used` into `main` and registers the completion
  // callback there.
  // `held` (pinned blocks the task dropped) goes to the callback, which
  // returns them to the pool; it is left with the caller on a failure.
  // `flag` (with `error_what`) is read and given back by the completion.
  Status finish(DeviceTask* task, CompletionSink* sink, StreamSlot& main, uint32_t used, const char* error_what,
                Flag flag, PinnedPool::Held& held);
  static void CUDART_CB on_stream_done(cudaStream_t, cudaError_t status, void* pending);
  static void release_device(Buffer* b);

  static thread_local Scope* t_scope_;

  int ordinal_;
  DeviceMemory* memory_;  // process-wide per GPU, outlives buffers
  DeviceInfo info_;
  // [0, compute_) compute streams, then h2d, d2h and the synchronous stream.
  std::vector<std::unique_ptr<StreamSlot>> slots_;
  int compute_ = 0;
  StreamSlot& h2d() { return *slots_[static_cast<size_t>(compute_)]; }
  StreamSlot& d2h() { return *slots_[static_cast<size_t>(compute_) + 1]; }
  StreamSlot& sync() { return *slots_[static_cast<size_t>(compute_) + 2]; }
  std::atomic<uint32_t> next_compute_{0};
  std::unique_ptr<EventPoller> poller_;  // null: completions are stream callbacks
  std::mutex flags_mu_;
  std::vector<Flag> free_flags_;
  std::vector<void*> flag_pages_;
  // Serialises launches: library handles and slot choice are not
  // thread-safe, and launching is cheap next to the work it starts.
  std::mutex launch_mu_;
};

}  // namespace sy::cuda

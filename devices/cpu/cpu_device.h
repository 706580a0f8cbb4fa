// CpuDevice: the host CPU (or a slice of its cores) as a Device.
//
// A lone CPU device runs every kernel inline on the enqueuing thread and
// parallelises inside with oneTBB: no thread hand-off, which keeps per-node
// overhead small. When the host is split into several CPU devices
// (cpu:0,cpu:1), each device gets its share of the cores (a tbb::task_arena)
// and a worker thread; so does a CPU beside GPUs (create_devices()). Short
// tasks still run inline when the device is idle; long ones go to the
// worker, so the run loop can keep the other devices busy meanwhile.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include <tbb/task_arena.h>

#include "devices/device.h"
#include "devices/host_allocator.h"

namespace sy {

class CpuDevice final : public Device {
 public:
  // `ordinal` selects the memory space index: cpu:0 shares kHostSpace,
  // other ordinals get their own space so that crossing is a real copy.
  // `threads` caps the cores its kernels use (0 = all). `worker` gives the
  // device its own queue thread (see above).
  explicit CpuDevice(int ordinal = 0, int threads = 0, bool worker = false);
  ~CpuDevice() override;

  DeviceId id() const override { return {DeviceKind::kCpu, static_cast<int16_t>(ordinal_)}; }
  MemorySpace memory_space() const override { return allocator_->space(); }
  const DeviceInfo& info() const override { return info_; }
  StatusOr<Tensor> allocate(DataType dtype, const Dims& dims) override;
  void enqueue(DeviceTask* task, CompletionSink* sink) override;
  StatusOr<Tensor> copy(const Tensor& src, MemorySpace dst_space) override;
  uint64_t bytes_in_use() const override { return allocator_->bytes_in_use(); }
  bool runs_inline() const override { return !worker_.joinable(); }
  int64_t now_ns() const override;

 private:
  void run_task(DeviceTask* task);
  void worker_loop();

  int ordinal_;
  DeviceInfo info_;
  HostAllocator* allocator_;  // host() for ordinal 0, owned_ otherwise
  std::unique_ptr<HostAllocator> owned_;
  std::unique_ptr<tbb::task_arena> arena_;  // null: use the whole machine

  // Worker mode only.
  std::thread worker_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<DeviceTask*, CompletionSink*>> queue_;
  std::atomic<int> queued_{0};  // tasks handed to the worker, not yet done
  bool stop_ = false;
};

}  // namespace sy

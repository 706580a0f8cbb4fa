// Device: the narrow interface every backend implements (CPU, CUDA, sim).
// Optional features are free helper functions elsewhere, not virtuals here.
#pragma once

#include <cstdint>
#include <string>

#include "devices/device_id.h"
#include "devices/tensor.h"
#include "ir/graph.h"
#include "ir/status.h"

namespace sy {

class Device;

// One unit of work on a device queue. The executor preallocates one per node
// so enqueueing never allocates. The device fills in status and timestamps.
class DeviceTask {
 public:
  enum class Queue : uint8_t { kCompute, kCopy };

  virtual ~DeviceTask() = default;
  // Runs on the device's queue (possibly on the enqueuing thread).
  virtual Status execute(Device& device) = 0;

  // Which of the device's in-order queues runs it. Devices with a single
  // queue (CPU) run both kinds in order.
  Queue queue = Queue::kCompute;
  // The cost model's estimate of the task's time (0 if unknown).
  int64_t predicted_ns = 0;
  // Set by the enqueuer when it has nothing to overlap with this task, or
  // the task is short: a device with a worker thread may then run it
  // inline on the enqueuing thread (if its queue is idle) and save the
  // hand-off. Cleared, it goes to the device's queue so the enqueuer can
  // feed other devices meanwhile.
  bool may_run_inline = true;
  // What the task does, for devices that price work instead of timing it
  // (the simulator). Kernels: the node and the cost model's work size for
  // this execution. Copies: the bytes and the two memory spaces.
  const Node* op = nullptr;
  double work = 0;
  uint64_t bytes = 0;
  MemorySpace from_space, to_space;
  Status status;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  DeviceTask* next_completed = nullptr;  // intrusive list used by sinks
};

// Receives finished tasks. on_complete may be called from the enqueuing
// thread (inline devices) or from a device thread; implementations must be
// thread-safe and must not call back into the device.
class CompletionSink {
 public:
  virtual ~CompletionSink() = default;
  virtual void on_complete(DeviceTask* task) = 0;
};

struct DeviceInfo {
  std::string name;         // "cpu:0"
  std::string description;  // human-readable, e.g. "host CPU, 2 threads"
  uint64_t memory_bytes = 0;
  int threads = 1;
  // Whose kernels it runs: its own kind, except a simulated device, which
  // computes on the host with the CPU kernels.
  DeviceKind kernel_kind = DeviceKind::kCpu;
};

class Device {
 public:
  virtual ~Device() = default;
  // All methods are thread-safe unless noted.
  virtual DeviceId id() const = 0;
  virtual MemorySpace memory_space() const = 0;
  virtual const DeviceInfo& info() const = 0;
  // Allocates a tensor in this device's memory space.
  virtual StatusOr<Tensor> allocate(DataType dtype, const Dims& dims) = 0;
  // Appends `task` to the in-order compute queue; `sink` hears when it is
  // done. Never blocks on the task itself.
  virtual void enqueue(DeviceTask* task, CompletionSink* sink) = 0;
  // Copies `src` (any space this device can reach) into a new tensor in
  // `dst_space`. Used for staging and for bringing outputs back to the host.
  virtual StatusOr<Tensor> copy(const Tensor& src, MemorySpace dst_space) = 0;
  // Bytes currently allocated in this device's memory.
  virtual uint64_t bytes_in_use() const = 0;
  // True if enqueue() always runs the task to completion before returning
  // (no worker thread). Tasks may still complete inline on devices where
  // this is false.
  virtual bool runs_inline() const = 0;
  // Current time on the device's clock, in ns.
  virtual int64_t now_ns() const = 0;
};

}  // namespace sy

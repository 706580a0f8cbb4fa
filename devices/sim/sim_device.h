// SimDevice: one device of a SimMachine. It looks like the device it
// simulates (cpu:N or cuda:N, same memory spaces, same copy rules), runs
// the CPU kernels on the host, and reports virtual time (see SimMachine).
// Its memory is host memory counted against the profile's capacity: an
// allocation beyond it fails with ResourceExhausted, as on a real device.
#pragma once

#include <memory>

#include "devices/device.h"
#include "devices/host_allocator.h"

namespace sy {

class SimMachine;

class SimDevice final : public Device {
 public:
  SimDevice(SimMachine& machine, int index, DeviceId id, std::string description, uint64_t memory_bytes);

  DeviceId id() const override { return id_; }
  MemorySpace memory_space() const override { return allocator_->space(); }
  const DeviceInfo& info() const override { return info_; }
  StatusOr<Tensor> allocate(DataType dtype, const Dims& dims) override;
  void enqueue(DeviceTask* task, CompletionSink* sink) override;
  StatusOr<Tensor> copy(const Tensor& src, MemorySpace dst_space) override;
  uint64_t bytes_in_use() const override { return allocator_->bytes_in_use(); }
  // The values are computed inside enqueue(); the time is the simulated
  // device's, inline or on its own thread as SimMachine::runs_inline() says.
  bool runs_inline() const override;
  int64_t now_ns() const override;

 private:
  SimMachine& machine_;
  int index_;
  DeviceId id_;
  DeviceInfo info_;
  // cpu:0 allocates from the process-wide host allocator, as a real run
  // does, so outputs handed back outlive the session; the others own one.
  HostAllocator* allocator_;
  std::unique_ptr<HostAllocator> owned_;
};

}  // namespace sy

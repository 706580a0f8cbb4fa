// CpuDevice: the host CPU (or a slice of its cores) as a Device. Kernels run
// in queue order on the thread that enqueues them; they parallelise inside
// with oneTBB. Running inline keeps the single-device path free of thread
// hand-offs, which is what makes per-node overhead small.
#pragma once

#include <memory>

#include "devices/device.h"
#include "devices/host_allocator.h"

namespace sy {

class CpuDevice final : public Device {
 public:
  // `ordinal` selects the memory space index: cpu:0 shares kHostSpace,
  // other ordinals get their own space so that crossing is a real copy.
  explicit CpuDevice(int ordinal = 0, int threads = 0);

  DeviceId id() const override { return {DeviceKind::kCpu, static_cast<int16_t>(ordinal_)}; }
  MemorySpace memory_space() const override { return allocator_->space(); }
  const DeviceInfo& info() const override { return info_; }
  StatusOr<Tensor> allocate(DataType dtype, const Dims& dims) override;
  void enqueue(DeviceTask* task, CompletionSink* sink) override;
  StatusOr<Tensor> copy(const Tensor& src, MemorySpace dst_space) override;
  uint64_t bytes_in_use() const override { return allocator_->bytes_in_use(); }
  bool runs_inline() const override { return true; }
  int64_t now_ns() const override;

 private:
  int ordinal_;
  DeviceInfo info_;
  HostAllocator* allocator_;  // host() for ordinal 0, owned_ otherwise
  std::unique_ptr<HostAllocator> owned_;
};

}  // namespace sy

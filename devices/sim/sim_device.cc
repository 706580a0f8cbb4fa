#include "devices/sim/sim_device.h"

#include "devices/sim/sim_machine.h"

namespace sy {

SimDevice::SimDevice(SimMachine& machine, int index, DeviceId id, std::string description, uint64_t memory_bytes)
    : machine_(machine),
      index_(index),
      id_(id) {
  const MemorySpace space{id.kind, id.ordinal};
  if (space == kHostSpace) {
    allocator_ = &HostAllocator::host();
  } else {
    owned_ = std::make_unique<HostAllocator>(space, std::min(memory_bytes, HostAllocator::host().capacity()));
    allocator_ = owned_.get();
  }
  info_.name = id.to_string();
  info_.description = std::move(description);
  info_.memory_bytes = memory_bytes;
  info_.kernel_kind = DeviceKind::kCpu;
}

StatusOr<Tensor> SimDevice::allocate(DataType dtype, const Dims& dims) {
  ASSIGN_OR_RETURN(size_t bytes, checked_nbytes(dtype, dims));
  const uint64_t used = allocator_->bytes_in_use();
  if (bytes > info_.memory_bytes || used > info_.memory_bytes - bytes)
    return ResourceExhausted("out of memory on simulated ", info_.name, ": ", bytes, " bytes wanted, ",
                             info_.memory_bytes - std::min(info_.memory_bytes, used), " of ", info_.memory_bytes,
                             " free");
  ASSIGN_OR_RETURN(BufferRef buf, allocator_->allocate(bytes, dtype, dtype == DataType::kString ? dims.numel() : 0));
  return Tensor(dtype, dims, std::move(buf));
}

void SimDevice::enqueue(DeviceTask* task, CompletionSink* sink) { machine_.submit(index_, task, sink); }

StatusOr<Tensor> SimDevice::copy(const Tensor& src, MemorySpace dst_space) { return machine_.copy(src, dst_space); }

int64_t SimDevice::now_ns() const { return machine_.now_ns(); }

bool SimDevice::runs_inline() const { return machine_.runs_inline(index_); }

}  // namespace sy

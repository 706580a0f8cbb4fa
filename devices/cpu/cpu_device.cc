#include "devices/cpu/cpu_device.h"

#include <chrono>
#include <cstring>
#include <thread>

namespace sy {

CpuDevice::CpuDevice(int ordinal, int threads) : ordinal_(ordinal) {
  if (ordinal == 0) {
    allocator_ = &HostAllocator::host();
  } else {
    owned_ = std::make_unique<HostAllocator>(MemorySpace{DeviceKind::kCpu, static_cast<int16_t>(ordinal)},
                                             physical_memory_bytes());
    allocator_ = owned_.get();
  }
  int hw = static_cast<int>(std::thread::hardware_concurrency());
  info_.name = id().to_string();
  info_.threads = threads > 0 ? threads : (hw > 0 ? hw : 1);
  info_.memory_bytes = allocator_->capacity();
  info_.description = "host CPU, " + std::to_string(info_.threads) + " threads";
}

StatusOr<Tensor> CpuDevice::allocate(DataType dtype, const Dims& dims) {
  ASSIGN_OR_RETURN(size_t bytes, checked_nbytes(dtype, dims));
  ASSIGN_OR_RETURN(BufferRef buf, allocator_->allocate(bytes, dtype, dtype == DataType::kString ? dims.numel() : 0));
  return Tensor(dtype, dims, std::move(buf));
}

int64_t CpuDevice::now_ns() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void CpuDevice::enqueue(DeviceTask* task, CompletionSink* sink) {
  task->start_ns = now_ns();
  task->status = task->execute(*this);
  task->end_ns = now_ns();
  sink->on_complete(task);
}

StatusOr<Tensor> CpuDevice::copy(const Tensor& src, MemorySpace dst_space) {
  if (!dst_space.is_host_accessible() || !src.space().is_host_accessible())
    return Unimplemented("cpu device cannot copy ", src.space().to_string(), " -> ", dst_space.to_string());
  Tensor out;
  if (dst_space == allocator_->space()) {
    ASSIGN_OR_RETURN(out, allocate(src.dtype(), src.dims()));
  } else if (dst_space == kHostSpace) {
    ASSIGN_OR_RETURN(out, Tensor::host(src.dtype(), src.dims()));
  } else {
    return Unimplemented("cpu:", ordinal_, " cannot allocate in ", dst_space.to_string());
  }
  if (src.dtype() == DataType::kString) {
    for (int64_t i = 0; i < src.numel(); ++i) out.data<std::string>()[i] = src.data<std::string>()[i];
  } else if (src.nbytes()) {
    std::memcpy(out.raw(), src.raw(), src.nbytes());
  }
  return out;
}

}  // namespace sy

#include "devices/cpu/cpu_device.h"

#include <chrono>
#include <cstring>

namespace sy {

CpuDevice::CpuDevice(int ordinal, int threads, bool worker) : ordinal_(ordinal) {
  if (ordinal == 0) {
    allocator_ = &HostAllocator::host();
  } else {
    // The host's bound, as lowered by an embedder if it was.
    owned_ = std::make_unique<HostAllocator>(MemorySpace{DeviceKind::kCpu, static_cast<int16_t>(ordinal)},
                                             HostAllocator::host().capacity());
    allocator_ = owned_.get();
  }
  int hw = static_cast<int>(std::thread::hardware_concurrency());
  if (hw <= 0) hw = 1;
  info_.name = id().to_string();
  info_.threads = threads > 0 ? std::min(threads, hw) : hw;
  info_.memory_bytes = allocator_->capacity();
  info_.description = "host CPU, " + std::to_string(info_.threads) + (info_.threads == 1 ? " thread" : " threads");
  if (info_.threads < hw) {
    arena_ = std::make_unique<tbb::task_arena>(info_.threads, 1);
    arena_->initialize();  // now, not on the first kernel: keeps timings honest
  }
  if (worker) {
    info_.description += ", own queue";
    worker_ = std::thread([this] { worker_loop(); });
  }
}

CpuDevice::~CpuDevice() {
  if (worker_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_one();
    worker_.join();
  }
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

void CpuDevice::run_task(DeviceTask* task) {
  task->start_ns = now_ns();
  if (arena_) {
    arena_->execute([&] { task->status = task->execute(*this); });
  } else {
    task->status = task->execute(*this);
  }
  task->end_ns = now_ns();
}

void CpuDevice::enqueue(DeviceTask* task, CompletionSink* sink) {
  // Inline when there is no worker, or when the enqueuer allows it and
  // nothing is queued ahead of it (so queue order still holds).
  if (!worker_.joinable() || (task->may_run_inline && queued_.load(std::memory_order_acquire) == 0)) {
    run_task(task);
    sink->on_complete(task);
    return;
  }
  queued_.fetch_add(1, std::memory_order_acq_rel);
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.emplace_back(task, sink);
  }
  cv_.notify_one();
}

void CpuDevice::worker_loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stop_ and drained
    auto [task, sink] = queue_.front();
    queue_.pop_front();
    lock.unlock();
    run_task(task);
    // Before on_complete: the successor it releases may then run inline.
    queued_.fetch_sub(1, std::memory_order_acq_rel);
    sink->on_complete(task);
    lock.lock();
  }
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
  out.copy_elements_from(src);
  return out;
}

}  // namespace sy

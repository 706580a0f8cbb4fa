#include "devices/cuda/cuda_probe.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

#include "devices/cuda/cuda_check.h"
#include "devices/cuda/pinned_pool.h"

namespace sy::cuda {

cudaError_t launch_empty_kernel(cudaStream_t s);  // probe_kernels.cu

namespace {

// Owns a stream, and optionally host and device buffers, for one probe.
struct Scratch {
  cudaStream_t stream = nullptr;
  void* device = nullptr;
  void* host = nullptr;
  bool pinned = false;
  ~Scratch() {
    if (device) (void)cudaFree(device);
    if (host) pinned ? (void)cudaFreeHost(host) : std::free(host);
    if (stream) (void)cudaStreamDestroy(stream);
  }
};

struct Waiter {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  cudaError_t status = cudaSuccess;
};

// A stream callback, as CudaDevice completes tasks, not a host function:
// it runs even after a device fault (with the error), so the wait for it
// cannot hang.
void CUDART_CB notify(cudaStream_t, cudaError_t status, void* p) {
  auto* w = static_cast<Waiter*>(p);
  std::lock_guard<std::mutex> lock(w->mu);
  w->status = status;
  w->done = true;
  w->cv.notify_one();
}

}  // namespace

StatusOr<double> raw_copy_gbps(int ordinal, size_t bytes, bool host_to_device, bool pinned, int reps) {
  // Otherwise no timed copy and a meaningless 0 GB/s.
  if (reps < 1) return InvalidArgument("raw_copy_gbps: reps must be at least 1, not ", reps);
  CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal));
  Scratch s;
  s.pinned = pinned;
  CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
  CUDA_RETURN_IF_ERROR(cudaMalloc(&s.device, std::max<size_t>(bytes, 1)));
  if (pinned) {
    CUDA_RETURN_IF_ERROR(cudaHostAlloc(&s.host, std::max<size_t>(bytes, 1), cudaHostAllocPortable));
  } else {
    s.host = std::malloc(std::max<size_t>(bytes, 1));
    if (!s.host) return ResourceExhausted("cannot allocate ", bytes, " host bytes");
  }
  std::memset(s.host, 1, bytes);  // fault the pages in before timing
  double best_s = 1e30;
  for (int r = 0; r < reps + 1; ++r) {  // the first copy warms up
    auto t0 = std::chrono::steady_clock::now();
    if (host_to_device) {
      CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(s.device, s.host, bytes, cudaMemcpyHostToDevice, s.stream));
    } else {
      CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(s.host, s.device, bytes, cudaMemcpyDeviceToHost, s.stream));
    }
    CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(s.stream));
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0) best_s = std::min(best_s, sec);
  }
  return static_cast<double>(bytes) / best_s / 1e9;
}

StatusOr<double> raw_launch_us(int ordinal, int launches, bool sync_each) {
  if (launches < 1) return InvalidArgument("raw_launch_us: launches must be at least 1, not ", launches);  // divides by it
  CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal));
  Scratch s;
  CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
  CUDA_RETURN_IF_ERROR(launch_empty_kernel(s.stream));  // module load, first-launch costs
  CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(s.stream));
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < launches; ++i) {
    CUDA_RETURN_IF_ERROR(launch_empty_kernel(s.stream));
    if (!sync_each) continue;
    Waiter w;
    CUDA_RETURN_IF_ERROR(cudaStreamAddCallback(s.stream, &notify, &w, 0));
    std::unique_lock<std::mutex> lock(w.mu);
    w.cv.wait(lock, [&] { return w.done; });
    CUDA_RETURN_IF_ERROR(w.status);
  }
  CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(s.stream));
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / launches;
}

StatusOr<Tensor> pinned_host_tensor(DataType dtype, const Dims& dims) {
  if (dtype == DataType::kString) return InvalidArgument("pinned tensors hold numbers, not strings");
  ASSIGN_OR_RETURN(size_t bytes, checked_nbytes(dtype, dims));
  ASSIGN_OR_RETURN(BufferRef b, PinnedPool::instance().allocate(bytes, kHostSpace));
  return Tensor(dtype, dims, std::move(b));
}

}  // namespace sy::cuda

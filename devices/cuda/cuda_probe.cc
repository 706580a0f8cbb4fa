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
#include "devices/host_allocator.h"

namespace sy::cuda {

cudaError_t launch_empty_kernel(cudaStream_t s);  // probe_kernels.cu

namespace {

// Owns a stream, and optionally host and device buffers, for one probe.
struct Scratch {
  cudaStream_t stream = nullptr;
  void* device = nullptr;
  void* host = nullptr;
  bool pinned = false;
  cudaEvent_t event = nullptr;
  ~Scratch() {
    if (event) (void)cudaEventDestroy(event);
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

struct RawCopier::Buffers {
  Scratch s;
  int ordinal = 0;
  size_t bytes = 0;
  bool host_to_device = true;
};

RawCopier::RawCopier(std::unique_ptr<Buffers> b) : b_(std::move(b)) {}
RawCopier::~RawCopier() { (void)cudaSetDevice(b_->ordinal); }  // the buffers are freed on their GPU

StatusOr<std::unique_ptr<RawCopier>> RawCopier::create(int ordinal, size_t bytes, bool host_to_device, bool pinned) {
  CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal));
  auto b = std::make_unique<Buffers>();
  b->ordinal = ordinal;
  b->bytes = bytes;
  b->host_to_device = host_to_device;
  Scratch& s = b->s;
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
  std::unique_ptr<RawCopier> c(new RawCopier(std::move(b)));
  RETURN_IF_ERROR(c->seconds().status());  // the first copy warms up
  return c;
}

StatusOr<double> RawCopier::seconds() {
  Scratch& s = b_->s;
  CUDA_RETURN_IF_ERROR(cudaSetDevice(b_->ordinal));
  const auto t0 = std::chrono::steady_clock::now();
  if (b_->host_to_device) {
    CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(s.device, s.host, b_->bytes, cudaMemcpyHostToDevice, s.stream));
  } else {
    CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(s.host, s.device, b_->bytes, cudaMemcpyDeviceToHost, s.stream));
  }
  CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(s.stream));
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

StatusOr<double> raw_launch_us(int ordinal, int launches, LaunchWait wait) {
  if (launches < 1) return InvalidArgument("raw_launch_us: launches must be at least 1, not ", launches);  // divides by it
  CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal));
  Scratch s;
  CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
  CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&s.event, cudaEventDisableTiming));
  CUDA_RETURN_IF_ERROR(launch_empty_kernel(s.stream));  // module load, first-launch costs
  CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(s.stream));
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < launches; ++i) {
    CUDA_RETURN_IF_ERROR(launch_empty_kernel(s.stream));
    if (wait == LaunchWait::kCallback) {
      Waiter w;
      CUDA_RETURN_IF_ERROR(cudaStreamAddCallback(s.stream, &notify, &w, 0));
      std::unique_lock<std::mutex> lock(w.mu);
      w.cv.wait(lock, [&] { return w.done; });
      CUDA_RETURN_IF_ERROR(w.status);
    } else if (wait == LaunchWait::kEventPoll) {
      CUDA_RETURN_IF_ERROR(cudaEventRecord(s.event, s.stream));
      cudaError_t e;
      while ((e = cudaEventQuery(s.event)) == cudaErrorNotReady) {
      }
      CUDA_RETURN_IF_ERROR(e);
    }
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

StatusOr<Tensor> pageable_host_tensor(DataType dtype, const Dims& dims) {
  if (dtype == DataType::kString) return InvalidArgument("pageable test tensors hold numbers, not strings");
  ASSIGN_OR_RETURN(size_t bytes, checked_nbytes(dtype, dims));
  // An allocator with no block source, never destroyed (its buffers may
  // outlive statics).
  static HostAllocator* ordinary = new HostAllocator(kHostSpace, HostAllocator::host().capacity());
  ASSIGN_OR_RETURN(BufferRef b, ordinary->allocate(bytes));
  return Tensor(dtype, dims, std::move(b));
}

}  // namespace sy::cuda

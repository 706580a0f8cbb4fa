// The CUDA backend's entry points (see cuda_backend.h) and the launch
// accessors kernels use (cuda_launch.h).
#include "devices/cuda/cuda_backend.h"

#include <dlfcn.h>

#include <mutex>

#include "devices/cuda/cuda_device.h"
#include "devices/cuda/cuda_launch.h"
#include "devices/cuda/kernels/cuda_kernels.h"
#include "devices/cuda/pinned_pool.h"

namespace sy {
namespace {

struct Availability {
  int count = 0;
  std::string reason;
};

// Why the runtime found no GPU, in the user's terms. Without any driver
// the runtime says "driver version is insufficient", as for an old one,
// which sends people to upgrade a driver they do not have.
std::string driver_problem(cudaError_t e) {
  void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    return std::string("no NVIDIA driver (") + (why ? why : "libcuda.so.1 not found") + ")";
  }
  dlclose(lib);
  if (e == cudaErrorInsufficientDriver)
    return "the NVIDIA driver is older than this build's CUDA runtime (" + std::to_string(CUDART_VERSION / 1000) + "." +
           std::to_string(CUDART_VERSION % 1000 / 10) + "): update the driver";
  return std::string("no usable CUDA driver or GPU (") + cudaGetErrorString(e) + ")";
}

const Availability& availability() {
  static const Availability a = [] {
    Availability r;
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      r.reason = driver_problem(e);
    } else if (n == 0) {
      r.reason = "no CUDA GPU found";
    }
    r.count = e == cudaSuccess ? n : 0;
    return r;
  }();
  return a;
}

// A session's view of its GPU: the process's shared CudaDevice, which the
// session must not destroy. Tasks run on (and kernels see) the CudaDevice
// itself.
class SessionGpu final : public Device {
 public:
  explicit SessionGpu(cuda::CudaDevice& gpu) : gpu_(gpu) {}
  DeviceId id() const override { return gpu_.id(); }
  MemorySpace memory_space() const override { return gpu_.memory_space(); }
  const DeviceInfo& info() const override { return gpu_.info(); }
  StatusOr<Tensor> allocate(DataType dtype, const Dims& dims) override { return gpu_.allocate(dtype, dims); }
  void enqueue(DeviceTask* task, CompletionSink* sink) override { gpu_.enqueue(task, sink); }
  StatusOr<Tensor> copy(const Tensor& src, MemorySpace dst_space) override { return gpu_.copy(src, dst_space); }
  uint64_t bytes_in_use() const override { return gpu_.bytes_in_use(); }
  bool runs_inline() const override { return gpu_.runs_inline(); }
  int64_t now_ns() const override { return gpu_.now_ns(); }

 private:
  cuda::CudaDevice& gpu_;
};

}  // namespace

bool cuda_compiled() { return true; }
int cuda_device_count() { return availability().count; }
std::string cuda_unavailable_reason() { return availability().reason; }

StatusOr<uint64_t> pinned_host_budget() {
  if (availability().count == 0) return uint64_t{0};
  static const StatusOr<uint64_t> budget = cuda::PinnedPool::host_tensor_budget_from_env();
  return budget;
}

Status use_pinned_host_memory() {
  static const Status started = [] {
    StatusOr<uint64_t> b = pinned_host_budget();
    if (b.ok() && *b > 0) cuda::PinnedPool::instance().serve_host_tensors(*b);
    return b.status();
  }();
  return started;
}

StatusOr<std::unique_ptr<Device>> create_cuda_device(int ordinal) {
  const Availability& a = availability();
  if (a.count == 0) return FailedPrecondition("device 'cuda:", ordinal, "': ", a.reason);
  if (ordinal >= a.count)
    return InvalidArgument("device 'cuda:", ordinal, "': this machine has ", a.count, a.count == 1 ? " GPU" : " GPUs",
                           " (cuda:0..cuda:", a.count - 1, ")");
  RETURN_IF_ERROR(use_pinned_host_memory());
  ASSIGN_OR_RETURN(cuda::CudaDevice * gpu, cuda::CudaDevice::shared(ordinal));
  return std::unique_ptr<Device>(std::make_unique<SessionGpu>(*gpu));
}

std::vector<std::string> cuda_load_libraries() {
  auto describe = [](const char* name, const auto& api) {
    return api.ok() ? std::string(name) + " from " + (*api)->path : api.status().message();
  };
  return {describe("cuBLAS", cuda::CublasApi::get()), describe("cuDNN", cuda::CudnnApi::get())};
}

bool cuda_libraries_loaded() { return cuda::CublasApi::loaded() || cuda::CudnnApi::loaded(); }

void register_cuda_kernels(KernelRegistry& r) {
  cuda::register_cuda_elementwise_kernels(r);
  cuda::register_cuda_movement_kernels(r);
  cuda::register_cuda_blas_dnn_kernels(r);
  cuda::register_cuda_reduction_kernels(r);
  cuda::register_cuda_index_kernels(r);
  cuda::register_cuda_resize_kernels(r);
  cuda::register_cuda_attention_kernels(r);
  cuda::register_cuda_quant_kernels(r);
  cuda::register_cuda_rnn_kernels(r);
  cuda::register_cuda_einsum_kernels(r);
  cuda::register_cuda_grid_sample_kernels(r);
  cuda::register_cuda_loss_kernels(r);
  cuda::register_cuda_int_matmul_kernels(r);
  cuda::register_cuda_signal_kernels(r);
  cuda::register_cuda_detection_kernels(r);
  cuda::register_cuda_fold_kernels(r);
  cuda::register_cuda_select_kernels(r);
  cuda::register_cuda_deform_conv_kernels(r);
}

namespace cuda {

StatusOr<Launch> current_launch(const KernelContext& ctx) {
  Device& d = ctx.device();
  // Not id().kind: a simulated GPU also says kCuda but is no CudaDevice.
  auto* cuda = dynamic_cast<CudaDevice*>(&d);
  StreamSlot* slot = cuda ? cuda->launch_slot() : nullptr;
  if (!slot)
    return FailedPrecondition(ctx.node().describe(), ": CUDA kernel called outside a compute task on a CUDA device (",
                              d.info().name, ")");
  return Launch{slot->stream, slot, cuda->ordinal(), cuda};
}

StatusOr<int64_t> carried_size(const KernelContext& ctx, size_t count, int64_t lo, int64_t hi, const char* op) {
  const std::vector<Tensor>& carried = ctx.carried();
  if (carried.size() != count) return Internal("CUDA ", op, " resumed without its first launch's results");
  const int64_t size = carried.back().data<int64_t>()[0];
  if (size < lo || size > hi)
    return Internal("CUDA ", op, ": the first launch found a size of ", size, ", outside [", lo, ", ", hi, "]");
  return size;
}

namespace {

// A cuBLAS or cuDNN handle bound to `stream`; destroyed again if binding
// fails.
template <typename Handle, typename Api>
StatusOr<Handle> handle_on(const Api& api, cudaStream_t stream, const char* set_stream) {
  Handle h = nullptr;
  CUDA_RETURN_IF_ERROR(api.Create(&h));
  if (auto e = api.SetStream(h, stream); failed(e)) {
    (void)api.Destroy(h);
    return to_status(e, set_stream, __FILE__, __LINE__);
  }
  return h;
}

}  // namespace

// Handles are created on first use, under the device's launch lock (the
// caller is inside CudaDevice::enqueue), and bound to the slot's stream for
// good.
StatusOr<cublasHandle_t> Launch::cublas() const {
  if (!slot->cublas) {
    ASSIGN_OR_RETURN(const CublasApi* api, CublasApi::get());
    ASSIGN_OR_RETURN(slot->cublas, handle_on<cublasHandle_t>(*api, stream, "cublasSetStream"));
  }
  return slot->cublas;
}

StatusOr<cudnnHandle_t> Launch::cudnn() const {
  if (!slot->cudnn) {
    ASSIGN_OR_RETURN(const CudnnApi* api, CudnnApi::get());
    ASSIGN_OR_RETURN(slot->cudnn, handle_on<cudnnHandle_t>(*api, stream, "cudnnSetStream"));
  }
  return slot->cudnn;
}

StatusOr<int*> Launch::error_flag(const char* what) const {
  return owner->arm_error_flag(*slot, what);
}

}  // namespace cuda
}  // namespace sy

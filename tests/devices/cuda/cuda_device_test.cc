// The CUDA device through the backend's CUDA-free interface: what every
// build must say when it cannot open a GPU, and, on a machine with one,
// copies, asynchronous completion and allocation limits. Kernels are
// checked end to end by the conformance suite under --policy gpu. A CUDA
// build also runs these tests against fake GPUs (fake_gpu/fake_cuda.h).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "devices/cuda/cuda_backend.h"
#include "devices/host_allocator.h"
#include "devices/kernel_registry.h"
#include "tests/devices/cuda/queued_task_test_util.h"

namespace sy {
namespace {

using testing::CopyTo;
using testing::Queued;

#define SKIP_WITHOUT_GPU() \
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU: " << cuda_unavailable_reason()

TEST(CudaBackend, CreateDevice_Unavailable_SaysWhy) {
  const int n = cuda_device_count();
  auto d = create_cuda_device(n);  // one past the last GPU (cuda:0 without any)
  ASSERT_FALSE(d.ok());
  const std::string msg = d.status().message();
  EXPECT_NE(msg.find("cuda:" + std::to_string(n)), std::string::npos) << msg;
  if (!cuda_compiled()) EXPECT_NE(msg.find("SWITCHYARD_CUDA=ON"), std::string::npos) << msg;
  else if (n > 0) EXPECT_NE(msg.find("this machine has"), std::string::npos) << msg;
  else EXPECT_FALSE(cuda_unavailable_reason().empty());
}

// Without a driver the CUDA runtime itself says "driver version is
// insufficient", as for an old driver: the reason must say there is none.
TEST(CudaBackend, NoDriver_SaysSo) {
  if (!cuda_compiled()) GTEST_SKIP() << "built without CUDA: no driver is looked for";
  if (cuda_device_count() > 0) GTEST_SKIP() << "GPUs are usable here (a driver, or the fake GPUs)";
  if (void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
    dlclose(lib);
    GTEST_SKIP() << "this machine has an NVIDIA driver (libcuda.so.1), but no usable GPU";
  }
  const std::string why = cuda_unavailable_reason();
  EXPECT_NE(why.find("no NVIDIA driver"), std::string::npos) << why;
  EXPECT_NE(why.find("libcuda.so.1"), std::string::npos) << why;
}

TEST(CudaBackend, Kernels_RegisteredExactlyWhenCompiled) {
  std::vector<std::string> ops = KernelRegistry::builtin().ops(DeviceKind::kCuda);
  if (!cuda_compiled()) {
    EXPECT_TRUE(ops.empty());
    return;
  }
  for (const char* op : {"MatMul", "Gemm", "Conv", "Add", "Where", "Cast", "Transpose", "Gather", "ReduceSum",
                         "ArgMax", "TopK", "CumSum", "Softmax", "LayerNormalization"}) {
    EXPECT_NE(std::find(ops.begin(), ops.end(), std::string("::") + op), ops.end()) << op;
  }
  // Ops whose output size depends on the data have kernels that say so
  // (they run in two launches); string ops stay on the CPU.
  for (const char* op : {"NonZero", "Unique", "NonMaxSuppression"}) {
    const KernelDef* d = KernelRegistry::builtin().find("", op, 17, DeviceKind::kCuda, DataType::kFloat);
    ASSERT_NE(d, nullptr) << op;
    EXPECT_TRUE(d->data_dependent_shape) << op;
  }
  EXPECT_EQ(std::find(ops.begin(), ops.end(), std::string("::StringNormalizer")), ops.end());
}

bool mapped(const std::string& lib) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find(lib) != std::string::npos) return true;
  return false;
}

// cuBLAS (with libcublasLt) costs ~90 ms of page faults at load, and a CUDA
// build must start where neither it nor cuDNN is installed, so both are
// opened when needed, not linked: a process that opens no GPU maps neither.
TEST(CudaBackend, Libraries_LoadedOnlyWhenAsked) {
  if (!cuda_compiled()) {
    EXPECT_TRUE(cuda_load_libraries().empty());
    EXPECT_FALSE(cuda_libraries_loaded());
    return;
  }
  // Under ctest each test is a process of its own; in a whole-binary run an
  // earlier test may have opened a GPU, which loads them.
  if (cuda_libraries_loaded()) GTEST_SKIP() << "cuBLAS/cuDNN already loaded by an earlier test in this process";
  EXPECT_FALSE(mapped("libcublas")) << "libcublas is mapped before anything asked for it (linked again?)";
  EXPECT_FALSE(mapped("libcudnn")) << "libcudnn is mapped before anything asked for it (linked again?)";
  EXPECT_FALSE(mapped("libcudart")) << "the CUDA runtime should be linked statically";
  const std::vector<std::string> libs = cuda_load_libraries();
  ASSERT_EQ(libs.size(), 2u);
  // The development and CI machines have the toolkit and cuDNN installed.
  EXPECT_EQ(libs[0].rfind("cuBLAS from ", 0), 0u) << libs[0];
  EXPECT_NE(libs[0].find("libcublas.so"), std::string::npos) << libs[0];
  EXPECT_EQ(libs[1].rfind("cuDNN from ", 0), 0u) << libs[1];
  EXPECT_NE(libs[1].find("libcudnn.so"), std::string::npos) << libs[1];
  EXPECT_TRUE(cuda_libraries_loaded());
  EXPECT_TRUE(mapped("libcublas"));
  EXPECT_TRUE(mapped("libcudnn"));
  EXPECT_EQ(cuda_load_libraries(), libs);  // loaded once
}

void fill(Tensor& t) {
  for (size_t i = 0; i < t.nbytes(); ++i) t.data<uint8_t>()[i] = static_cast<uint8_t>(i * 131 + 7);
}

// Host bytes as a kernel or an input would have them: page-locked from
// 64 KiB up once a GPU is open (use_pinned_host_memory).
Tensor host_bytes(size_t n) {
  auto t = Tensor::host(DataType::kUInt8, Dims{static_cast<int64_t>(n)});
  EXPECT_TRUE(t.ok());
  fill(*t);
  return *t;
}

// Ordinary host memory of any size, as an embedder's own buffers are: the
// copies stage it.
Tensor pageable_host_bytes(size_t n) {
  static HostAllocator* ordinary = new HostAllocator(kHostSpace, uint64_t{1} << 32);  // no block source
  auto b = ordinary->allocate(n);
  EXPECT_TRUE(b.ok());
  Tensor t(DataType::kUInt8, Dims{static_cast<int64_t>(n)}, std::move(b).value());
  fill(t);
  return t;
}

TEST(CudaDevice, CopyRoundTrip_PreservesBytes_AtEverySize) {
  SKIP_WITHOUT_GPU();
  auto dev = create_cuda_device(0);
  ASSERT_TRUE(dev.ok()) << dev.status().message();
  // Empty, tiny, just past the direct-copy limit, and several staging
  // chunks with a ragged end; from ordinary and from page-locked memory.
  for (size_t n : {size_t{0}, size_t{3}, (size_t{64} << 10) + 1, (size_t{10} << 20) + 3}) {
    for (bool pageable : {true, false}) {
      SCOPED_TRACE(::testing::Message() << n << (pageable ? " bytes, pageable" : " bytes"));
      Tensor h = pageable ? pageable_host_bytes(n) : host_bytes(n);
      if (pageable) {
        EXPECT_EQ(HostAllocator::source_of(h.buffer().get()), nullptr);
      }
      auto d = (*dev)->copy(h, (*dev)->memory_space());
      ASSERT_TRUE(d.ok()) << d.status().message();
      EXPECT_EQ(d->space(), (*dev)->memory_space());
      auto back = (*dev)->copy(*d, kHostSpace);
      ASSERT_TRUE(back.ok()) << back.status().message();
      EXPECT_EQ(back->space(), kHostSpace);
      ASSERT_EQ(back->nbytes(), n);
      EXPECT_EQ(std::memcmp(back->raw(), h.raw(), n), 0);
    }
  }
}

// Once a GPU is open, numeric host tensors of 64 KiB and more, and only
// those, are page-locked.
TEST(CudaBackend, HostTensors_OnceAGpuIsOpen_ArePageLockedFrom64KiB) {
  SKIP_WITHOUT_GPU();
  if (const char* v = std::getenv("SWITCHYARD_PINNED_HOST_MIB"); v && std::string(v) == "0")
    GTEST_SKIP() << "SWITCHYARD_PINNED_HOST_MIB=0 turns page-locked host tensors off";
  ASSERT_TRUE(create_cuda_device(0).ok());
  auto big = Tensor::host(DataType::kFloat, Dims{256, 64});  // 64 KiB
  auto small = Tensor::host(DataType::kFloat, Dims{256, 63});
  auto strings = Tensor::host(DataType::kString, Dims{1 << 14});
  ASSERT_TRUE(big.ok() && small.ok() && strings.ok());
  EXPECT_NE(HostAllocator::source_of(big->buffer().get()), nullptr);
  EXPECT_EQ(HostAllocator::source_of(small->buffer().get()), nullptr);
  EXPECT_EQ(HostAllocator::source_of(strings->buffer().get()), nullptr);
}

TEST(CudaDevice, CopyOfString_IsRefused) {
  SKIP_WITHOUT_GPU();
  auto dev = create_cuda_device(0);
  ASSERT_TRUE(dev.ok());
  auto s = Tensor::host(DataType::kString, Dims{2});
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE((*dev)->copy(*s, (*dev)->memory_space()).ok());
}

TEST(CudaDevice, Allocate_Absurd_IsResourceExhausted) {
  SKIP_WITHOUT_GPU();
  auto dev = create_cuda_device(0);
  ASSERT_TRUE(dev.ok());
  auto t = (*dev)->allocate(DataType::kFloat, Dims{int64_t{1} << 20, int64_t{1} << 20});  // 4 TiB
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kResourceExhausted) << t.status().message();
}

// A GPU may hold more than the host lets one tensor take: bringing it
// back fails as making it on the host would, with nothing left held.
TEST(CudaDevice, CopyBack_PastTheHostBound_IsResourceExhausted) {
  SKIP_WITHOUT_GPU();
  auto dev = create_cuda_device(0);
  ASSERT_TRUE(dev.ok());
  auto d = (*dev)->allocate(DataType::kFloat, Dims{1 << 20});  // 4 MiB
  ASSERT_TRUE(d.ok()) << d.status().message();
  HostAllocator& host = HostAllocator::host();
  const uint64_t was = host.capacity();
  host.set_capacity(uint64_t{1} << 20);
  auto back = (*dev)->copy(*d, kHostSpace);
  host.set_capacity(was);
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().code(), StatusCode::kResourceExhausted) << back.status().message();
  EXPECT_NE(back.status().message().find("capacity 1048576"), std::string::npos) << back.status().message();
  EXPECT_TRUE((*dev)->copy(*d, kHostSpace).ok());
}

TEST(CudaDevice, Enqueue_CompletesOnAnotherThread_WithTimes) {
  SKIP_WITHOUT_GPU();
  auto dev = create_cuda_device(0);
  ASSERT_TRUE(dev.ok());
  EXPECT_FALSE((*dev)->runs_inline());
  const size_t n = size_t{32} << 20;
  Tensor h = host_bytes(n);
  Queued<CopyTo> q(std::make_unique<CopyTo>(h, (*dev)->memory_space()));
  ASSERT_TRUE(q.run(*dev)) << "no completion within 30 s";
  const CopyTo& task = q.task();
  ASSERT_TRUE(task.status.ok()) << task.status.message();
  EXPECT_NE(q.sink().thread(), std::this_thread::get_id())
      << "a 32 MiB copy should complete on the poller's (or the driver's) thread";
  EXPECT_GT(task.end_ns, task.start_ns);
  auto back = (*dev)->copy(task.result, kHostSpace);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(std::memcmp(back->raw(), h.raw(), n), 0);
}

TEST(CudaDevice, CopyOnGpu_PreservesBytes) {
  SKIP_WITHOUT_GPU();
  auto dev = create_cuda_device(0);
  ASSERT_TRUE(dev.ok());
  const size_t n = (size_t{1} << 20) + 5;
  Tensor h = host_bytes(n);
  auto d = (*dev)->copy(h, (*dev)->memory_space());
  ASSERT_TRUE(d.ok()) << d.status().message();
  auto d2 = (*dev)->copy(*d, (*dev)->memory_space());  // device to device
  ASSERT_TRUE(d2.ok()) << d2.status().message();
  EXPECT_NE(d2->raw(), d->raw());
  auto back = (*dev)->copy(*d2, kHostSpace);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(std::memcmp(back->raw(), h.raw(), n), 0);
}

// Both queued directions, an empty tensor, and a task that fails: each is
// heard by the sink exactly as it finished, none hangs.
TEST(CudaDevice, Enqueue_CopiesBothWays_AndFailures_Complete) {
  SKIP_WITHOUT_GPU();
  auto dev = create_cuda_device(0);
  ASSERT_TRUE(dev.ok());
  const size_t n = (size_t{9} << 20) + 1;  // staged, with a ragged last chunk
  Tensor h = host_bytes(n);
  Queued<CopyTo> up(std::make_unique<CopyTo>(h, (*dev)->memory_space()));
  ASSERT_TRUE(up.run(*dev));
  ASSERT_TRUE(up.task().status.ok()) << up.task().status.message();
  Queued<CopyTo> down(std::make_unique<CopyTo>(up.task().result, kHostSpace));
  ASSERT_TRUE(down.run(*dev));
  ASSERT_TRUE(down.task().status.ok()) << down.task().status.message();
  ASSERT_EQ(down.task().result.nbytes(), n);
  EXPECT_EQ(std::memcmp(down.task().result.raw(), h.raw(), n), 0);

  Queued<CopyTo> empty(std::make_unique<CopyTo>(host_bytes(0), (*dev)->memory_space()));
  ASSERT_TRUE(empty.run(*dev));
  EXPECT_TRUE(empty.task().status.ok()) << empty.task().status.message();

  auto strings = Tensor::host(DataType::kString, Dims{2});
  ASSERT_TRUE(strings.ok());
  Queued<CopyTo> bad(std::make_unique<CopyTo>(*strings, (*dev)->memory_space()));
  ASSERT_TRUE(bad.run(*dev));
  EXPECT_FALSE(bad.task().status.ok());
}

// Queues copies back to the host, drops their results and fails: the
// pinned blocks they land in return to the pool only once the task's work
// is done, and the task completes once, with its own error.
class CopyBackThenFail final : public DeviceTask {
 public:
  CopyBackThenFail(Tensor src, Queue q) : src_(std::move(src)) { queue = q; }
  Status execute(Device& device) override {
    for (int i = 0; i < 3; ++i) {
      auto r = device.copy(src_, kHostSpace);
      if (!r.ok()) return r.status();
    }
    return Internal("failed after queuing its copies");
  }

 private:
  Tensor src_;
};

TEST(CudaDevice, Enqueue_FailureAfterQueuedCopies_CompletesOnce) {
  SKIP_WITHOUT_GPU();
  auto dev = create_cuda_device(0);
  ASSERT_TRUE(dev.ok());
  const size_t n = (size_t{1} << 20) + 7;
  Tensor h = host_bytes(n);
  auto d = (*dev)->copy(h, (*dev)->memory_space());
  ASSERT_TRUE(d.ok()) << d.status().message();
  for (DeviceTask::Queue q : {DeviceTask::Queue::kCopy, DeviceTask::Queue::kCompute}) {
    SCOPED_TRACE(q == DeviceTask::Queue::kCopy ? "copy queue" : "compute queue");
    Queued<CopyBackThenFail> failing(std::make_unique<CopyBackThenFail>(*d, q));
    ASSERT_TRUE(failing.run(*dev)) << "no completion within 30 s";
    const Status& st = failing.task().status;
    EXPECT_EQ(st.code(), StatusCode::kInternal) << st.message();
    // The device still works, and the task was not completed again.
    auto back = (*dev)->copy(*d, kHostSpace);
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(std::memcmp(back->raw(), h.raw(), n), 0);
    EXPECT_EQ(failing.sink().calls(), 1);
  }
}

TEST(CudaDevice, Memory_ReturnsToPool_WhenTensorsDie) {
  SKIP_WITHOUT_GPU();
  auto dev = create_cuda_device(0);
  ASSERT_TRUE(dev.ok());
  const uint64_t before = (*dev)->bytes_in_use();
  {
    auto t = (*dev)->allocate(DataType::kFloat, Dims{1 << 20});
    ASSERT_TRUE(t.ok());
    EXPECT_EQ((*dev)->bytes_in_use(), before + (uint64_t{4} << 20));
  }
  EXPECT_EQ((*dev)->bytes_in_use(), before);
}

}  // namespace
}  // namespace sy

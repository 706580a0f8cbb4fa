// PinnedPool as the source of the host allocator's larger tensors, on the
// fake GPUs: its budget, its reuse of blocks, the setting that sizes it, and
// copies from its tensors, which the runtime does not stage.
#include "devices/cuda/pinned_pool.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "devices/cuda/cuda_backend.h"
#include "devices/cuda/cuda_probe.h"
#include "devices/tensor.h"
#include "tests/devices/cuda/fake_gpu/fake_cuda.h"

namespace sy::cuda {
namespace {

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* v = std::getenv(name)) old_ = v, had_ = true;
    value ? setenv(name, value, 1) : unsetenv(name);
  }
  ~ScopedEnv() { had_ ? setenv(name_, old_.c_str(), 1) : unsetenv(name_); }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

// Serves host tensors within `budget` for one scope, then as the
// environment says again (as the first GPU session of the process set it).
class ScopedBudget {
 public:
  explicit ScopedBudget(uint64_t budget) { PinnedPool::instance().serve_host_tensors(budget); }
  ~ScopedBudget() {
    StatusOr<uint64_t> b = PinnedPool::host_tensor_budget_from_env();
    PinnedPool::instance().serve_host_tensors(b.ok() ? *b : 0);
  }
};

bool page_locked(const Tensor& t) { return PinnedPool::owns(t.buffer().get()); }

TEST(PinnedPool, HostTensors_ComeFromThePool_WithinItsBudget) {
  ASSERT_TRUE(create_cuda_device(0).ok());
  PinnedPool& pool = PinnedPool::instance();
  HostAllocator& host = HostAllocator::host();
  // 100 MiB tensors take 128 MiB blocks, a class no other test here frees
  // into the pool, so the second must grow it.
  const Dims dims{25, 1 << 20};
  const uint64_t block = uint64_t{128} << 20;
  ScopedBudget budget(pool.allocated_bytes() + block);
  const uint64_t in_use = host.bytes_in_use();
  const void* first_data = nullptr;
  {
    auto first = Tensor::host(DataType::kFloat, dims);
    ASSERT_TRUE(first.ok()) << first.status().message();
    EXPECT_TRUE(page_locked(*first));
    first_data = first->raw();
    EXPECT_EQ(host.bytes_in_use(), in_use + first->nbytes()) << "page-locked tensors count as host memory in use";
    auto second = Tensor::host(DataType::kFloat, dims);
    ASSERT_TRUE(second.ok()) << second.status().message();
    EXPECT_FALSE(page_locked(*second)) << "past the budget, tensors take ordinary memory";
  }
  EXPECT_EQ(host.bytes_in_use(), in_use);
  auto again = Tensor::host(DataType::kFloat, dims);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(page_locked(*again));
  EXPECT_EQ(again->raw(), first_data) << "a freed block is used again";
}

TEST(PinnedPool, ZeroBudget_StopsServingHostTensors) {
  ASSERT_TRUE(create_cuda_device(0).ok());
  ScopedBudget off(0);
  auto t = Tensor::host(DataType::kFloat, Dims{1 << 18});
  ASSERT_TRUE(t.ok());
  EXPECT_FALSE(page_locked(*t));
}

TEST(PinnedPool, HostTensorBudget_FromTheEnvironment) {
  {
    ScopedEnv unset("SWITCHYARD_PINNED_HOST_MIB", nullptr);
    auto b = PinnedPool::host_tensor_budget_from_env();
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(*b, physical_memory_bytes() / 4);
  }
  {
    ScopedEnv mib("SWITCHYARD_PINNED_HOST_MIB", "16");
    auto b = PinnedPool::host_tensor_budget_from_env();
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(*b, uint64_t{16} << 20);
  }
  {
    ScopedEnv off("SWITCHYARD_PINNED_HOST_MIB", "0");
    auto b = PinnedPool::host_tensor_budget_from_env();
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(*b, 0u);
  }
  for (const char* bad : {"lots", "-1", "12MiB", "99999999999999999999", "2000000000000"}) {
    SCOPED_TRACE(bad);
    ScopedEnv env("SWITCHYARD_PINNED_HOST_MIB", bad);
    auto b = PinnedPool::host_tensor_budget_from_env();
    ASSERT_FALSE(b.ok());
    EXPECT_EQ(b.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(b.status().message().find("SWITCHYARD_PINNED_HOST_MIB is '" + std::string(bad) + "'"), std::string::npos)
        << b.status().message();
  }
}

// The point of it all: a page-locked tensor goes to the GPU as a DMA the
// caller does not wait for, where the runtime stages ordinary memory first.
TEST(PinnedPool, CopyOfAPageLockedHostTensor_IsNotStaged) {
  auto dev = create_cuda_device(0);
  ASSERT_TRUE(dev.ok()) << dev.status().message();
  ScopedBudget budget(PinnedPool::instance().allocated_bytes() + (uint64_t{8} << 20));
  auto t = Tensor::host(DataType::kFloat, Dims{1 << 18});  // 1 MiB: below the staging threshold of a copy
  ASSERT_TRUE(t.ok());
  ASSERT_TRUE(page_locked(*t));
  for (int64_t i = 0; i < t->numel(); ++i) t->data<float>()[i] = static_cast<float>(i);
  const uint64_t before = fake_cuda::stats().pageable_copies;
  auto on_gpu = (*dev)->copy(*t, (*dev)->memory_space());
  ASSERT_TRUE(on_gpu.ok()) << on_gpu.status().message();
  auto back = (*dev)->copy(*on_gpu, kHostSpace);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(fake_cuda::stats().pageable_copies, before);
  for (int64_t i = 0; i < t->numel(); i += 4097) ASSERT_EQ(back->data<float>()[i], static_cast<float>(i));

  auto pageable = pageable_host_tensor(DataType::kFloat, t->dims());
  ASSERT_TRUE(pageable.ok()) << pageable.status().message();
  ASSERT_TRUE((*dev)->copy(*pageable, (*dev)->memory_space()).ok());
  EXPECT_EQ(fake_cuda::stats().pageable_copies, before + 1) << "the fake counts what it stages";
}

}  // namespace
}  // namespace sy::cuda

#include "devices/tensor.h"

#include <gtest/gtest.h>

#include <cstring>

#include "devices/host_allocator.h"

namespace sy {
namespace {

TEST(Tensor, HostAllocation_HasShapeAndBytes) {
  auto t = Tensor::host(DataType::kFloat, Dims{2, 3});
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  EXPECT_EQ(t->numel(), 6);
  EXPECT_EQ(t->nbytes(), 24u);
  EXPECT_EQ(t->space(), kHostSpace);
}

TEST(Tensor, HostAllocation_RejectsPetabytes) {
  auto t = Tensor::host(DataType::kFloat, Dims{1 << 20, 1 << 20, 1 << 20});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kResourceExhausted);
}

TEST(Tensor, HostAllocation_RejectsOverflowingShape) {
  auto t = Tensor::host(DataType::kFloat, Dims{INT64_MAX / 2, 4});
  ASSERT_FALSE(t.ok());
}

TEST(Tensor, StringTensor_ConstructsAndDestroysElements) {
  auto t = Tensor::host(DataType::kString, Dims{3});
  ASSERT_TRUE(t.ok());
  t->data<std::string>()[1] = std::string(100, 'x');  // heap-allocated string, freed by the buffer
  EXPECT_EQ(t->data<std::string>()[0], "");
  EXPECT_EQ(t->data<std::string>()[1].size(), 100u);
}

TEST(HostAllocator, ReusesFreedBlocks_InUseReturnsToBaseline) {
  HostAllocator& a = HostAllocator::host();
  uint64_t base = a.bytes_in_use();
  for (int i = 0; i < 100; ++i) {
    auto b = a.allocate(256);
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(a.bytes_in_use(), base + 256);
  }
  EXPECT_EQ(a.bytes_in_use(), base);
}

// Buffers over 1 MiB come back from a cache: a freed block is handed out
// again for the next request of a similar size, which is what keeps steady
// runs from touching fresh pages; both can be written in full.
TEST(HostAllocator, BigBlocks_AreReused) {
  HostAllocator& a = HostAllocator::host();
  const size_t big = (size_t{5} << 20) + 123;
  const void* first = nullptr;
  {
    auto b = a.allocate(big);
    ASSERT_TRUE(b.ok());
    first = b->get()->data;
    std::memset(b->get()->data, 1, big);
  }
  auto again = a.allocate(big - 100);  // the same rounded size
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->get()->data, first);
  std::memset(again->get()->data, 2, big - 100);
  auto other = a.allocate(big);  // the cached block is taken: a new one
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->get()->data, first);
}

TEST(HostAllocator, LoweredCapacity_RefusesWhatNoLongerFits) {
  // A private allocator: the process-wide one is shared with other tests.
  HostAllocator a(MemorySpace{DeviceKind::kCpu, 7}, uint64_t{1} << 20);
  auto held = a.allocate(4096);
  ASSERT_TRUE(held.ok());
  a.set_capacity(8192);
  EXPECT_EQ(a.capacity(), 8192u);
  EXPECT_TRUE(a.allocate(4096).ok());  // 4096 held + 4096 fits
  auto over = a.allocate(4097);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), StatusCode::kResourceExhausted);
}

TEST(HostAllocator, DefaultCapacity_IsTheMachinesMemoryAtMost) {
  EXPECT_GT(physical_memory_bytes(), uint64_t{64} << 20);
  EXPECT_LE(HostAllocator::host().capacity(), physical_memory_bytes());
}

TEST(Dims, InlineAndHeapStorage_BehaveAlike) {
  Dims d;
  for (int i = 0; i < 12; ++i) d.push_back(i + 1);
  Dims copy = d;
  EXPECT_EQ(copy.size(), 12u);
  EXPECT_EQ(copy[11], 12);
  copy.erase(0);
  EXPECT_EQ(copy[0], 2);
  copy.insert(0, 7);
  EXPECT_EQ(copy[0], 7);
  EXPECT_EQ(Dims({2, 3, 4}).numel(), 24);
  EXPECT_EQ(Dims().numel(), 1);
}

TEST(Float16, RoundTripsCommonValues) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 0.000061035156f}) EXPECT_EQ(static_cast<float>(Float16(f)), f);
  EXPECT_EQ(static_cast<float>(BFloat16(1.5f)), 1.5f);
}

}  // namespace
}  // namespace sy

// HostAllocator with a block source: which buffers it asks the source for,
// what happens when the source declines, and the accounting either way.
// (The allocator's own caches are tested in tensor_test.cc.)
#include "devices/host_allocator.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

namespace sy {
namespace {

// Hands out malloc'd blocks, up to `limit` of them at once, and checks
// each comes back once, with the size it was taken for.
class CountingSource final : public HostAllocator::BlockSource {
 public:
  explicit CountingSource(int limit) : limit_(limit) {}
  ~CountingSource() override { EXPECT_TRUE(out_.empty()) << out_.size() << " blocks never came back"; }
  void* take(size_t bytes) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (static_cast<int>(out_.size()) >= limit_) return nullptr;
    void* p = std::malloc(bytes);
    out_[p] = bytes;
    ++taken_;
    return p;
  }
  void give_back(void* block, size_t bytes) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = out_.find(block);
    ASSERT_NE(it, out_.end()) << "a block this source did not give";
    EXPECT_EQ(it->second, bytes);
    out_.erase(it);
    std::free(block);
  }
  int taken() {
    std::lock_guard<std::mutex> lock(mu_);
    return taken_;
  }
  int out() {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<int>(out_.size());
  }

 private:
  std::mutex mu_;
  const int limit_;
  std::map<void*, size_t> out_;
  int taken_ = 0;
};

TEST(HostAllocator, BlockSource_GivesNumericBuffersFromItsThreshold) {
  CountingSource source(8);
  HostAllocator a(MemorySpace{DeviceKind::kCpu, 5}, uint64_t{1} << 30);
  a.set_block_source(&source, 4096);
  auto big = a.allocate(4096, DataType::kFloat, 1024);
  auto small = a.allocate(4095, DataType::kUInt8, 4095);
  auto strings = a.allocate(4096 * sizeof(std::string), DataType::kString, 4096);
  ASSERT_TRUE(big.ok() && small.ok() && strings.ok());
  EXPECT_EQ(HostAllocator::source_of(big->get()), &source);
  EXPECT_EQ(HostAllocator::source_of(small->get()), nullptr);
  EXPECT_EQ(HostAllocator::source_of(strings->get()), nullptr) << "strings are never copied to a device";
  EXPECT_EQ(source.taken(), 1);
  EXPECT_EQ(big->get()->space, a.space());
  EXPECT_EQ(big->get()->bytes, 4096u);
  std::memset(big->get()->data, 7, 4096);
  EXPECT_EQ(a.bytes_in_use(), 4096u + 4095u + 4096 * sizeof(std::string));
  big->reset();
  EXPECT_EQ(source.out(), 0) << "released to the source";
  EXPECT_EQ(a.bytes_in_use(), 4095u + 4096 * sizeof(std::string));
}

TEST(HostAllocator, BlockSourceDeclining_FallsBackToOrdinaryMemory) {
  CountingSource source(1);
  HostAllocator a(MemorySpace{DeviceKind::kCpu, 5}, uint64_t{1} << 30);
  a.set_block_source(&source, 1);
  auto first = a.allocate(1 << 20);
  auto second = a.allocate(1 << 20);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(HostAllocator::source_of(first->get()), &source);
  EXPECT_EQ(HostAllocator::source_of(second->get()), nullptr);
  std::memset(second->get()->data, 1, 1 << 20);
  EXPECT_EQ(a.bytes_in_use(), uint64_t{2} << 20);
}

// The capacity holds for sourced buffers as for any: a source does not
// widen what one tensor may take or what the allocator holds.
TEST(HostAllocator, BlockSource_WithinTheCapacity) {
  CountingSource source(8);
  HostAllocator a(MemorySpace{DeviceKind::kCpu, 5}, uint64_t{1} << 20);
  a.set_block_source(&source, 1);
  auto held = a.allocate(size_t{3} << 18);
  ASSERT_TRUE(held.ok());
  auto over = a.allocate(size_t{1} << 19);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(source.taken(), 1);
}

// Removing the source sends new buffers to ordinary memory; those it gave
// still go back to it.
TEST(HostAllocator, BlockSourceRemoved_ItsBuffersStillReturnToIt) {
  CountingSource source(8);
  HostAllocator a(MemorySpace{DeviceKind::kCpu, 5}, uint64_t{1} << 30);
  a.set_block_source(&source, 1);
  auto given = a.allocate(1 << 16);
  ASSERT_TRUE(given.ok());
  a.set_block_source(nullptr, 0);
  auto after = a.allocate(1 << 16);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(HostAllocator::source_of(after->get()), nullptr);
  given->reset();
  EXPECT_EQ(source.out(), 0);
  EXPECT_EQ(a.bytes_in_use(), uint64_t{1} << 16);
}

}  // namespace
}  // namespace sy

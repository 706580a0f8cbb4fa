// Unit tests for the Resize plan shared by the CPU and CUDA kernels
// (resize_plan.cc): what it refuses before building any table.
#include "devices/cpu/kernels/resize_plan.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "devices/host_allocator.h"

namespace sy::tensor_ops {
namespace {

// Sets the host allocator's per-tensor limit for one test.
class HostCapacity {
 public:
  explicit HostCapacity(uint64_t bytes) : saved_(HostAllocator::host().capacity()) {
    HostAllocator::host().set_capacity(bytes);
  }
  ~HostCapacity() { HostAllocator::host().set_capacity(saved_); }

 private:
  uint64_t saved_;
};

// Nearest takes an index and a weight (16 bytes) and a flag per output
// coordinate: a 2^20-long axis needs 17 MiB of tables, whatever the output's
// element size. They are checked against the host allocator's limit before
// they are made, since a vector that cannot be had would throw.
TEST(ResizePlan, TablesPastTheHostLimit_AreResourceExhausted) {
  const ResizeAttrs nearest;
  const ResizeTarget t{Dims{int64_t{1} << 20}, {double(int64_t{1} << 19)}, {}};
  {
    HostCapacity limit(uint64_t{4} << 20);
    auto plans = plan_resize_axes(nearest, Dims{2}, t);
    ASSERT_FALSE(plans.ok());
    EXPECT_EQ(plans.status().code(), StatusCode::kResourceExhausted) << plans.status().message();
  }
  HostCapacity limit(uint64_t{64} << 20);
  auto plans = plan_resize_axes(nearest, Dims{2}, t);
  ASSERT_TRUE(plans.ok()) << plans.status().message();
  EXPECT_EQ((*plans)[0].idx.size(), size_t{1} << 20);
}

// Antialiased downsampling widens the filter to about 2 / scale taps: a
// 10^10-long axis shrunk to one element would want 2 * 10^10, more than
// the plan's int counts, however much memory the host has.
TEST(ResizePlan, AntialiasTapsPastAnInt_AreResourceExhausted) {
  ResizeAttrs linear;
  linear.mode = ResizeMode::kLinear;
  linear.antialias = true;
  HostCapacity limit(std::numeric_limits<uint64_t>::max());
  auto plans = plan_resize_axes(linear, Dims{10'000'000'000}, ResizeTarget{Dims{1}, {1e-10}, {}});
  ASSERT_FALSE(plans.ok());
  EXPECT_EQ(plans.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(plans.status().message().find("taps"), std::string::npos) << plans.status().message();
}

}  // namespace
}  // namespace sy::tensor_ops

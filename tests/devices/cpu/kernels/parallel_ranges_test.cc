// parallel_for_ranges (parallel_ranges.h): the ranges cover [0, n) once,
// without overlap, and are not split below the grain.
#include "devices/cpu/kernels/parallel_ranges.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <utility>
#include <vector>

namespace sy {
namespace {

std::vector<std::pair<int64_t, int64_t>> ranges_of(int64_t n, int64_t grain) {
  std::mutex mu;
  std::vector<std::pair<int64_t, int64_t>> ranges;
  parallel_for_ranges(n, grain, [&](int64_t b, int64_t e) {
    std::lock_guard<std::mutex> lock(mu);
    ranges.emplace_back(b, e);
  });
  std::sort(ranges.begin(), ranges.end());
  return ranges;
}

TEST(ParallelForRanges, CoversEveryIndexOnce_InRangesNotSplitBelowTheGrain) {
  const auto ranges = ranges_of(100000, 1000);
  ASSERT_FALSE(ranges.empty());
  int64_t next = 0;
  for (const auto& [b, e] : ranges) {
    EXPECT_EQ(b, next);
    EXPECT_GT(e, b);
    // A range is halved only while it holds more than the grain.
    EXPECT_GE(e - b, 500);
    next = e;
  }
  EXPECT_EQ(next, 100000);
}

TEST(ParallelForRanges, FewerIndicesThanTheGrain_AreOneRange) {
  EXPECT_EQ(ranges_of(5, 10), (std::vector<std::pair<int64_t, int64_t>>{{0, 5}}));
}

TEST(ParallelForRanges, NothingToDo_CallsNothing_AndAGrainBelowOneIsOne) {
  EXPECT_TRUE(ranges_of(0, 10).empty());
  EXPECT_TRUE(ranges_of(-3, 10).empty());
  std::atomic<int64_t> total{0};
  parallel_for_ranges(1000, 0, [&](int64_t b, int64_t e) { total += e - b; });
  EXPECT_EQ(total.load(), 1000);
}

}  // namespace
}  // namespace sy

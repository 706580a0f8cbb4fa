#include "devices/cuda/kernels/geometry_cache.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace sy::cuda {
namespace {

TEST(GeometryCache, FindsWhatWasPut_ByTheWholeKey) {
  GeometryCache<int> c;
  EXPECT_FALSE(c.find({0, 1, 2}).has_value());
  c.put({0, 1, 2}, 7);
  c.put({0, 1, 2, 3}, 8);  // a longer geometry is another key, not a prefix match
  c.put({1, 1, 2}, 9);     // the same geometry on another GPU
  EXPECT_EQ(c.find({0, 1, 2}), 7);
  EXPECT_EQ(c.find({0, 1, 2, 3}), 8);
  EXPECT_EQ(c.find({1, 1, 2}), 9);
  EXPECT_FALSE(c.find({0, 1}).has_value());
  c.put({0, 1, 2}, 10);
  EXPECT_EQ(c.find({0, 1, 2}), 10);
  EXPECT_EQ(c.size(), 3u);
}

TEST(GeometryCache, StartsOver_WhenFull) {
  GeometryCache<int> c(/*capacity=*/2);
  c.put({1}, 1);
  c.put({2}, 2);
  c.put({2}, 3);  // replacing an entry never empties it
  EXPECT_EQ(c.size(), 2u);
  c.put({3}, 4);
  EXPECT_EQ(c.size(), 1u);
  EXPECT_FALSE(c.find({1}).has_value());
  EXPECT_EQ(c.find({3}), 4);
}

// Kernels on several streams look up and fill it at once.
TEST(GeometryCache, ConcurrentUse_KeepsEveryAnswerWhole) {
  GeometryCache<std::vector<int64_t>> c(/*capacity=*/64);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&c, t] {
      for (int64_t i = 0; i < 2000; ++i) {
        const std::vector<int64_t> key{(i + t) % 100};
        if (auto got = c.find(key)) {
          ASSERT_EQ(got->size(), 3u);
          EXPECT_EQ((*got)[0], key[0]);
          EXPECT_EQ((*got)[2], key[0] * 2);
        } else {
          c.put(key, {key[0], key[0] + 1, key[0] * 2});
        }
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_LE(c.size(), 64u);
}

}  // namespace
}  // namespace sy::cuda

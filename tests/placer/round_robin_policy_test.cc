#include "placer/round_robin_policy.h"

#include <gtest/gtest.h>

#include <thread>

#include "placer/policy_registry.h"
#include "tests/placer/policy_test_util.h"

namespace sy {
namespace {

using testing::candidates_on;
using testing::request_for;

TEST(RoundRobinPolicy, Place_CyclesThroughCandidates) {
  RoundRobinPolicy p;
  auto c = candidates_on({0, 1, 2});
  std::vector<int> got;
  for (int i = 0; i < 7; ++i) got.push_back(p.place(request_for(c)).candidate);
  EXPECT_EQ(got, (std::vector<int>{0, 1, 2, 0, 1, 2, 0}));
  EXPECT_FALSE(p.uses_costs());
}

TEST(RoundRobinPolicy, Place_SingleCandidate_AlwaysZero) {
  RoundRobinPolicy p;
  auto c = candidates_on({4});
  for (int i = 0; i < 5; ++i) EXPECT_EQ(p.place(request_for(c)).candidate, 0);
}

TEST(RoundRobinPolicy, Place_ConcurrentCallers_SpreadEvenly) {
  RoundRobinPolicy p;
  auto c = candidates_on({0, 1, 2});
  std::atomic<int> counts[3] = {0, 0, 0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 3000; ++i) counts[p.place(request_for(c)).candidate]++;
    });
  for (auto& t : threads) t.join();
  for (auto& n : counts) EXPECT_EQ(n.load(), 4000);
}

TEST(RoundRobinPolicy, Registry_CreatesByName) {
  auto p = PolicyRegistry::builtin().create("round-robin");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->name(), "round-robin");
}

}  // namespace
}  // namespace sy

#include "placer/random_policy.h"

#include <gtest/gtest.h>

#include "placer/policy_registry.h"
#include "tests/placer/policy_test_util.h"

namespace sy {
namespace {

using testing::candidates_on;
using testing::request_for;

std::vector<int> draws(RandomPolicy& p, int n, int k) {
  std::vector<int> idx;
  for (int i = 0; i < k; ++i) idx.push_back(i);
  auto c = candidates_on(idx);
  std::vector<int> out;
  for (int i = 0; i < n; ++i) out.push_back(p.place(request_for(c)).candidate);
  return out;
}

TEST(RandomPolicy, Place_SameSeed_SameSequence) {
  RandomPolicy a(42), b(42);
  EXPECT_EQ(draws(a, 500, 3), draws(b, 500, 3));
  EXPECT_FALSE(a.uses_costs());
}

TEST(RandomPolicy, Place_DifferentSeeds_DifferentSequences) {
  RandomPolicy a(1), b(2);
  EXPECT_NE(draws(a, 200, 3), draws(b, 200, 3));
}

TEST(RandomPolicy, Place_CoversAllCandidatesRoughlyUniformly) {
  RandomPolicy p(7);
  std::vector<int> counts(3, 0);
  for (int v : draws(p, 3000, 3)) {
    ASSERT_GE(v, 0);
    ASSERT_LT(v, 3);
    counts[static_cast<size_t>(v)]++;
  }
  for (int n : counts) {
    EXPECT_GT(n, 850);
    EXPECT_LT(n, 1150);
  }
}

TEST(RandomPolicy, Place_SingleCandidate_AlwaysZero) {
  RandomPolicy p(3);
  for (int v : draws(p, 50, 1)) EXPECT_EQ(v, 0);
}

TEST(RandomPolicy, Registry_PassesSeed) {
  PolicyOptions o;
  o.seed = 99;
  auto a = PolicyRegistry::builtin().create("random", o);
  auto b = PolicyRegistry::builtin().create("random", o);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ((*a)->name(), "random");
  auto c = candidates_on({0, 1, 2, 3});
  for (int i = 0; i < 100; ++i) EXPECT_EQ((*a)->place(request_for(c)).candidate, (*b)->place(request_for(c)).candidate);
  bool mentions_seed = false;
  for (const auto& [name, help] : PolicyRegistry::builtin().list())
    if (name == "random") mentions_seed = help.find("--seed") != std::string::npos;
  EXPECT_TRUE(mentions_seed);
}

}  // namespace
}  // namespace sy

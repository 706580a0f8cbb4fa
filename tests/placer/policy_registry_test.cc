#include "placer/policy_registry.h"

#include <gtest/gtest.h>

namespace sy {
namespace {

TEST(PolicyRegistry, BuiltinSingleAndCpu_PlaceOnFirstCandidate) {
  for (const char* name : {"single", "cpu"}) {
    auto p = PolicyRegistry::builtin().create(name);
    ASSERT_TRUE(p.ok()) << name;
    EXPECT_EQ((*p)->name(), name);
    Candidate c[2];
    c[1].device_index = 1;
    PlacementRequest req;
    req.candidates = c;
    EXPECT_EQ((*p)->place(req).candidate, 0);
  }
}

TEST(PolicyRegistry, UnknownName_ListsKnownPolicies) {
  auto p = PolicyRegistry::builtin().create("fastest-please");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("fastest-please"), std::string::npos);
  EXPECT_NE(p.status().message().find("single"), std::string::npos);
}

TEST(PolicyRegistry, CustomRegistration_IsCreatedWithOptions) {
  struct Fixed : PlacementPolicy {
    explicit Fixed(int c) : c_(c) {}
    std::string_view name() const override { return "fixed"; }
    PlacementDecision place(const PlacementRequest&) override { return {c_}; }
    int c_;
  };
  PolicyRegistry r;
  r.add("fixed", "always the candidate given by the seed",
        [](const PolicyOptions& o) { return std::make_unique<Fixed>(static_cast<int>(o.seed)); });
  PolicyOptions opt;
  opt.seed = 3;
  auto p = r.create("fixed", opt);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->place(PlacementRequest{}).candidate, 3);
  ASSERT_EQ(r.list().size(), 1u);
  EXPECT_EQ(r.list()[0].first, "fixed");
}

}  // namespace
}  // namespace sy

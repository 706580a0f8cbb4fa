#include "placer/dynamic_policy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "placer/policy_registry.h"
#include "tests/placer/policy_test_util.h"

namespace sy {
namespace {

using testing::candidates_on;
using testing::request_for;

// Candidates with the given finish times, split over the three terms.
std::vector<Candidate> with_finish(std::vector<int> devices, std::vector<double> finish) {
  auto c = candidates_on(devices);
  for (size_t i = 0; i < c.size(); ++i) {
    c[i].backlog_us = finish[i] * 0.5;
    c[i].predicted_transfer_us = finish[i] * 0.2;
    c[i].predicted_compute_us = finish[i] * 0.3;
  }
  return c;
}

TEST(DynamicPolicy, Place_PicksEarliestFinish) {
  DynamicPolicy p;
  EXPECT_TRUE(p.uses_costs());
  auto c = candidates_on({0, 1, 2});
  c[0].predicted_compute_us = 50;              // 50
  c[1].predicted_compute_us = 10;              // 10 + 30 backlog = 40
  c[1].backlog_us = 30;
  c[2].predicted_compute_us = 5;               // 5 + 40 transfer = 45
  c[2].predicted_transfer_us = 40;
  std::atomic<int32_t> memo{-1};
  PlacementDecision d = p.place(request_for(c, &memo));
  EXPECT_EQ(d.candidate, 1);
  EXPECT_STREQ(d.reason, "earliest finish");
  EXPECT_EQ(memo.load(), 1);
}

TEST(DynamicPolicy, Place_LaunchCostCanOutweighAFasterKernel) {
  DynamicPolicy p;
  auto c = candidates_on({0, 1});
  c[0].predicted_compute_us = 6;  // 6 + 1 issue = 7
  c[0].issue_us = 1;
  c[1].predicted_compute_us = 2;  // 2 + 8 issue = 10
  c[1].issue_us = 8;
  EXPECT_EQ(p.place(request_for(c, nullptr)).candidate, 0);
  c[1].issue_us = 3;  // 5
  EXPECT_EQ(p.place(request_for(c, nullptr)).candidate, 1);
}

TEST(DynamicPolicy, Place_CopyingTheResultBackCounts) {
  DynamicPolicy p;
  auto c = candidates_on({0, 1});
  c[0].predicted_compute_us = 30;  // 30
  c[1].predicted_compute_us = 5;   // 5 + 10 in + 20 back = 35
  c[1].predicted_transfer_us = 10;
  c[1].output_transfer_us = 20;
  EXPECT_EQ(p.place(request_for(c, nullptr)).candidate, 0);
  c[1].output_transfer_us = 0;  // its consumers run there: 15
  EXPECT_EQ(p.place(request_for(c, nullptr)).candidate, 1);
}

TEST(DynamicPolicy, Place_NearTie_KeepsPreviousDevice) {
  DynamicPolicy p;
  std::atomic<int32_t> memo{5};  // last time: device 5
  auto c = with_finish({3, 5}, {95, 100});  // 5% better: under the 10% margin
  PlacementDecision d = p.place(request_for(c, &memo));
  EXPECT_EQ(d.candidate, 1);
  EXPECT_STREQ(d.reason, "kept previous (hysteresis)");
  EXPECT_EQ(memo.load(), 5);
}

TEST(DynamicPolicy, Place_SmallAbsoluteGain_KeepsPreviousDevice) {
  DynamicPolicy p;
  std::atomic<int32_t> memo{0};
  auto c = with_finish({0, 1}, {10, 8.5});  // 15% better but only 1.5 us
  EXPECT_EQ(p.place(request_for(c, &memo)).candidate, 0);
}

TEST(DynamicPolicy, Place_ClearWin_SwitchesAndRemembers) {
  DynamicPolicy p;
  std::atomic<int32_t> memo{5};
  auto c = with_finish({3, 5}, {60, 100});
  PlacementDecision d = p.place(request_for(c, &memo));
  EXPECT_EQ(d.candidate, 0);
  EXPECT_STREQ(d.reason, "earliest finish");
  EXPECT_EQ(memo.load(), 3);
  // Next time device 3 is the incumbent: a small gain elsewhere is not enough.
  auto next = with_finish({3, 5}, {100, 95});
  EXPECT_EQ(p.place(request_for(next, &memo)).candidate, 0);
}

TEST(DynamicPolicy, Place_PreviousDeviceNotACandidate_PicksEarliest) {
  DynamicPolicy p;
  std::atomic<int32_t> memo{7};
  auto c = with_finish({0, 1}, {20, 19});
  EXPECT_EQ(p.place(request_for(c, &memo)).candidate, 1);
  EXPECT_EQ(memo.load(), 1);
}

TEST(DynamicPolicy, Place_UncalibratedCandidate_GetsTheNodeFirst) {
  DynamicPolicy p;
  auto c = with_finish({0, 1}, {10, 1000});
  c[1].samples = DynamicPolicy::kCalibrationRuns - 1;
  std::atomic<int32_t> memo{0};
  PlacementDecision d = p.place(request_for(c, &memo));
  EXPECT_EQ(d.candidate, 1);
  EXPECT_STREQ(d.reason, "calibrating");
  EXPECT_EQ(memo.load(), 0);  // calibration does not move the node's home
  c[1].samples = DynamicPolicy::kCalibrationRuns;
  EXPECT_EQ(p.place(request_for(c, &memo)).candidate, 0);
}

TEST(DynamicPolicy, Place_OnlyCandidate_SaysSo) {
  DynamicPolicy p;
  std::atomic<int32_t> memo{-1};
  auto c = with_finish({4}, {10});
  PlacementDecision d = p.place(request_for(c, &memo));
  EXPECT_EQ(d.candidate, 0);
  EXPECT_STREQ(d.reason, "only candidate");
  EXPECT_EQ(memo.load(), 4);
}

TEST(DynamicPolicy, Place_NanEstimate_NeverWins) {
  DynamicPolicy p;
  auto c = with_finish({0, 1}, {50, 10});
  c[1].predicted_compute_us = std::nan("");
  EXPECT_EQ(p.place(request_for(c)).candidate, 0);
  // An incumbent whose estimate became NaN is abandoned.
  std::atomic<int32_t> memo{1};
  EXPECT_EQ(p.place(request_for(c, &memo)).candidate, 0);
}

TEST(DynamicPolicy, Place_NoMemo_StillEarliest) {
  DynamicPolicy p;
  auto c = with_finish({0, 1, 2}, {30, 30, 29});
  EXPECT_EQ(p.place(request_for(c)).candidate, 2);
}

TEST(DynamicPolicy, Registry_CreatesByName) {
  auto p = PolicyRegistry::builtin().create("dynamic");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->name(), "dynamic");
}

}  // namespace
}  // namespace sy

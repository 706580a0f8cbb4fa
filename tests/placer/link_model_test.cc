#include "placer/link_model.h"

#include <gtest/gtest.h>

#include <cmath>

namespace sy {
namespace {

TEST(LinkModel, NothingMeasured_LeavesThePriorToTheCaller) {
  LinkModel m;
  EXPECT_LT(m.transfer_us(0, 1, 1000), 0);
  EXPECT_DOUBLE_EQ(m.issue_us(0, 1), 0);
  m.record(0, 0, 1000, 5, 1);  // not a link
  m.record(-1, 1, 1000, 5, 1);
  m.record(0, LinkModel::kMaxSpaces, 1000, 5, 1);
  m.record(0, 1, 1000, std::nan(""), 1);
  m.record(0, 1, 1000, -1, 1);
  EXPECT_LT(m.transfer_us(0, 1, 1000), 0);
  EXPECT_LT(m.transfer_us(0, LinkModel::kMaxSpaces, 1000), 0);
}

// One size cannot tell latency from bandwidth: the prior's latency, unless
// a copy was quicker than that, and the rest is bandwidth.
TEST(LinkModel, OneSize_TakesThePriorsLatency_AtMostTheQuickestCopy) {
  LinkModel m;
  m.record(0, 1, 1'000'000, 30, 10);
  m.record(0, 1, 1'000'000, 40, 10);
  EXPECT_NEAR(m.transfer_us(0, 1, 1'000'000), 35, 1e-3);
  EXPECT_NEAR(m.transfer_us(0, 1, 3'000'000), 10 + 3 * 25, 1e-3);
  EXPECT_NEAR(m.transfer_us(0, 1, 0), 10, 1e-3);
  LinkModel quick;
  quick.record(2, 3, 1'000'000, 6, 15);  // quicker than the prior's 15 us latency
  EXPECT_NEAR(quick.transfer_us(2, 3, 0), 6, 1e-3);
  EXPECT_NEAR(quick.transfer_us(2, 3, 2'000'000), 6, 1e-3);
}

// Two sizes fit a line, whose intercept is clamped at zero.
TEST(LinkModel, SeveralSizes_FitTheirOwnLine) {
  LinkModel m;
  m.record(1, 0, 1'000'000, 25, 15);
  m.record(1, 0, 10'000'000, 205, 15);
  EXPECT_NEAR(m.transfer_us(1, 0, 4'000'000), 85, 1e-2);
  EXPECT_NEAR(m.transfer_us(1, 0, 0), 5, 1e-2);
  LinkModel steep;
  steep.record(1, 0, 1'000'000, 10, 15);
  steep.record(1, 0, 2'000'000, 30, 15);                // the line crosses zero at 500 KB
  EXPECT_NEAR(steep.transfer_us(1, 0, 0), 0.05, 1e-3);  // kMinPredictUs, not negative
  EXPECT_NEAR(steep.transfer_us(1, 0, 1'500'000), 20, 1e-2);
}

TEST(LinkModel, Issue_PerLink_BorrowingTheWayBackUntilMeasured) {
  LinkModel m;
  m.record_issue(0, 1, 90);
  EXPECT_DOUBLE_EQ(m.issue_us(0, 1), 90);
  EXPECT_DOUBLE_EQ(m.issue_us(1, 0), 90) << "not measured yet: the way back's";
  m.record_issue(1, 0, 5);
  EXPECT_DOUBLE_EQ(m.issue_us(1, 0), 5);
  m.record_issue(1, 0, 13);  // then averaged with weight 1/8
  EXPECT_DOUBLE_EQ(m.issue_us(1, 0), 6);
  EXPECT_DOUBLE_EQ(m.issue_us(0, 1), 90);
  m.record_issue(1, 0, INFINITY);
  m.record_issue(1, 0, -2);
  EXPECT_DOUBLE_EQ(m.issue_us(1, 0), 6);
  EXPECT_DOUBLE_EQ(m.issue_us(2, 3), 0);
}

}  // namespace
}  // namespace sy

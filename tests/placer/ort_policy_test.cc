#include "placer/ort_policy.h"

#include <gtest/gtest.h>

#include "placer/policy_registry.h"
#include "tests/placer/policy_test_util.h"

namespace sy {
namespace {

using testing::candidates_on;
using testing::request_for;

TEST(OrtPolicy, Place_PicksFirstCandidate_WhateverTheCosts) {
  OrtPolicy p;
  auto c = candidates_on({1, 2});
  c[0].predicted_compute_us = 1000;
  c[1].predicted_compute_us = 1;
  EXPECT_EQ(p.place(request_for(c)).candidate, 0);
  EXPECT_FALSE(p.uses_costs());
}

TEST(OrtPolicy, Place_DecidedOnce_ReplaysMemo) {
  OrtPolicy p;
  std::atomic<int32_t> memo{-1};
  auto first = candidates_on({2, 3});
  EXPECT_EQ(p.place(request_for(first, &memo)).candidate, 0);
  EXPECT_EQ(memo.load(), 2);  // the device index, not the candidate index
  auto reordered = candidates_on({3, 2});
  EXPECT_EQ(p.place(request_for(reordered, &memo)).candidate, 1);
}

TEST(OrtPolicy, Place_AcceleratorBeforeCpu_WhateverTheDeviceOrder) {
  // --devices cpu,cuda:0: ONNX Runtime would still try its CUDA provider
  // first and keep the CPU as the fallback.
  OrtPolicy p;
  auto c = candidates_on({0, 1});
  c[1].device = DeviceId{DeviceKind::kCuda, 0};
  c[1].space = MemorySpace{DeviceKind::kCuda, 0};
  std::atomic<int32_t> memo{-1};
  EXPECT_EQ(p.place(request_for(c, &memo)).candidate, 1);
  EXPECT_EQ(memo.load(), 1);
}

TEST(OrtPolicy, Registry_CreatesByName) {
  auto p = PolicyRegistry::builtin().create("ort");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->name(), "ort");
}

}  // namespace
}  // namespace sy

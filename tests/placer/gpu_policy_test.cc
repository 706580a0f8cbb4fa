#include "placer/gpu_policy.h"

#include <gtest/gtest.h>

#include "placer/policy_registry.h"
#include "tests/placer/policy_test_util.h"

namespace sy {
namespace {

using testing::candidates_on;
using testing::request_for;

std::vector<Candidate> cpu_then_gpus(int gpus) {
  auto c = candidates_on({0});
  for (int g = 0; g < gpus; ++g) {
    Candidate x = c[0];
    x.device = DeviceId{DeviceKind::kCuda, static_cast<int16_t>(g)};
    x.space = MemorySpace{DeviceKind::kCuda, static_cast<int16_t>(g)};
    x.device_index = g + 1;
    c.push_back(x);
  }
  return c;
}

TEST(GpuPolicy, Place_FirstGpu_EvenWhenCpuIsListedFirstAndFaster) {
  GpuPolicy p;
  auto c = cpu_then_gpus(2);
  c[0].predicted_compute_us = 1;
  c[1].predicted_compute_us = 1000;
  PlacementDecision d = p.place(request_for(c));
  EXPECT_EQ(d.candidate, 1);
  EXPECT_STREQ(d.reason, "first accelerator");
  EXPECT_FALSE(p.uses_costs());
}

TEST(GpuPolicy, Place_FallsBackToCpu_WhenNoGpuHasAKernel) {
  GpuPolicy p;
  auto c = candidates_on({0, 1});
  PlacementDecision d = p.place(request_for(c));
  EXPECT_EQ(d.candidate, 0);
  EXPECT_STREQ(d.reason, "no accelerator kernel");
}

TEST(GpuPolicy, Registry_CreatesByName) {
  auto p = PolicyRegistry::builtin().create("gpu");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->name(), "gpu");
}

}  // namespace
}  // namespace sy

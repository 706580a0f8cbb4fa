// The fiber runner under the emulated CUDA kernels (emu_fibers.h): every
// thread runs once, barriers order what the threads write and read as on a
// GPU, and a barrier some threads never reach is reported, not a hang.
#include "tests/devices/cuda/emulated/emu_fibers.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace sy::emu {
namespace {

TEST(EmuFibers, RunsEveryIndexOnce_AndKnowsWhichIsRunning) {
  std::vector<int> runs(300, 0);
  run_fibers(300, [&](unsigned t) {
    EXPECT_EQ(current_fiber(), t);
    ++runs[t];
  });
  EXPECT_EQ(runs, std::vector<int>(300, 1));
}

TEST(EmuFibers, Barrier_LetsEveryThreadSeeWhatAllWroteBeforeIt) {
  constexpr unsigned kThreads = 96;
  std::vector<int> slot(kThreads, -1);
  std::vector<int> seen(kThreads, 0), seen_again(kThreads, 0);
  FiberBarrier bar(kThreads);
  run_fibers(kThreads, [&](unsigned t) {
    slot[t] = static_cast<int>(t);
    bar.arrive_and_wait();
    seen[t] = std::accumulate(slot.begin(), slot.end(), 0);
    bar.arrive_and_wait();  // a second round on the same barrier
    slot[t] = 1;
    bar.arrive_and_wait();
    seen_again[t] = std::accumulate(slot.begin(), slot.end(), 0);
    EXPECT_EQ(current_fiber(), t);  // still itself after being switched out
  });
  EXPECT_EQ(seen, std::vector<int>(kThreads, kThreads * (kThreads - 1) / 2));
  EXPECT_EQ(seen_again, std::vector<int>(kThreads, kThreads));
}

TEST(EmuFibers, Reverse_RunsFromTheLastIndexDown) {
  std::vector<unsigned> order;
  run_fibers(5, [&](unsigned t) { order.push_back(t); });
  EXPECT_EQ(order, (std::vector<unsigned>{0, 1, 2, 3, 4}));
  order.clear();
  run_fibers(5, [&](unsigned t) { order.push_back(t); }, /*reverse=*/true);
  EXPECT_EQ(order, (std::vector<unsigned>{4, 3, 2, 1, 0}));
}

// A block that forgot its barrier between writing shared memory and
// reading a neighbour's slot: whichever neighbour it reads, one of the two
// orders gives it stale values, which is why emu_cuda.h runs every other
// block in reverse.
TEST(EmuFibers, MissingBarrier_ShowsInOneOrderForEitherNeighbour) {
  for (int step : {1, -1}) {
    int stale_in[2] = {0, 0};
    for (bool reverse : {false, true}) {
      std::vector<int> slot(8, 0);
      run_fibers(
          8,
          [&](unsigned t) {
            slot[t] = 1;
            const int n = static_cast<int>(t) + step;
            if (n >= 0 && n < 8 && slot[static_cast<size_t>(n)] == 0) ++stale_in[reverse];
          },
          reverse);
    }
    EXPECT_EQ(stale_in[step == 1 ? 0 : 1], 7) << "step " << step;
    EXPECT_EQ(stale_in[step == 1 ? 1 : 0], 0) << "step " << step;
  }
}

// Warp-sized barriers inside a block, as the shuffles use them.
TEST(EmuFibers, SeveralBarriers_EachForItsOwnGroup) {
  FiberBarrier warp0(32), warp1(8);
  std::vector<int> order;
  run_fibers(40, [&](unsigned t) {
    FiberBarrier& mine = t < 32 ? warp0 : warp1;
    mine.arrive_and_wait();
    order.push_back(static_cast<int>(t));
  });
  EXPECT_EQ(order.size(), 40u);
}

TEST(EmuFibersDeathTest, BarrierNotReachedByEveryThread_AbortsWithAMessage) {
  EXPECT_DEATH(
      {
        FiberBarrier bar(4);
        run_fibers(4, [&](unsigned t) {
          if (t != 0) bar.arrive_and_wait();
        });
      },
      "never reach");
}

}  // namespace
}  // namespace sy::emu

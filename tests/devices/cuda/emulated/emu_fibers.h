// The CUDA threads of one emulated block, run as fibers (ucontext) on the
// calling thread: each runs until it waits at a barrier or ends, then the
// next one runs. An OS thread a CUDA thread did the same job at a thousand
// times the cost: creating and joining 256 threads a block and a futex
// wake-up per thread at every barrier made the emulated tests spend 85% of
// their time in the kernel (86 s for the node-case sweeps, 99 s of it
// system time on 2 cores).
//
// Under AddressSanitizer the switches are announced to it, so it follows
// the fibers' stacks. ThreadSanitizer is not supported (no emulated test
// runs under it).
#pragma once

#include <cstdint>
#include <functional>

namespace sy::emu {

// A barrier for `expected` fibers of the running block: each waits in
// arrive_and_wait() until all have arrived, as std::barrier's threads do.
class FiberBarrier {
 public:
  explicit FiberBarrier(unsigned expected) : expected_(expected) {}
  FiberBarrier(const FiberBarrier&) = delete;
  FiberBarrier& operator=(const FiberBarrier&) = delete;

  // Only from inside run_fibers()'s body.
  void arrive_and_wait();

 private:
  friend class FiberBlock;
  unsigned expected_;
  unsigned arrived_ = 0;
  uint64_t generation_ = 0;  // completed rounds
};

// Runs body(t) for t in [0, count) as fibers of this thread, and returns
// when all have returned. They take turns in index order, or from the last
// index down when `reverse`: a missing barrier then shows whichever way the
// threads' reads and writes cross (emu_cuda.h alternates by block). Fibers
// that wait at a barrier no other fiber can complete (a barrier inside a
// branch some threads skip, a hang on a GPU) abort the process with a
// message rather than hang.
void run_fibers(unsigned count, const std::function<void(unsigned)>& body, bool reverse = false);

// The index of the fiber running, inside run_fibers()'s body.
unsigned current_fiber();

}  // namespace sy::emu

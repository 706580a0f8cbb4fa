// Clock: where the run loop gets time. Real runs use the steady clock and
// devices report completions themselves. Under simulation the clock is
// virtual, and it is the clock that delivers completions, in virtual-time
// order, when the loop asks. The loop never sleeps on its own.
#pragma once

#include <chrono>
#include <cstdint>

namespace sy {

class Clock {
 public:
  virtual ~Clock() = default;
  // Thread-safe.
  virtual int64_t now_ns() const = 0;
  // Virtual clocks: hands the completions due by now to their sinks (on
  // this thread), or, if `wait` and none is due, moves time to the next
  // completion and hands over everything due then. Returns whether any was
  // delivered. Real clocks deliver nothing: their devices do. Loop thread
  // only.
  virtual bool deliver(bool wait) const {
    (void)wait;
    return false;
  }
};

class SteadyClock final : public Clock {
 public:
  int64_t now_ns() const override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  static SteadyClock& instance() {
    static SteadyClock c;
    return c;
  }
};

}  // namespace sy

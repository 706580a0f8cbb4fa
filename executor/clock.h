// Clock: where the run loop gets time. Real runs use the steady clock; the
// simulator (later) supplies virtual time. The loop never sleeps on its own.
#pragma once

#include <chrono>
#include <cstdint>

namespace sy {

class Clock {
 public:
  virtual ~Clock() = default;
  // Thread-safe.
  virtual int64_t now_ns() const = 0;
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

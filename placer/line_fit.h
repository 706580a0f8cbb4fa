// The small fitting pieces CostModel and LinkModel share: a least-squares
// line over running centred sums, its coefficients published for lock-free
// readers, a spin lock for the few updates that need one, and the average
// that issue times follow.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace sy {

// Floor of any regression-based prediction: a fitted line may cross zero
// for small work, but no kernel launch or copy is free.
inline constexpr double kMinPredictUs = 0.05;

// Test-and-test-and-set lock for the few fields record() cannot update with
// single atomics. Critical sections are a handful of flops.
class SpinLock {
 public:
  void lock() {
    while (flag_.exchange(true, std::memory_order_acquire))
      while (flag_.load(std::memory_order_relaxed)) {
      }
  }
  void unlock() { flag_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> flag_{false};
};

// Least-squares fit of time = a + b * work from running centred sums
// (Welford/Chan). Centring keeps it exact when work spans ten decades, where
// raw sums of work^2 would cancel catastrophically.
struct LineFit {
  double n = 0, mean_x = 0, mean_y = 0, m2x = 0, cxy = 0;
  double min_x = 0, max_x = 0;

  void add(double x, double y) {
    min_x = n == 0 ? x : std::min(min_x, x);
    max_x = n == 0 ? x : std::max(max_x, x);
    n += 1;
    double dx = x - mean_x;
    mean_x += dx / n;
    mean_y += (y - mean_y) / n;
    m2x += dx * (x - mean_x);
    cxy += dx * (y - mean_y);
  }
  bool finite() const {
    return std::isfinite(n) && std::isfinite(mean_x) && std::isfinite(mean_y) && std::isfinite(m2x) &&
           std::isfinite(cxy) && std::isfinite(min_x) && std::isfinite(max_x);
  }
  // Merges another fit; a result that overflowed (absurd figures from a
  // profile) is dropped and this fit kept.
  void merge(const LineFit& o) {
    if (o.n <= 0) return;
    if (n <= 0) {
      if (o.finite()) *this = o;
      return;
    }
    LineFit before = *this;
    double total = n + o.n, dx = o.mean_x - mean_x, dy = o.mean_y - mean_y;
    m2x += o.m2x + dx * dx * n * o.n / total;
    cxy += o.cxy + dx * dy * n * o.n / total;
    mean_x += dx * o.n / total;
    mean_y += dy * o.n / total;
    min_x = std::min(min_x, o.min_x);
    max_x = std::max(max_x, o.max_x);
    n = total;
    if (!finite()) *this = before;
  }
  bool has_fit() const { return n >= 2 && max_x > min_x && m2x > 0; }
  // The slope is clamped at zero: more work never makes a kernel faster, and
  // a negative slope fitted from noise would predict nonsense far away.
  void coefficients(double* a, double* b) const {
    double slope = cxy / m2x;
    if (!(slope > 0) || !std::isfinite(slope)) slope = 0;
    *b = slope;
    *a = mean_y - slope * mean_x;
  }
};

// The fitted (a, b) packed as two floats in one word, so that lock-free
// readers never see a torn pair. NaN in `a` means "no fit yet".
class PublishedLine {
 public:
  void publish(const LineFit& f) {
    if (!f.has_fit()) return;
    double a, b;
    f.coefficients(&a, &b);
    publish(a, b);
  }
  void publish(double a, double b) {
    float pa = static_cast<float>(a), pb = static_cast<float>(b);
    uint32_t ua, ub;
    std::memcpy(&ua, &pa, 4);
    std::memcpy(&ub, &pb, 4);
    bits_.store((static_cast<uint64_t>(ua) << 32) | ub, std::memory_order_release);
  }
  bool read(double* a, double* b) const {
    uint64_t v = bits_.load(std::memory_order_acquire);
    uint32_t ua = static_cast<uint32_t>(v >> 32), ub = static_cast<uint32_t>(v);
    float pa, pb;
    std::memcpy(&pa, &ua, 4);
    std::memcpy(&pb, &ub, 4);
    if (std::isnan(pa)) return false;
    *a = pa;
    *b = pb;
    return true;
  }
  static double at(double a, double b, double work) { return std::max(a + b * work, kMinPredictUs); }

 private:
  static constexpr uint64_t kNone = 0x7fc0000000000000ull;  // a = quiet NaN
  std::atomic<uint64_t> bits_{kNone};
};

// An average of recent measurements of a host time (issuing a kernel or a
// copy): the first sample as is, then each with weight 1/8, which smooths
// out a preempted thread or a cold allocation while still following a real
// change within a few dozen samples. Races between runs lose a sample at
// worst.
inline void follow_average(std::atomic<double>& avg, double measured) {
  constexpr double kWeight = 0.125;
  const double old = avg.load(std::memory_order_relaxed);
  avg.store(old < 0 ? measured : old + kWeight * (measured - old), std::memory_order_relaxed);
}

}  // namespace sy

// TraceWriter: records kernels and copies as a Chrome / Perfetto trace
// (chrome://tracing, ui.perfetto.dev). Each device gets a compute lane and
// a separate copy lane; every kernel event carries its node, op, and
// predicted against actual time. Thread-safe: one writer may observe
// several concurrent runs.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "executor/run_observer.h"

namespace sy {

class TraceWriter final : public RunObserver {
 public:
  // `device_names` in session order, e.g. {"cpu:0", "cpu:1"}.
  explicit TraceWriter(std::vector<std::string> device_names);

  void on_kernel(const KernelEvent& e) override;
  void on_copy(const CopyEvent& e) override;

  // Writes {"traceEvents": [...]} to `path`.
  Status write(const std::string& path) const;
  nlohmann::json to_json() const;
  size_t num_kernels() const;
  size_t num_copies() const;

 private:
  double rel_us(int64_t ns);  // relative to the first event; needs mu_

  std::vector<std::string> devices_;
  mutable std::mutex mu_;
  int64_t origin_ns_ = -1;
  std::vector<nlohmann::json> events_;
  size_t kernels_ = 0, copies_ = 0;
};

// Forwards every event to several observers (e.g. a trace and a decision log).
class ObserverList final : public RunObserver {
 public:
  void add(RunObserver* o) { observers_.push_back(o); }
  bool empty() const { return observers_.empty(); }
  void on_decision(const PlacementRequest& r, const PlacementDecision& d) override {
    for (auto* o : observers_) o->on_decision(r, d);
  }
  void on_kernel(const KernelEvent& e) override {
    for (auto* o : observers_) o->on_kernel(e);
  }
  void on_copy(const CopyEvent& e) override {
    for (auto* o : observers_) o->on_copy(e);
  }

 private:
  std::vector<RunObserver*> observers_;
};

}  // namespace sy

#pragma once

#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "executor/run_observer.h"

namespace sy {

// DecisionLog: one JSON line per placement: the node, its inputs' locations,
// every candidate's predicted compute, transfer, backlog and finish time,
// the choice and the policy's reason. Thread-safe.
class DecisionLog final : public RunObserver {
 public:
  DecisionLog(std::vector<std::string> device_names, std::string policy);
  // Opens `path` for writing.
  Status open(const std::string& path);
  void on_decision(const PlacementRequest& request, const PlacementDecision& decision) override;
  Status close();
  size_t lines() const;

 private:
  std::vector<std::string> devices_;
  std::string policy_;
  mutable std::mutex mu_;
  std::FILE* out_ = nullptr;
  size_t lines_ = 0;
};

}  // namespace sy

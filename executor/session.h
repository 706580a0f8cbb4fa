// Session: a loaded model bound to devices and a placement policy. Plans are
// built once here; run() may be called from several threads at once.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "devices/device.h"
#include "devices/kernel_registry.h"
#include "executor/clock.h"
#include "executor/execution_plan.h"
#include "executor/run_loop.h"
#include "ir/graph.h"
#include "placer/policy_registry.h"

namespace sy {

struct SessionOptions {
  std::string policy = "single";
  PolicyOptions policy_options;
  // A caller-supplied policy instance; overrides `policy` when set.
  std::shared_ptr<PlacementPolicy> custom_policy;
  std::string devices = "cpu";  // comma-separated: cpu, cpu:0, ...
  // Values for symbolic input dimensions, checked against given inputs.
  std::map<std::string, int64_t> dims;
  const KernelRegistry* registry = nullptr;  // default: KernelRegistry::builtin()
  const Clock* clock = nullptr;              // default: steady clock
};

struct RunResult {
  std::vector<RuntimeValue> outputs;  // in graph output order, host memory
  RunStats stats;
  int64_t latency_ns = 0;
};

class Session {
 public:
  static StatusOr<std::unique_ptr<Session>> create(std::shared_ptr<const Model> model, const SessionOptions& options);
  ~Session();

  // Thread-safe. Inputs by name; graph inputs that have an initializer may be
  // omitted. Bad input (missing, wrong type or shape) is InvalidArgument.
  StatusOr<RunResult> run(const std::map<std::string, RuntimeValue>& inputs) const;
  // Thread-safe. The input checks run() starts with: every required input
  // given, no unknown names, types and shapes as declared. An error here is
  // bad input; an error from run() after it passes is a runtime fault.
  Status validate_inputs(const std::map<std::string, RuntimeValue>& inputs) const;

  const Model& model() const { return *model_; }
  const std::vector<Device*>& devices() const { return device_ptrs_; }
  const PlacementPolicy& policy() const { return *policy_; }
  // Inputs the caller must (or may, if defaulted) provide.
  std::vector<std::string> input_names() const;
  std::vector<std::string> output_names() const;

 private:
  Session() = default;
  Status check_input(const ValueInfo& info, const RuntimeValue& v, std::map<std::string, int64_t>& bound) const;

  std::shared_ptr<const Model> model_;
  SessionOptions options_;
  std::vector<std::unique_ptr<Device>> devices_;
  std::vector<Device*> device_ptrs_;
  std::shared_ptr<PlacementPolicy> policy_;
  std::unique_ptr<ExecutionPlan> plan_;
};

// Parses "cpu", "cpu:0,cpu:1" into devices.
StatusOr<std::vector<std::unique_ptr<Device>>> create_devices(const std::string& spec);

}  // namespace sy

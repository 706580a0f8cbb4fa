// Session: a loaded model bound to devices and a placement policy. Plans are
// built once here; run() may be called from several threads at once.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "devices/device.h"
#include "devices/kernel_registry.h"
#include "devices/sim/sim_machine.h"
#include "executor/clock.h"
#include "executor/execution_plan.h"
#include "executor/run_loop.h"
#include "executor/run_observer.h"
#include "ir/graph.h"
#include "placer/cost_model.h"
#include "placer/policy_registry.h"

namespace sy {

struct SessionOptions {
  std::string policy = "dynamic";
  PolicyOptions policy_options;
  // A caller-supplied policy instance; overrides `policy` when set.
  std::shared_ptr<PlacementPolicy> custom_policy;
  // Comma-separated: "cpu" (the whole host), or "cpu:0,cpu:1" (the host's
  // cores split between devices with separate memory spaces).
  std::string devices = "cpu";
  // Caller-made devices (an embedder's own backend, a test's fake
  // accelerator); overrides `devices` when set. Called once, by create().
  std::function<StatusOr<std::vector<std::unique_ptr<Device>>>()> device_factory;
  // A simulation profile (JSON, see models/profiles/README.md): when set,
  // the session runs on the simulated machine it describes, in virtual
  // time, instead of `devices`. policy_options.seed also seeds its noise.
  std::string simulate;
  // Cost profile (JSON) to load when the session is created; save_profile()
  // writes the learned model back.
  std::string profile;
  // Feed measured kernel times into the cost model even when the policy
  // does not use costs (calibration, profiling). Policies that use costs
  // always learn.
  bool learn_costs = false;
  // Values for symbolic input dimensions, checked against given inputs.
  std::map<std::string, int64_t> dims;
  const KernelRegistry* registry = nullptr;  // default: KernelRegistry::builtin()
  const Clock* clock = nullptr;              // default: steady clock (virtual when simulating)
};

struct RunOptions {
  RunObserver* observer = nullptr;  // trace / decision log; may be shared by runs
  // Wall-clock limit for the run in ms (0: none); past it the run fails with
  // DeadlineExceeded. Checked between nodes and loop iterations: a kernel
  // already running is not interrupted, so a run ends at most one kernel
  // late.
  int64_t timeout_ms = 0;
  // Set (from any thread) to stop the run, which then fails with Cancelled.
  // Checked like the timeout. May be shared by runs.
  const std::atomic<bool>* cancel = nullptr;
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
  StatusOr<RunResult> run(const std::map<std::string, RuntimeValue>& inputs, const RunOptions& run_options = {}) const;
  // Thread-safe. The input checks run() starts with: every required input
  // given, no unknown names, types and shapes as declared. An error here is
  // bad input; an error from run() after it passes is a runtime fault.
  Status validate_inputs(const std::map<std::string, RuntimeValue>& inputs) const;

  const Model& model() const { return *model_; }
  const std::vector<Device*>& devices() const { return device_ptrs_; }
  const PlacementPolicy& policy() const { return *policy_; }
  const Topology& topology() const { return topology_; }
  // The session's cost model: thread-safe, shared by runs.
  CostModel& cost_model() const { return *cost_; }
  // Writes the cost model to `path` (default: SessionOptions::profile).
  Status save_profile(const std::string& path = "") const;
  // The simulated machine, or null for a real run.
  const SimMachine* simulator() const { return sim_.get(); }
  // Inputs the caller must (or may, if defaulted) provide.
  std::vector<std::string> input_names() const;
  std::vector<std::string> output_names() const;

 private:
  Session() = default;
  Status check_input(const ValueInfo& info, const RuntimeValue& v, std::map<std::string, int64_t>& bound) const;
  class View;
  void build_copy_engines();
  Status create_simulated();
  void apply_simulated_costs();
  // Copies a tensor from any space to the host, on the right copy engine.
  StatusOr<Tensor> host_copy(const Tensor& t) const;

  std::shared_ptr<const Model> model_;
  SessionOptions options_;
  std::vector<std::unique_ptr<Device>> devices_;
  std::vector<Device*> device_ptrs_;
  std::shared_ptr<PlacementPolicy> policy_;
  std::unique_ptr<ExecutionPlan> plan_;
  Topology topology_;
  std::unique_ptr<CostModel> cost_;
  std::unique_ptr<std::atomic<int64_t>[]> backlog_ns_;  // per device, shared by runs
  std::vector<int> copy_engine_;                         // [from * spaces + to]
  // Simulation: the machine and its virtual clock. One virtual timeline, so
  // runs take turns.
  std::unique_ptr<SimMachine> sim_;
  std::unique_ptr<Clock> sim_clock_;
  mutable std::mutex sim_mu_;
};

// The items of a device list ("cpu", "cpu:0, cpu:1"), trimmed, empty ones
// dropped.
std::vector<std::string> device_list_items(const std::string& spec);

// Parses "cpu", "cpu:0,cpu:1", "cpu,cuda:0" into devices. Several CPU
// devices split the host's cores between them and each get a worker queue;
// a CPU beside GPUs gets a worker too and, on hosts of more than 2 cores,
// leaves one core to the run loop (SWITCHYARD_CPU_BESIDE_GPU: spare-core,
// all-cores or inline).
StatusOr<std::vector<std::unique_ptr<Device>>> create_devices(const std::string& spec);

}  // namespace sy

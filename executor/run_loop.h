// RunLoop: the event-driven state machine that executes one run. Nodes move
// waiting -> ready -> placed -> staging -> running -> done. A ready node is
// placed by the policy; inputs missing from the chosen device's memory are
// copied on a device copy queue (once per value and space); the kernel is
// enqueued when its copies land; its completion (an event from the device)
// releases its inputs and readies its successors. A kernel whose output
// size only the device knows completes twice (KernelContext::resume_after):
// the first completion re-issues it, with the sizes now on the host, so the
// loop never waits for a device. Control-flow nodes open child frames in
// this same loop.
//
// One RunLoop serves one run on one thread; concurrent runs use separate
// loops over the same plan, devices, policy and cost model.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "devices/topology.h"
#include "executor/clock.h"
#include "executor/frame.h"
#include "executor/run_observer.h"
#include "placer/cost_model.h"
#include "placer/placement_policy.h"

namespace sy {

struct RunStats {
  // Indexed like the session's devices.
  std::vector<int64_t> nodes_per_device;
  std::vector<int64_t> busy_ns_per_device;  // summed kernel time
  // The most memory each device held when one of its kernels completed:
  // the kernel's inputs and outputs, and every value still to be read.
  std::vector<uint64_t> peak_bytes_per_device;
  int64_t copies = 0;                       // values copied between spaces
  int64_t bytes_copied = 0;
  int64_t control_nodes = 0;
  int64_t loop_iterations = 0;
  int64_t handoffs = 0;  // long tasks handed to a device thread to overlap
  int64_t cpu_fallbacks = 0;  // nodes an accelerator kernel declined at run time
};

// What a run needs from its session. Everything is shared by concurrent runs.
struct RunEnv {
  const std::vector<Device*>* devices = nullptr;
  PlacementPolicy* policy = nullptr;
  const Clock* clock = nullptr;
  const Topology* topology = nullptr;  // spaces of the devices, plus the host
  CostModel* cost = nullptr;           // may be null
  bool predict = false;                // fill candidates' predicted costs
  bool learn = false;                  // feed measured kernel times back
  std::atomic<int64_t>* backlog_ns = nullptr;  // per device: predicted queued work
  const std::vector<int>* copy_engine = nullptr;  // [from * spaces + to]: device index
  RunObserver* observer = nullptr;
  // Stop requests (see RunOptions): a steady-clock deadline (0: none) and a
  // flag another thread may set.
  int64_t deadline_ns = 0;
  int64_t timeout_ms = 0;  // for the message
  const std::atomic<bool>* cancel = nullptr;
};

class RunLoop final : public CompletionSink {
 public:
  explicit RunLoop(const RunEnv& env);

  // Runs `root` (already reset and bound to inputs) to completion.
  Status run(Frame& root);
  const RunStats& stats() const { return stats_; }

  // CompletionSink: called by devices when a task finishes.
  void on_complete(DeviceTask* task) override;

  // --- used by control-flow handlers ---------------------------------------
  // Starts a (reset, bound) frame: queues its initial ready nodes.
  void start_frame(Frame& frame);
  // Marks node `n` of `frame` done: frees dead values, readies successors.
  void finish_node(Frame& frame, NodeId n);
  // A host copy of `t` (a control-flow scalar), made by the device that
  // owns the link from t's space: synchronous, which costs one small copy
  // per If/Loop decision and keeps the decision exact.
  StatusOr<Tensor> copy_to_host(const Tensor& t);
  void count_iteration() { ++stats_.loop_iterations; }

 private:
  struct Ready {
    Frame* frame;
    NodeId node;  // kFrameDone: the frame has finished all its nodes
  };
  static constexpr NodeId kFrameDone = -1;

  Status dispatch(Frame& frame, NodeId n);
  void start_on(Frame& frame, NodeId n, size_t candidate, bool costs);
  bool fall_back_to_cpu(NodeTask& task);
  std::optional<size_t> first_cpu_candidate(const NodePlan& np) const;
  uint64_t input_signature() const;
  void run_on_cpu(Frame& frame, NodeId n, const char* why);
  void describe_inputs(Frame& frame, const Node& node);
  void predict(Frame& frame, NodeId n);
  void stage(Frame& frame, NodeId n, NodeTask& task);
  void launch(NodeTask& task);
  // Bit i: input i of `task` may be given up to its kernel this run.
  uint64_t donated_inputs(const NodeTask& task) const;
  // Hands `task` to its device, timing the hand-over when learning.
  void issue(LoopTask& task);
  // Learns the host time issuing `task` took from its timestamps.
  void record_issue(const LoopTask& task, bool copy);
  // What running node in space `to` costs its consumers
  // (Candidate::output_transfer_us): copies to where they ran last, the
  // host for a main-graph output, and the lookahead to where they run
  // fastest.
  double output_transfer_us(const Frame& frame, const Node& node, int to);
  // Enqueues the held-back tasks, on their devices' workers to run at once
  // if `overlap`, inline otherwise (see launch()).
  void flush_deferred(bool overlap);
  // Below this, a hand-off to a device thread costs more than it can save.
  static constexpr int64_t kOverlapAboveNs = 100'000;
  // Beside a working accelerator, this thread's time is the accelerator's
  // feed: a CPU kernel longer than this goes to its device's worker. A
  // hand-off costs the enqueuing thread about 2 us and its round trip 6.4
  // (bench/cpu_handoff_bench, 2-core VM).
  static constexpr int64_t kHandOffBesideAcceleratorNs = 10'000;
  static constexpr int64_t kSpinNs = 50'000;  // before blocking for a completion
  Status kernel_done(NodeTask& task);
  // `what` (a failed node or copy), naming the device when there are several.
  std::string on_device(std::string what, int device_index) const;
  Status copy_done(CopyTask& copy);
  Status frame_done(Frame& frame);
  Status drain_completions();
  Status wait_for_completion();
  // DeadlineExceeded or Cancelled once the run has been asked to stop.
  Status check_stop();

  RunEnv env_;
  const std::vector<Device*>& devices_;
  int num_spaces_ = 1;
  int host_space_ = 0;
  // Whether placements read where nodes ran and how large values were
  // (output_transfer_us()): only with predictions and several spaces.
  bool track_placement_ = false;
  std::thread::id loop_thread_;
  std::vector<Ready> ready_;              // LIFO: depth-first keeps values short-lived
  const Node* inputs_node_ = nullptr;     // node whose inputs inputs_ describes
  std::vector<InputInfo> inputs_;         // scratch for placement requests
  std::vector<const Dims*> input_dims_;   // scratch for the cost model
  std::vector<Candidate> candidates_;     // scratch: candidates with costs
  std::vector<int> input_spaces_;         // scratch: spaces the inputs are in
  std::vector<std::pair<int, double>> charged_;    // scratch for output_transfer_us(): space, us
  std::vector<const RuntimeValue*> event_values_;  // scratch: a kernel event's inputs, outputs
  double work_ = 0;                       // of the node being placed
  DeviceTask* local_done_ = nullptr;      // completions from this thread
  DeviceTask* local_tail_ = nullptr;
  std::mutex mu_;                         // guards remote_done_ only
  std::condition_variable cv_;
  DeviceTask* remote_done_ = nullptr;     // completions from device threads
  std::atomic<bool> has_remote_{false};   // remote_done_ is non-empty (spin check)
  int64_t in_flight_ = 0;
  // Per device: its work runs apart from this thread and the host (a GPU),
  // so holding this thread in a CPU kernel would starve it (launch()).
  std::vector<uint8_t> accelerator_;
  int64_t accelerator_in_flight_ = 0;     // tasks issued to accelerators, not yet drained
  std::vector<NodeTask*> deferred_;       // launched long tasks, held back (launch())
  Frame* root_ = nullptr;
  bool root_done_ = false;
  uint32_t steps_ = 0;  // loop steps, to check stop requests every few
  RunStats stats_;
};

}  // namespace sy

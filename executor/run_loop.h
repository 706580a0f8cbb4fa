// RunLoop: the event-driven state machine that executes one run. Nodes move
// waiting -> ready -> placed -> staging -> running -> done. A ready node is
// placed by the policy, its kernel is enqueued on the chosen device, and its
// completion (an event from the device) releases its inputs and readies its
// successors. Control-flow nodes open child frames in this same loop.
//
// One RunLoop serves one run on one thread; concurrent runs use separate
// loops over the same plan, devices and policy.
#pragma once

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "executor/clock.h"
#include "executor/frame.h"
#include "placer/placement_policy.h"

namespace sy {

struct RunStats {
  std::vector<int64_t> nodes_per_device;  // indexed like the session's devices
  int64_t control_nodes = 0;
  int64_t loop_iterations = 0;
};

class RunLoop final : public CompletionSink {
 public:
  RunLoop(const std::vector<Device*>& devices, PlacementPolicy& policy, const Clock& clock);

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
  Device& host_device() { return *devices_[0]; }
  void count_iteration() { ++stats_.loop_iterations; }

 private:
  struct Ready {
    Frame* frame;
    NodeId node;  // kFrameDone: the frame has finished all its nodes
  };
  static constexpr NodeId kFrameDone = -1;

  Status dispatch(Frame& frame, NodeId n);
  Status frame_done(Frame& frame);
  Status drain_completions();
  Status wait_for_completion();

  const std::vector<Device*>& devices_;
  PlacementPolicy& policy_;
  const Clock& clock_;
  std::thread::id loop_thread_;
  std::vector<Ready> ready_;             // LIFO: depth-first keeps values short-lived
  std::vector<MemorySpace> locations_;   // scratch for placement requests
  DeviceTask* local_done_ = nullptr;     // completions from this thread
  DeviceTask* local_tail_ = nullptr;
  std::mutex mu_;                        // guards remote_done_ only
  std::condition_variable cv_;
  DeviceTask* remote_done_ = nullptr;    // completions from device threads
  int64_t in_flight_ = 0;
  Frame* root_ = nullptr;
  bool root_done_ = false;
  RunStats stats_;
};

}  // namespace sy

#include "executor/run_loop.h"

#include "executor/control_flow.h"

namespace sy {

RunLoop::RunLoop(const std::vector<Device*>& devices, PlacementPolicy& policy, const Clock& clock)
    : devices_(devices), policy_(policy), clock_(clock) {
  stats_.nodes_per_device.assign(devices.size(), 0);
  ready_.reserve(64);
}

void RunLoop::on_complete(DeviceTask* task) {
  task->next_completed = nullptr;
  if (std::this_thread::get_id() == loop_thread_) {
    // Inline device: same thread, no lock.
    if (local_tail_) local_tail_->next_completed = task;
    else local_done_ = task;
    local_tail_ = task;
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    task->next_completed = remote_done_;
    remote_done_ = task;
  }
  cv_.notify_one();
}

void RunLoop::start_frame(Frame& frame) {
  const auto& initial = frame.plan().initial_ready();
  if (initial.empty() && frame.remaining() == 0) {
    ready_.push_back({&frame, kFrameDone});
    return;
  }
  // Pushed in reverse so the LIFO pops them in graph order.
  for (size_t i = initial.size(); i-- > 0;) ready_.push_back({&frame, initial[i]});
}

void RunLoop::finish_node(Frame& frame, NodeId n) {
  const NodePlan& np = frame.plan().node(n);
  const Node& node = frame.graph().node(n);
  const auto& uses = frame.uses();
  const auto& pinned = frame.plan().pinned();
  for (ValueId v : node.outputs)
    if (v != kNoValue && uses[v] == 0 && !pinned[v]) frame.value(v).reset();  // produced but never read
  for (ValueId v : np.releases) frame.release(v);
  auto& pending = frame.pending();
  for (size_t i = np.successors.size(); i-- > 0;) {
    NodeId s = np.successors[i];
    if (--pending[s] == 0) ready_.push_back({&frame, s});
  }
  if (--frame.remaining() == 0) ready_.push_back({&frame, kFrameDone});
}

Status RunLoop::dispatch(Frame& frame, NodeId n) {
  const NodePlan& np = frame.plan().node(n);
  if (np.kind != NodeKind::kKernel) {
    ++stats_.control_nodes;
    return ControlFlow::start(*this, frame, n);
  }
  const Node& node = frame.graph().node(n);
  locations_.resize(node.inputs.size());
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const ValueId v = node.inputs[i];
    const RuntimeValue* rv = v == kNoValue ? nullptr : &frame.value(v);
    locations_[i] = rv && rv->is_tensor() ? rv->tensor().space() : kHostSpace;
  }
  PlacementRequest req;
  req.graph = &frame.graph();
  req.node = &node;
  req.depth = frame.graph().depth();
  req.input_locations = locations_;
  req.candidates = np.candidates;
  const PlacementDecision d = policy_.place(req);
  if (d.candidate < 0 || static_cast<size_t>(d.candidate) >= np.candidates.size())
    return Internal("placement policy '", policy_.name(), "' chose candidate ", d.candidate, " of ",
                    np.candidates.size(), " for ", node.describe());
  const int dev = np.candidates[static_cast<size_t>(d.candidate)].device_index;
  Device& device = *devices_[static_cast<size_t>(dev)];
  // Staging: every input must be readable from the chosen device's memory.
  // With host-accessible devices only (this build) nothing moves.
  for (const MemorySpace& s : locations_) {
    if (!s.is_host_accessible() && !(s == device.memory_space()))
      return Unimplemented(node.describe(), ": input in ", s.to_string(), " is not reachable from ",
                           device.id().to_string());
  }
  NodeTask& task = frame.task(n);
  task.device_index = dev;
  task.kernel = np.kernels[static_cast<size_t>(dev)].get();
  ++stats_.nodes_per_device[static_cast<size_t>(dev)];
  ++in_flight_;
  device.enqueue(&task, this);
  return OkStatus();
}

Status RunLoop::frame_done(Frame& frame) {
  if (&frame == root_) {
    root_done_ = true;
    return OkStatus();
  }
  return ControlFlow::child_done(*this, *frame.parent(), frame.parent_node(), frame);
}

Status RunLoop::drain_completions() {
  while (local_done_) {
    DeviceTask* t = local_done_;
    local_done_ = t->next_completed;
    if (!local_done_) local_tail_ = nullptr;
    --in_flight_;
    auto* task = static_cast<NodeTask*>(t);
    if (!task->status.ok()) {
      const Node& node = task->frame->graph().node(task->node);
      return task->status.with_context(node.describe());
    }
    finish_node(*task->frame, task->node);
  }
  return OkStatus();
}

Status RunLoop::wait_for_completion() {
  DeviceTask* list;
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return remote_done_ != nullptr; });
    list = remote_done_;
    remote_done_ = nullptr;
  }
  while (list) {
    DeviceTask* next = list->next_completed;
    list->next_completed = nullptr;
    if (local_tail_) local_tail_->next_completed = list;
    else local_done_ = list;
    local_tail_ = list;
    list = next;
  }
  return drain_completions();
}

Status RunLoop::run(Frame& root) {
  loop_thread_ = std::this_thread::get_id();
  root_ = &root;
  root_done_ = false;
  start_frame(root);
  Status status;
  while (!root_done_) {
    if (!ready_.empty()) {
      Ready r = ready_.back();
      ready_.pop_back();
      status = r.node == kFrameDone ? frame_done(*r.frame) : dispatch(*r.frame, r.node);
      if (status.ok()) status = drain_completions();
    } else if (in_flight_ > 0) {
      status = wait_for_completion();
    } else {
      status = Internal("run loop stalled: no ready node and nothing in flight (graph '", root.graph().name(), "')");
    }
    if (!status.ok()) break;
  }
  // On error, let in-flight work finish before frames are destroyed.
  for (DeviceTask* t = local_done_; t; t = t->next_completed) --in_flight_;
  local_done_ = local_tail_ = nullptr;
  while (!status.ok() && in_flight_ > 0) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return remote_done_ != nullptr; });
    for (DeviceTask* t = remote_done_; t; t = t->next_completed) --in_flight_;
    remote_done_ = nullptr;
  }
  return status;
}

}  // namespace sy

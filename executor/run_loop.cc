#include "executor/run_loop.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "executor/control_flow.h"

namespace sy {
namespace {
bool contains(const std::vector<int>& spaces, int space) {
  return std::find(spaces.begin(), spaces.end(), space) != spaces.end();
}
}  // namespace

RunLoop::RunLoop(const RunEnv& env) : env_(env), devices_(*env.devices) {
  stats_.nodes_per_device.assign(devices_.size(), 0);
  stats_.busy_ns_per_device.assign(devices_.size(), 0);
  stats_.peak_bytes_per_device.assign(devices_.size(), 0);
  if (env_.topology) {
    num_spaces_ = static_cast<int>(env_.topology->num_spaces());
    host_space_ = env_.topology->index_of(kHostSpace);
  }
  track_placement_ = env_.predict && num_spaces_ > 1;
  accelerator_.resize(devices_.size());
  for (size_t d = 0; d < devices_.size(); ++d)
    accelerator_[d] = !devices_[d]->runs_inline() && !devices_[d]->memory_space().is_host_accessible();
  ready_.reserve(64);
}

StatusOr<Tensor> RunLoop::copy_to_host(const Tensor& t) {
  const int from = env_.topology ? env_.topology->index_of(t.space()) : -1;
  int dev = 0;
  if (from >= 0 && env_.copy_engine) dev = (*env_.copy_engine)[static_cast<size_t>(from) * num_spaces_ + host_space_];
  StatusOr<Tensor> r = devices_[static_cast<size_t>(dev)]->copy(t, kHostSpace);
  if (!r.ok()) return r.status().with_context(on_device("copying a value to the host", dev));
  return r;
}

void RunLoop::on_complete(DeviceTask* task) {
  task->next_completed = nullptr;
  if (std::this_thread::get_id() == loop_thread_) {
    // Inline completion: same thread, no lock.
    if (local_tail_) local_tail_->next_completed = task;
    else local_done_ = task;
    local_tail_ = task;
    return;
  }
  // Notify under the lock: once the loop thread sees the task it may finish
  // the run and destroy this RunLoop, condition variable included, so the
  // notify must not come after the unlock.
  std::lock_guard<std::mutex> lock(mu_);
  task->next_completed = remote_done_;
  remote_done_ = task;
  has_remote_.store(true, std::memory_order_release);
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
    if (v != kNoValue && uses[v] == 0 && !pinned[v]) frame.clear_value(v);  // produced but never read
  for (ValueId v : np.releases) frame.release(v);
  auto& pending = frame.pending();
  for (size_t i = np.successors.size(); i-- > 0;) {
    NodeId s = np.successors[i];
    if (--pending[s] == 0) ready_.push_back({&frame, s});
  }
  if (--frame.remaining() == 0) ready_.push_back({&frame, kFrameDone});
}

void RunLoop::describe_inputs(Frame& frame, const Node& node) {
  inputs_node_ = &node;
  inputs_.resize(node.inputs.size());
  input_dims_.resize(node.inputs.size());
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    InputInfo& in = inputs_[i];
    in = InputInfo{};
    input_dims_[i] = nullptr;
    const ValueId v = node.inputs[i];
    if (v == kNoValue) continue;
    const RuntimeValue& rv = frame.value(v);
    if (rv.is_tensor()) {
      const Tensor& t = rv.tensor();
      in.location = t.space();
      in.dtype = t.dtype();
      in.dims = &t.dims();
      in.bytes = t.nbytes();
      input_dims_[i] = in.dims;
    } else if (rv.is_sequence()) {
      in.dtype = rv.sequence()->elem;
      for (const Tensor& t : rv.sequence()->items) in.bytes += t.nbytes();
      if (!rv.sequence()->items.empty()) in.location = rv.sequence()->items[0].space();
    }
  }
}

// Fills each candidate's predicted compute, transfer and backlog.
void RunLoop::predict(Frame& frame, NodeId n) {
  const NodePlan& np = frame.plan().node(n);
  candidates_.assign(np.candidates.begin(), np.candidates.end());
  CostModel& cost = *env_.cost;
  work_ = cost.work(np.cost_slots[0], input_dims_);  // dispatch() predicts only with cost slots
  const Topology& topo = *env_.topology;
  const Node& node = *inputs_node_;
  uint64_t all_inputs = 0;  // the output is guessed to be as large
  input_spaces_.clear();
  for (const InputInfo& in : inputs_) {
    all_inputs += in.bytes;
    const int at = in.bytes ? topo.index_of(in.location) : -1;
    if (at >= 0 && !contains(input_spaces_, at)) input_spaces_.push_back(at);
  }
  for (size_t c = 0; c < candidates_.size(); ++c) {
    Candidate& cand = candidates_[c];
    cand.predicted_compute_us = cost.predict_us(np.cost_slots[c], work_);
    cand.samples = cost.samples(np.cost_slots[c], work_);
    cand.backlog_us = static_cast<double>(env_.backlog_ns[cand.device_index].load(std::memory_order_relaxed)) * 1e-3;
    cand.issue_us = cost.issue_us(cand.device_index);
    if (track_placement_) {
      const double own = cand.issue_us + cand.predicted_compute_us;
      if (std::isfinite(own))
        frame.plan().last_cost_us(n)[cand.device_index].store(static_cast<float>(own), std::memory_order_relaxed);
    }
    uint64_t missing = 0;
    if (num_spaces_ > 1) {
      const int to = topo.space_of_device(cand.device_index);
      const KernelDef* def = np.defs[static_cast<size_t>(cand.device_index)];
      const uint64_t shape_mask = def ? def->shape_only_inputs : 0;
      double transfer = 0;
      for (size_t i = 0; i < inputs_.size(); ++i) {
        const InputInfo& in = inputs_[i];
        if (in.bytes == 0 || (i < 64 && (shape_mask >> i & 1))) continue;
        const int from = topo.index_of(in.location);
        if (from == to) continue;
        ValueId v = node.inputs[i];
        Frame* of = frame.owner(&v);
        // Already there, on its way, or a constant's copy kept from an
        // earlier run (stage() will use it).
        if (!of->replica(v, to).is_none() || of->in_flight(v, to)) continue;
        if (of->plan().cached_constant(v, to, nullptr)) continue;
        const int src = from < 0 ? host_space_ : from;
        // One copy serves every reader that goes where it went: each of the
        // value's readers still to finish is charged its share. Charged in
        // full, the first reader of an input that many branches share would
        // stay where the input is, the next for the same reason, and each
        // branch would then copy its own intermediate instead.
        const double readers = std::max<int32_t>(1, of->uses()[v]);
        transfer += (cost.transfer_us(src, to, in.bytes) + cost.copy_issue_us(src, to)) / readers;
        missing += in.bytes;
      }
      cand.predicted_transfer_us = transfer;
      cand.output_transfer_us = output_transfer_us(frame, node, to);
    }
    const Device& dev = *devices_[static_cast<size_t>(cand.device_index)];
    const uint64_t capacity = dev.info().memory_bytes, used = dev.bytes_in_use();
    cand.memory_ok = capacity == 0 || (used <= capacity && capacity - used >= missing + all_inputs);
  }
}

Status RunLoop::dispatch(Frame& frame, NodeId n) {
  const NodePlan& np = frame.plan().node(n);
  if (np.kind != NodeKind::kKernel) {
    ++stats_.control_nodes;
    return ControlFlow::start(*this, frame, n);
  }
  const Node& node = frame.graph().node(n);
  describe_inputs(frame, node);
  if (const uint64_t declined = frame.plan().declined(n)->load(std::memory_order_relaxed);
      declined != 0 && declined == input_signature() && first_cpu_candidate(np)) {
    run_on_cpu(frame, n, "accelerator kernel declined these shapes before; CPU");
    return OkStatus();
  }
  PlacementRequest req;
  req.graph = &frame.graph();
  req.node = &node;
  req.depth = frame.graph().depth();
  req.inputs = inputs_;
  req.memo = frame.plan().memo(n);
  // A lone candidate needs no prediction: there is nothing to choose.
  const bool costs = env_.predict && np.candidates.size() > 1 && !np.cost_slots.empty();
  if (costs) {
    predict(frame, n);
    req.candidates = candidates_;
  } else {
    req.candidates = np.candidates;
  }
  const PlacementDecision d = env_.policy->place(req);
  if (d.candidate < 0 || static_cast<size_t>(d.candidate) >= np.candidates.size())
    return Internal("placement policy '", env_.policy->name(), "' chose candidate ", d.candidate, " of ",
                    np.candidates.size(), " for ", node.describe());
  if (env_.observer) env_.observer->on_decision(req, d);
  start_on(frame, n, static_cast<size_t>(d.candidate), costs);
  return OkStatus();
}

// Runs node `n` on candidate `ci`; inputs_ and input_dims_ describe it, and
// candidates_ holds its predictions if `costs`.
void RunLoop::start_on(Frame& frame, NodeId n, size_t ci, bool costs) {
  const NodePlan& np = frame.plan().node(n);
  const int dev = np.candidates[ci].device_index;
  NodeTask& task = frame.task(n);
  task.op = &frame.graph().node(n);
  task.device_index = dev;
  task.kernel = np.kernels[static_cast<size_t>(dev)].get();
  task.def = np.defs[static_cast<size_t>(dev)];
  task.cost_slot = np.cost_slots.empty() ? -1 : np.cost_slots[ci];
  task.work = costs ? work_ : 0;
  task.predicted_us = costs ? candidates_[ci].predicted_compute_us : 0;
  if (env_.learn && !costs && task.cost_slot >= 0) {
    // Static policies get no predictions, but the launch decision and the
    // backlog still use the model's estimate for the chosen device.
    task.work = env_.cost->work(task.cost_slot, input_dims_);
    task.predicted_us = env_.cost->predict_us(task.cost_slot, task.work);
  }
  ++stats_.nodes_per_device[static_cast<size_t>(dev)];
  if (track_placement_)
    frame.plan().last_space(n)->store(env_.topology->space_of_device(dev), std::memory_order_relaxed);
  task.staging = 0;
  task.resume = {};  // left over by a run that stopped between the launches
  if (num_spaces_ > 1) stage(frame, n, task);
  if (task.staging == 0) launch(task);
}

// An accelerator kernel may decline at compute what only the actual shapes
// show (a rank past its limit, a size past 32-bit indexing). The node then
// runs on the first CPU candidate instead of failing the run, as placement
// would have sent it there had the shapes been known: ops an accelerator
// cannot run fall back to the CPU, never to an error. The plan remembers
// the shapes, so dispatch() sends them to the CPU directly next time.
bool RunLoop::fall_back_to_cpu(NodeTask& task) {
  if (task.status.code() != StatusCode::kUnimplemented ||
      devices_[static_cast<size_t>(task.device_index)]->info().kernel_kind == DeviceKind::kCpu)
    return false;
  Frame& frame = *task.frame;
  const Node& node = frame.graph().node(task.node);
  describe_inputs(frame, node);
  if (!first_cpu_candidate(frame.plan().node(task.node))) return false;
  for (ValueId v : node.outputs)
    if (v != kNoValue) frame.value(v).reset();  // whatever the declining kernel allocated
  --stats_.nodes_per_device[static_cast<size_t>(task.device_index)];
  task.status = OkStatus();
  frame.plan().declined(task.node)->store(input_signature(), std::memory_order_relaxed);
  run_on_cpu(frame, task.node, "accelerator kernel declined these shapes; CPU fallback");
  return true;
}

std::optional<size_t> RunLoop::first_cpu_candidate(const NodePlan& np) const {
  for (size_t ci = 0; ci < np.candidates.size(); ++ci)
    if (devices_[static_cast<size_t>(np.candidates[ci].device_index)]->info().kernel_kind == DeviceKind::kCpu)
      return ci;
  return std::nullopt;
}

// Types and dims of the inputs described last; never 0, which means "none"
// in ExecutionPlan::declined().
uint64_t RunLoop::input_signature() const {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the words
  auto mix = [&h](uint64_t x) { h = (h ^ x) * 0x100000001b3ull; };
  for (size_t i = 0; i < inputs_.size(); ++i) {
    mix(static_cast<uint64_t>(inputs_[i].dtype));
    const Dims* d = input_dims_[i];
    mix(d ? d->size() : ~uint64_t{0});
    if (d)
      for (int64_t x : *d) mix(static_cast<uint64_t>(x));
  }
  return h | 1;
}

// Runs node `n`, whose inputs are described, on its first CPU candidate
// instead of where placement would send it, and says so to the observer.
void RunLoop::run_on_cpu(Frame& frame, NodeId n, const char* why) {
  const NodePlan& np = frame.plan().node(n);
  const size_t ci = *first_cpu_candidate(np);
  ++stats_.cpu_fallbacks;
  if (env_.observer) {
    PlacementRequest req;
    req.graph = &frame.graph();
    req.node = &frame.graph().node(n);
    req.depth = frame.graph().depth();
    req.inputs = inputs_;
    req.candidates = np.candidates;
    env_.observer->on_decision(req, {static_cast<int>(ci), why});
  }
  start_on(frame, n, ci, /*costs=*/false);
}

// Makes every input of `n` readable in the chosen device's memory: uses the
// value where it is, or its existing copy, or waits for the copy in flight,
// or starts one. Nodes waiting on copies launch from copy_done().
void RunLoop::stage(Frame& frame, NodeId n, NodeTask& task) {
  const Node& node = frame.graph().node(n);
  const Topology& topo = *env_.topology;
  Device& device = *devices_[static_cast<size_t>(task.device_index)];
  const int ds = topo.space_of_device(task.device_index);
  const bool device_reads_host = device.memory_space().is_host_accessible();
  const uint64_t host_mask = task.def ? task.def->host_inputs : 0;
  const uint64_t shape_mask = task.def ? task.def->shape_only_inputs : 0;
  task.staged.resize(node.inputs.size());
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    ValueId v = node.inputs[i];
    if (v == kNoValue) {
      task.staged[i] = nullptr;
      continue;
    }
    RuntimeValue& rv = frame.value(v);
    const int need = (i < 64 && (host_mask >> i & 1) && !device_reads_host) ? host_space_ : ds;
    const int at = value_space(rv, topo);
    if (at == -1 || at == need || (i < 64 && (shape_mask >> i & 1))) {
      task.staged[i] = &rv;
      continue;
    }
    Frame* of = frame.owner(&v);
    RuntimeValue& rep = of->replica(v, need);
    task.staged[i] = &rep;
    if (!rep.is_none()) continue;
    if (CopyTask* c = of->in_flight(v, need)) {
      c->waiters.emplace_back(&frame, n);
      ++task.staging;
      continue;
    }
    if (of->plan().cached_constant(v, need, &rep)) continue;
    CopyTask* c = of->new_copy();
    c->value = v;
    c->from = at < 0 ? host_space_ : at;
    c->to = need;
    c->from_space = topo.space(c->from);
    c->to_space = topo.space(need);
    c->src = rv;
    c->bytes = inputs_[i].bytes;
    c->waiters.emplace_back(&frame, n);
    c->device_index = (*env_.copy_engine)[static_cast<size_t>(c->from) * num_spaces_ + need];
    c->queue = DeviceTask::Queue::kCopy;
    c->predicted_ns = env_.learn ? static_cast<int64_t>(env_.cost->transfer_us(c->from, need, c->bytes) * 1e3) : 0;
    c->may_run_inline = true;  // copies are short; they never wait for a hand-off
    of->in_flight(v, need) = c;
    ++task.staging;
    if (env_.backlog_ns) env_.backlog_ns[c->device_index].fetch_add(c->predicted_ns, std::memory_order_relaxed);
    issue(*c);
  }
}

// Whether a long task runs on this thread or on its device's worker is
// decided late. While other nodes are ready, long tasks are held back
// (deferred_) and the loop goes on placing ready nodes. As soon as held
// tasks target two devices, they are all handed to their devices' workers
// and run at once. If the ready nodes run out first, the held tasks all
// target one device. They run inline, where a hand-off would buy no
// overlap and cost two thread wake-ups, unless an accelerator is working:
// its completions will make nodes ready, and this thread must be free to
// place them and keep it fed. Short work meanwhile runs inline ahead of
// them, where overlapping with it would not pay for the hand-off; but
// beside a working accelerator anything longer than a hand-off goes to the
// worker at once, for the same reason.
void RunLoop::launch(NodeTask& task) {
  task.donated = donated_inputs(task);
  task.predicted_ns = static_cast<int64_t>(task.predicted_us * 1e3);
  if (task.predicted_ns && env_.backlog_ns)
    env_.backlog_ns[task.device_index].fetch_add(task.predicted_ns, std::memory_order_relaxed);
  Device& device = *devices_[static_cast<size_t>(task.device_index)];
  // Only host devices have the inline/hand-off choice: an accelerator's
  // enqueue is an asynchronous launch, best made at once.
  const bool host_worker = !device.runs_inline() && device.memory_space().is_host_accessible();
  if (host_worker && task.predicted_ns >= kOverlapAboveNs && (!ready_.empty() || !deferred_.empty())) {
    const bool other_device = !deferred_.empty() && deferred_.front()->device_index != task.device_index;
    deferred_.push_back(&task);
    if (other_device) flush_deferred(/*overlap=*/true);
    return;
  }
  const bool overlap = host_worker && accelerator_in_flight_ > 0 && task.predicted_ns >= kHandOffBesideAcceleratorNs;
  stats_.handoffs += overlap;
  task.may_run_inline = !overlap;
  issue(task);
}

// The inputs of `task` whose tensors no one needs after it: this node is
// the last to read the value (it was made in this frame, for this node's
// slot alone), and no other value, replica or copy in flight holds its
// buffer. Decided here on the loop thread, as uses() changes only here:
// until the node completes, nothing can take a new hold on such a buffer.
uint64_t RunLoop::donated_inputs(const NodeTask& task) const {
  Frame& frame = *task.frame;
  uint64_t candidates = frame.plan().node(task.node).donor_inputs, donated = 0;
  const Node& node = frame.graph().node(task.node);
  while (candidates) {
    const int i = std::countr_zero(candidates);
    candidates &= candidates - 1;
    const ValueId v = node.inputs[static_cast<size_t>(i)];
    const RuntimeValue& rv = frame.value(v);
    if (frame.uses()[v] != 1 || !rv.is_tensor() || rv.tensor().buffer().use_count() != 1) continue;
    if (!task.staged.empty() && task.staged[static_cast<size_t>(i)] != &rv) continue;  // it reads a copy
    donated |= uint64_t{1} << i;
  }
  return donated;
}

void RunLoop::flush_deferred(bool overlap) {
  if (overlap) stats_.handoffs += static_cast<int64_t>(deferred_.size());
  for (NodeTask* t : deferred_) {
    t->may_run_inline = !overlap;
    issue(*t);
  }
  deferred_.clear();
}

void RunLoop::issue(LoopTask& task) {
  ++in_flight_;
  accelerator_in_flight_ += accelerator_[static_cast<size_t>(task.device_index)];
  Device& device = *devices_[static_cast<size_t>(task.device_index)];
  if (!env_.learn) {
    device.enqueue(&task, this);
    return;
  }
  // Completions reach this task only through this thread (drained later),
  // so writing its end stamp after enqueue() returns races with nothing.
  task.issue_begin_ns = env_.clock->now_ns();
  device.enqueue(&task, this);
  task.issue_end_ns = env_.clock->now_ns();
}

void RunLoop::record_issue(const LoopTask& task, bool copy) {
  if (!env_.learn || task.issue_end_ns <= task.issue_begin_ns) return;
  // A task run inline (a CPU kernel) spent its run inside enqueue(): that
  // part is the kernel's time, measured apart.
  const int64_t overlap = std::max<int64_t>(
      0, std::min(task.end_ns, task.issue_end_ns) - std::max(task.start_ns, task.issue_begin_ns));
  const int64_t ns = task.issue_end_ns - task.issue_begin_ns - overlap;
  const double us = static_cast<double>(ns) * 1e-3;
  if (!copy) {
    env_.cost->record_issue(task.device_index, us);
    return;
  }
  const auto& c = static_cast<const CopyTask&>(task);
  env_.cost->record_copy_issue(c.from, c.to, us);
}

double RunLoop::output_transfer_us(const Frame& frame, const Node& node, int to) {
  const ExecutionPlan& plan = frame.plan();
  const Graph& g = frame.graph();
  const Topology& topo = *env_.topology;
  double us = 0;
  for (ValueId v : node.outputs) {
    if (v == kNoValue) continue;
    const uint64_t bytes = plan.last_bytes(v)->load(std::memory_order_relaxed);
    if (bytes == 0) continue;
    const ValueInfo& info = g.value(v);
    auto move_us = [&](int space) {
      return env_.cost->transfer_us(to, space, bytes) + env_.cost->copy_issue_us(to, space);
    };
    // Each space is charged once, at the most any consumer there asks:
    // copies are shared.
    charged_.clear();
    auto charge = [&](int space, double amount) {
      if (space < 0 || space == to || !(amount > 0)) return;
      for (auto& [s, a] : charged_)
        if (s == space) {
          a = std::max(a, amount);
          return;
        }
      charged_.emplace_back(space, amount);
    };
    // What this choice costs a consumer: the larger of two estimates, as
    // it runs in one place.
    auto consumer = [&](NodeId c) {
      int space = -1;
      double amount = 0;
      // Where it ran next to this node's inputs: the full copy, as running
      // here would be an excursion whose result must come back. A consumer
      // that ran elsewhere follows its inputs once they move, so charging
      // for it would hold a group of nodes on a device after it stopped
      // paying.
      const int last = plan.last_space(c)->load(std::memory_order_relaxed);
      if (last != to && contains(input_spaces_, last)) space = last, amount = move_us(last);
      // One step of lookahead: a consumer much faster on another device
      // (a large MatMul after a cheap elementwise op) either pays the copy
      // there or runs slower here: the smaller of the two. Without it the
      // cheap producer stays where its input is, and each consumer then
      // copies its own input, where the producer could have moved one input
      // that many branches share.
      const std::atomic<float>* costs = plan.last_cost_us(c);
      float best = -1, here = -1;
      int best_space = -1;
      for (size_t d = 0; d < devices_.size(); ++d) {
        const float x = costs[d].load(std::memory_order_relaxed);
        if (x < 0) continue;
        const int s = topo.space_of_device(static_cast<int>(d));
        if (best < 0 || x < best) best = x, best_space = s;
        if (s == to && (here < 0 || x < here)) here = x;
      }
      if (best_space >= 0 && best_space != to) {
        const double gain = here < 0 ? std::numeric_limits<double>::infinity() : static_cast<double>(here - best);
        const double regret = std::min(gain, move_us(best_space));
        if (regret > amount) space = best_space, amount = regret;
      }
      charge(space, amount);
    };
    for (NodeId c : info.consumers) consumer(c);
    if (info.is_graph_output) {
      if (const ValueId next = plan.carried_to(v); next != kNoValue) {
        for (NodeId c : g.value(next).consumers) consumer(c);
      } else if (plan.outputs_read_on_host()) {
        charge(host_space_, move_us(host_space_));  // where the caller and control flow read outputs
      }
    }
    for (const auto& [s, a] : charged_) us += a;
  }
  return us;
}

// With several devices, which one failed is the first question (is it a
// GPU fault, which GPU); a lone device needs no naming.
std::string RunLoop::on_device(std::string what, int device_index) const {
  if (devices_.size() > 1) what += " on " + devices_[static_cast<size_t>(device_index)]->info().name;
  return what;
}

Status RunLoop::kernel_done(NodeTask& task) {
  Frame& frame = *task.frame;
  if (task.status.ok() && task.resume.requested) {
    // The first of a data-dependent kernel's two launches: the sizes it
    // found are in host memory now. Launch the second at once; the
    // prediction stays on the backlog until it completes.
    task.resume.requested = false;
    task.resume.resumed = true;
    task.first_start_ns = task.start_ns;
    task.first_ns = task.end_ns - task.start_ns;
    task.may_run_inline = true;
    issue(task);
    return OkStatus();
  }
  const bool resumed = task.resume.resumed;
  task.resume = {};  // the carried tensors' work is done
  if (task.predicted_ns && env_.backlog_ns)
    env_.backlog_ns[task.device_index].fetch_sub(task.predicted_ns, std::memory_order_relaxed);
  const Node& node = frame.graph().node(task.node);
  if (!task.status.ok())
    return fall_back_to_cpu(task) ? OkStatus()
                                  : task.status.with_context(on_device(node.describe(), task.device_index));
  record_issue(task, /*copy=*/false);
  if (track_placement_)
    for (ValueId v : node.outputs)
      if (v != kNoValue && frame.value(v).is_tensor())
        frame.plan().last_bytes(v)->store(frame.value(v).tensor().nbytes(), std::memory_order_relaxed);
  // A resumed kernel's time is both launches' (not the hop between them),
  // and its event spans both.
  const int64_t ns = task.end_ns - task.start_ns + (resumed ? task.first_ns : 0);
  if (resumed) task.start_ns = task.first_start_ns;
  stats_.busy_ns_per_device[static_cast<size_t>(task.device_index)] += ns;
  uint64_t& peak = stats_.peak_bytes_per_device[static_cast<size_t>(task.device_index)];
  peak = std::max(peak, devices_[static_cast<size_t>(task.device_index)]->bytes_in_use());
  const double us = static_cast<double>(ns) * 1e-3;
  if (env_.learn && task.cost_slot >= 0) env_.cost->record(task.cost_slot, task.work, us);
  Completion c;
  c.graph = &frame.graph();
  c.node = &node;
  c.device = devices_[static_cast<size_t>(task.device_index)]->id();
  c.device_index = task.device_index;
  c.work = task.work;
  c.predicted_us = task.predicted_us;
  c.measured_us = us;
  env_.policy->observe(c);
  if (env_.observer) {
    event_values_.clear();
    for (ValueId v : node.inputs) event_values_.push_back(v == kNoValue ? nullptr : &frame.value(v));
    for (ValueId v : node.outputs) event_values_.push_back(v == kNoValue ? nullptr : &frame.value(v));
    KernelEvent e{&frame.graph(), &node, task.device_index, task.start_ns, task.end_ns, task.predicted_us, task.work, {}, {}};
    e.inputs = std::span<const RuntimeValue* const>(event_values_.data(), node.inputs.size());
    e.outputs = std::span<const RuntimeValue* const>(event_values_.data() + node.inputs.size(), node.outputs.size());
    env_.observer->on_kernel(e);
  }
  finish_node(frame, task.node);
  return OkStatus();
}

Status RunLoop::copy_done(CopyTask& c) {
  Frame& of = *c.frame;
  if (c.predicted_ns && env_.backlog_ns)
    env_.backlog_ns[c.device_index].fetch_sub(c.predicted_ns, std::memory_order_relaxed);
  of.in_flight(c.value, c.to) = nullptr;
  if (!c.status.ok())
    return c.status.with_context(on_device(
        str_cat("copying '", of.graph().value(c.value).name, "' to ", c.to_space.to_string()), c.device_index));
  record_issue(c, /*copy=*/true);
  if (env_.learn && c.end_ns >= c.start_ns)
    env_.cost->record_copy(c.from, c.to, c.bytes, static_cast<double>(c.end_ns - c.start_ns) * 1e-3);
  of.replica(c.value, c.to) = c.result;
  of.plan().cache_constant(c.value, c.to, c.result);
  ++stats_.copies;
  stats_.bytes_copied += static_cast<int64_t>(c.bytes);
  if (env_.observer) {
    CopyEvent e;
    e.graph = &of.graph();
    e.value = c.value;
    e.device_index = c.device_index;
    e.from = env_.topology->space(c.from);
    e.to = c.to_space;
    e.bytes = c.bytes;
    e.start_ns = c.start_ns;
    e.end_ns = c.end_ns;
    env_.observer->on_copy(e);
  }
  for (auto [f, w] : c.waiters) {
    NodeTask& t = f->task(w);
    if (--t.staging == 0) launch(t);
  }
  of.recycle(&c);
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
    auto* task = static_cast<LoopTask*>(t);
    accelerator_in_flight_ -= accelerator_[static_cast<size_t>(task->device_index)];
    RETURN_IF_ERROR(task->kind == LoopTask::Kind::kNode ? kernel_done(*static_cast<NodeTask*>(task))
                                                        : copy_done(*static_cast<CopyTask*>(task)));
  }
  return OkStatus();
}

Status RunLoop::wait_for_completion() {
  // Spin briefly first: a blocked wait costs a futex wake-up (tens of µs on
  // a busy machine), more than many kernels take.
  const int64_t spin_until = env_.clock->now_ns() + kSpinNs;
  while (!has_remote_.load(std::memory_order_acquire) && env_.clock->now_ns() < spin_until) {
  }
  DeviceTask* list;
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return remote_done_ != nullptr; });
    list = remote_done_;
    remote_done_ = nullptr;
    has_remote_.store(false, std::memory_order_relaxed);
  }
  // The remote list is newest-first; reverse it to handle completions in
  // the order they happened.
  DeviceTask* ordered = nullptr;
  while (list) {
    DeviceTask* next = list->next_completed;
    list->next_completed = ordered;
    ordered = list;
    list = next;
  }
  while (ordered) {
    DeviceTask* next = ordered->next_completed;
    ordered->next_completed = nullptr;
    if (local_tail_) local_tail_->next_completed = ordered;
    else local_done_ = ordered;
    local_tail_ = ordered;
    ordered = next;
  }
  return drain_completions();
}

Status RunLoop::check_stop() {
  if (env_.cancel && env_.cancel->load(std::memory_order_relaxed)) return Cancelled("the run was cancelled");
  // Wall-clock even in simulation: the limit is on the caller's time.
  if (env_.deadline_ns && SteadyClock::instance().now_ns() > env_.deadline_ns)
    return DeadlineExceeded("the run took longer than its time limit of ", env_.timeout_ms, " ms");
  return OkStatus();
}

Status RunLoop::run(Frame& root) {
  loop_thread_ = std::this_thread::get_id();
  root_ = &root;
  root_done_ = false;
  start_frame(root);
  // A run asked to stop before it starts does not start.
  Status status = env_.deadline_ns || env_.cancel ? check_stop() : OkStatus();
  while (status.ok() && !root_done_) {
    if (!ready_.empty()) {
      Ready r = ready_.back();
      ready_.pop_back();
      status = r.node == kFrameDone ? frame_done(*r.frame) : dispatch(*r.frame, r.node);
      env_.clock->deliver(/*wait=*/false);
      if (status.ok()) status = drain_completions();
    } else if (!deferred_.empty()) {
      flush_deferred(/*overlap=*/accelerator_in_flight_ > 0);
      status = drain_completions();
    } else if (in_flight_ > 0) {
      status = env_.clock->deliver(/*wait=*/true) ? drain_completions() : wait_for_completion();
    } else {
      status = Internal("run loop stalled: no ready node and nothing in flight (graph '", root.graph().name(), "')");
    }
    // Every few steps: a clock read per node would cost more than the check
    // is worth, and a step is one node or one completion.
    if (status.ok() && (env_.deadline_ns || env_.cancel) && (++steps_ & 15) == 0) status = check_stop();
    if (!status.ok()) break;
  }
  // On error, let in-flight work finish before frames are destroyed, and
  // take its predicted time off the shared backlog.
  auto forget = [&](DeviceTask* t) {
    --in_flight_;
    const int d = static_cast<LoopTask*>(t)->device_index;
    accelerator_in_flight_ -= accelerator_[static_cast<size_t>(d)];
    if (t->predicted_ns && env_.backlog_ns) env_.backlog_ns[d].fetch_sub(t->predicted_ns, std::memory_order_relaxed);
  };
  for (NodeTask* t : deferred_) {
    ++in_flight_;
    forget(t);
  }
  deferred_.clear();
  for (DeviceTask* t = local_done_; t; t = t->next_completed) forget(t);
  local_done_ = local_tail_ = nullptr;
  while (!status.ok() && in_flight_ > 0 && env_.clock->deliver(/*wait=*/true)) {
    for (DeviceTask* t = local_done_; t; t = t->next_completed) forget(t);
    local_done_ = local_tail_ = nullptr;
  }
  while (!status.ok() && in_flight_ > 0) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return remote_done_ != nullptr; });
    for (DeviceTask* t = remote_done_; t; t = t->next_completed) forget(t);
    remote_done_ = nullptr;
  }
  return status;
}

}  // namespace sy

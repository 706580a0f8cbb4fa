#include "executor/session.h"

#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <thread>

#include "devices/cpu/cpu_device.h"
#include "devices/cuda/cuda_backend.h"

namespace sy {

std::vector<std::string> device_list_items(const std::string& spec) {
  std::vector<std::string> items;
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ',')) {
    while (!item.empty() && item.back() == ' ') item.pop_back();
    while (!item.empty() && item.front() == ' ') item.erase(0, 1);
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

namespace {

// How a lone CPU device runs beside accelerators (SWITCHYARD_CPU_BESIDE_GPU).
// Inline, its long kernels would hold the run loop's thread, so a GPU that
// finishes meanwhile waits for them before it gets more work, and the CPU
// never shows a backlog to the placer. With a worker, the loop keeps
// feeding the GPU. One core is left to the loop and the GPUs' completion
// threads, which must run the moment a GPU finishes: with every core in
// the CPU kernels' arena they queue behind its threads for a scheduler
// slice. A 2-core host keeps both cores for kernels. The other values are
// for A/B runs.
struct CpuBesideGpu {
  bool worker = true;
  int threads = 0;  // 0: all cores
};

StatusOr<CpuBesideGpu> cpu_beside_gpu() {
  const int hw = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const char* v = std::getenv("SWITCHYARD_CPU_BESIDE_GPU");
  const std::string_view mode = v ? v : "";
  if (mode.empty() || mode == "spare-core") return CpuBesideGpu{true, hw > 2 ? hw - 1 : 0};
  if (mode == "all-cores") return CpuBesideGpu{true, 0};
  if (mode == "inline") return CpuBesideGpu{false, 0};
  return InvalidArgument("SWITCHYARD_CPU_BESIDE_GPU is '", mode,
                         "'; use 'spare-core' (the default), 'all-cores' or 'inline'");
}

}  // namespace

StatusOr<std::vector<std::unique_ptr<Device>>> create_devices(const std::string& spec) {
  std::vector<std::unique_ptr<Device>> out;
  std::set<std::string> seen;
  const std::vector<std::string> items = device_list_items(spec);
  int cpus = 0;
  for (const auto& item : items) cpus += item.rfind("cpu", 0) == 0;
  const int hw = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const bool accelerators = cpus < static_cast<int>(items.size());
  ASSIGN_OR_RETURN(const CpuBesideGpu beside, cpu_beside_gpu());
  for (const std::string& item : items) {
    std::string kind = item, ord = "0";
    if (auto c = item.find(':'); c != std::string::npos) {
      kind = item.substr(0, c);
      ord = item.substr(c + 1);
    }
    char* end = nullptr;
    long o = std::strtol(ord.c_str(), &end, 10);
    if (ord.empty() || *end != '\0' || o < 0 || o > 63) return InvalidArgument("bad device '", item, "': ordinal must be 0..63");
    if (!seen.insert(kind + ":" + std::to_string(o)).second) return InvalidArgument("device '", item, "' listed twice");
    if (kind == "cpu") {
      // One CPU device alone owns the whole host and runs inline; several
      // split the cores and each get a worker so they run side by side; one
      // beside accelerators, see cpu_beside_gpu().
      if (cpus > 1) out.push_back(std::make_unique<CpuDevice>(static_cast<int>(o), std::max(1, hw / cpus), true));
      else if (accelerators)
        out.push_back(std::make_unique<CpuDevice>(static_cast<int>(o), beside.threads, beside.worker));
      else out.push_back(std::make_unique<CpuDevice>(static_cast<int>(o)));
    } else if (kind == "cuda") {
      ASSIGN_OR_RETURN(std::unique_ptr<Device> d, create_cuda_device(static_cast<int>(o)));
      out.push_back(std::move(d));
    } else {
      return InvalidArgument("unknown device kind '", kind, "' in '", item, "' (known: cpu, cuda)");
    }
  }
  if (out.empty()) return InvalidArgument("no devices given");
  return out;
}

Session::~Session() = default;

namespace {
// The simulated machine's virtual time as the run loop's clock.
class SimClock final : public Clock {
 public:
  explicit SimClock(SimMachine& m) : m_(m) {}
  int64_t now_ns() const override { return m_.now_ns(); }
  bool deliver(bool wait) const override { return m_.deliver(wait); }

 private:
  SimMachine& m_;
};
}  // namespace

Status Session::create_simulated() {
  ASSIGN_OR_RETURN(SimProfile profile, load_sim_profile(options_.simulate));
  ASSIGN_OR_RETURN(const CpuBesideGpu beside, cpu_beside_gpu());
  sim_ = std::make_unique<SimMachine>(std::move(profile), options_.policy_options.seed, !beside.worker);
  devices_ = sim_->take_devices();
  sim_clock_ = std::make_unique<SimClock>(*sim_);
  return OkStatus();
}

// The simulated links, and the profile's costs as the cost model's prior.
void Session::apply_simulated_costs() {
  const SimMachine& m = *sim_;
  for (int a = 0; a < m.num_devices(); ++a)
    for (int b = 0; b < m.num_devices(); ++b)
      if (a != b) {
        const SimLink& l = m.profile().link(a, b);
        topology_.set_link(topology_.space_of_device(a), topology_.space_of_device(b), {l.latency_us, l.bandwidth_gbps});
      }
  std::map<std::string, int> index;
  for (size_t d = 0; d < device_ptrs_.size(); ++d) index[device_ptrs_[d]->id().to_string()] = static_cast<int>(d);
  cost_->set_prior([&m, index = std::move(index)](const std::string& op, const std::string& device, double work) {
    auto it = index.find(device);
    return it == index.end() ? -1.0 : m.kernel_us(it->second, op, work);
  });
}

// The read-only plan view static policies get in prepare().
class Session::View final : public PlanView {
 public:
  explicit View(const Session& s) : s_(s) {
    for (Device* d : s.device_ptrs_) ids_.push_back(d->id());
    index(*s.plan_);
  }
  const Graph& root() const override { return *s_.model_->graph; }
  std::span<const DeviceId> devices() const override { return ids_; }
  std::vector<Candidate> candidates(const Graph& g, NodeId n) const override {
    auto it = plans_.find(&g);
    if (it == plans_.end() || n < 0 || static_cast<size_t>(n) >= g.nodes().size()) return {};
    const NodePlan& np = it->second->node(n);
    std::vector<Candidate> out = np.candidates;
    const Node& node = g.node(n);
    std::vector<Dims> dims(node.inputs.size());
    std::vector<const Dims*> ptrs(node.inputs.size(), nullptr);
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (node.inputs[i] == kNoValue) continue;
      dims[i] = static_dims(g.value(node.inputs[i]).type);
      ptrs[i] = &dims[i];
    }
    for (size_t c = 0; c < out.size() && c < np.cost_slots.size(); ++c)
      out[c].predicted_compute_us = s_.cost_->predict_us(np.cost_slots[c], s_.cost_->work(np.cost_slots[c], ptrs));
    return out;
  }
  double transfer_us(int from, int to, uint64_t bytes) const override {
    const Topology& t = s_.topology_;
    return t.transfer_us(t.space_of_device(from), t.space_of_device(to), bytes);
  }
  uint64_t value_bytes(const Graph& g, ValueId v) const override {
    const TypeInfo& t = g.value(v).type;
    if (t.kind != TypeInfo::Kind::kTensor) return 0;
    return static_cast<uint64_t>(static_dims(t).numel()) * dtype_size(t.elem);
  }

 private:
  static Dims static_dims(const TypeInfo& t) {
    Dims d;
    if (t.kind == TypeInfo::Kind::kTensor && t.has_shape)
      for (const Dim& x : t.shape) d.push_back(x.known() ? x.value : 1);
    return d;
  }
  void index(const ExecutionPlan& p) {
    plans_[&p.graph()] = &p;
    for (const auto& sp : p.subplans()) index(*sp);
  }
  const Session& s_;
  std::vector<DeviceId> ids_;
  std::map<const Graph*, const ExecutionPlan*> plans_;
};

Status Session::save_profile(const std::string& path) const {
  const std::string& p = path.empty() ? options_.profile : path;
  if (p.empty()) return InvalidArgument("no profile path given");
  return cost_->save(p);
}

StatusOr<std::unique_ptr<Session>> Session::create(std::shared_ptr<const Model> model, const SessionOptions& options) {
  if (!model || !model->graph) return InvalidArgument("no model");
  std::unique_ptr<Session> s(new Session());
  s->model_ = std::move(model);
  s->options_ = options;
  if (options.device_factory) {
    ASSIGN_OR_RETURN(s->devices_, options.device_factory());
    if (s->devices_.empty()) return InvalidArgument("the device factory made no devices");
  } else if (options.simulate.empty()) {
    ASSIGN_OR_RETURN(s->devices_, create_devices(options.devices));
  } else {
    RETURN_IF_ERROR(s->create_simulated());
  }
  for (auto& d : s->devices_) s->device_ptrs_.push_back(d.get());
  if (options.custom_policy) {
    s->policy_ = options.custom_policy;
  } else {
    ASSIGN_OR_RETURN(std::unique_ptr<PlacementPolicy> p, PolicyRegistry::builtin().create(options.policy, options.policy_options));
    s->policy_ = std::move(p);
  }
  s->topology_ = Topology(s->device_ptrs_);
  s->cost_ = std::make_unique<CostModel>();
  if (s->sim_) s->apply_simulated_costs();
  s->cost_->set_topology(s->topology_);
  if (!options.profile.empty()) {
    // A missing profile is fine: it is created by save_profile().
    std::error_code ec;
    if (std::filesystem::exists(options.profile, ec)) {
      // load()'s errors name the profile already.
      RETURN_IF_ERROR(s->cost_->load(options.profile));
      s->topology_ = s->cost_->topology();
    }
  }
  const KernelRegistry& reg = options.registry ? *options.registry : KernelRegistry::builtin();
  auto plan = ExecutionPlan::build(*s->model_->graph, s->device_ptrs_, reg, s->cost_.get());
  if (!plan.ok()) return plan.status().with_context(s->model_->path);
  s->plan_ = std::move(plan).value();
  s->backlog_ns_ = std::make_unique<std::atomic<int64_t>[]>(s->device_ptrs_.size());
  for (size_t d = 0; d < s->device_ptrs_.size(); ++d) s->backlog_ns_[d].store(0);
  s->build_copy_engines();
  RETURN_IF_ERROR(s->policy_->prepare(View(*s)));
  return s;
}

std::vector<std::string> Session::input_names() const {
  std::vector<std::string> out;
  for (ValueId v : model_->graph->inputs()) out.push_back(model_->graph->value(v).name);
  return out;
}

std::vector<std::string> Session::output_names() const {
  std::vector<std::string> out;
  for (ValueId v : model_->graph->outputs()) out.push_back(model_->graph->value(v).name);
  return out;
}

Status Session::check_input(const ValueInfo& info, const RuntimeValue& v, std::map<std::string, int64_t>& bound) const {
  const TypeInfo& t = info.type;
  if (t.kind == TypeInfo::Kind::kUnknown) return OkStatus();
  const TypeInfo* want = &t;
  if (t.kind == TypeInfo::Kind::kOptional) {
    if (v.is_none()) return OkStatus();
    want = t.inner.get();
    if (!want) return OkStatus();
  }
  if (want->kind == TypeInfo::Kind::kSequence) {
    if (!v.is_sequence()) return InvalidArgument("input '", info.name, "' must be a sequence (", t.to_string(), ")");
    return OkStatus();
  }
  if (want->kind != TypeInfo::Kind::kTensor) return OkStatus();
  if (!v.is_tensor()) return InvalidArgument("input '", info.name, "' must be a tensor (", t.to_string(), ")");
  const Tensor& x = v.tensor();
  if (want->elem != DataType::kUndefined && x.dtype() != want->elem)
    return InvalidArgument("input '", info.name, "' has type ", dtype_name(x.dtype()), " but the model expects ",
                           dtype_name(want->elem));
  if (!want->has_shape) return OkStatus();
  if (x.rank() != want->shape.size())
    return InvalidArgument("input '", info.name, "' has shape ", x.dims().to_string(), " but the model expects ",
                           want->to_string());
  for (size_t i = 0; i < x.rank(); ++i) {
    const Dim& d = want->shape[i];
    if (d.known() && d.value != x.dim(i))
      return InvalidArgument("input '", info.name, "' has shape ", x.dims().to_string(), " but the model expects ",
                             want->to_string());
    if (!d.known() && !d.symbol.empty()) {
      auto [it, fresh] = bound.emplace(d.symbol, x.dim(i));
      if (!fresh && it->second != x.dim(i))
        return InvalidArgument("input '", info.name, "' dimension ", i, " ('", d.symbol, "') is ", x.dim(i),
                               " but it is ", it->second, options_.dims.count(d.symbol) ? " (set by --dim)" : " elsewhere");
    }
  }
  return OkStatus();
}

Status Session::validate_inputs(const std::map<std::string, RuntimeValue>& inputs) const {
  const Graph& g = *model_->graph;
  std::map<std::string, int64_t> bound = options_.dims;
  size_t used = 0;
  for (ValueId id : g.inputs()) {
    const ValueInfo& info = g.value(id);
    auto it = inputs.find(info.name);
    if (it == inputs.end()) {
      if (info.initializer >= 0 || info.type.kind == TypeInfo::Kind::kOptional) continue;
      return InvalidArgument("missing input '", info.name, "' (", info.type.to_string(), ")");
    }
    RETURN_IF_ERROR(check_input(info, it->second, bound));
    ++used;
  }
  if (used != inputs.size()) {
    std::string known;
    for (ValueId id : g.inputs()) known += (known.empty() ? "" : ", ") + g.value(id).name;
    for (const auto& [name, v] : inputs) {
      auto id = g.find_value(name);
      if (!id || !g.value(*id).is_graph_input) return InvalidArgument("unknown input '", name, "' (model inputs: ", known, ")");
    }
  }
  return OkStatus();
}

void Session::build_copy_engines() {
  // Which device's copy queue moves bytes from one space to another: the
  // GPU side of a host<->GPU link, otherwise the destination's owner (it
  // pulls), falling back to the source's owner and then to device 0.
  const int n = static_cast<int>(topology_.num_spaces());
  auto owner = [&](int space) {
    for (size_t d = 0; d < device_ptrs_.size(); ++d)
      if (topology_.space_of_device(static_cast<int>(d)) == space) return static_cast<int>(d);
    return -1;
  };
  copy_engine_.assign(static_cast<size_t>(n * n), 0);
  for (int from = 0; from < n; ++from) {
    for (int to = 0; to < n; ++to) {
      int e = -1;
      if (topology_.space(to).kind == DeviceKind::kCuda) e = owner(to);
      else if (topology_.space(from).kind == DeviceKind::kCuda) e = owner(from);
      if (e < 0) e = owner(to);
      if (e < 0) e = owner(from);
      copy_engine_[static_cast<size_t>(from * n + to)] = e < 0 ? 0 : e;
    }
  }
}

StatusOr<Tensor> Session::host_copy(const Tensor& t) const {
  const int space = topology_.index_of(t.space());
  const int dev = space < 0 ? 0 : copy_engine_[static_cast<size_t>(space) * topology_.num_spaces() + topology_.index_of(kHostSpace)];
  Device& d = *device_ptrs_[static_cast<size_t>(dev)];
  StatusOr<Tensor> r = d.copy(t, kHostSpace);
  // A faulted GPU fails here first when its last work was the outputs.
  if (!r.ok()) return r.status().with_context("copying an output to the host on " + d.info().name);
  return r;
}

StatusOr<RunResult> Session::run(const std::map<std::string, RuntimeValue>& inputs, const RunOptions& run_options) const {
  if (run_options.timeout_ms < 0)
    return InvalidArgument("a run's time limit must be positive (or 0 for none), got ", run_options.timeout_ms, " ms");
  // Wall-clock, from the call (a simulated run's limit too). Saturates: a
  // limit of centuries is no limit.
  int64_t deadline_ns = 0;
  if (run_options.timeout_ms > 0) {
    const int64_t now = SteadyClock::instance().now_ns();
    deadline_ns = run_options.timeout_ms > (INT64_MAX - now) / 1'000'000 ? 0 : now + run_options.timeout_ms * 1'000'000;
  }
  std::unique_lock<std::mutex> sim_lock(sim_mu_, std::defer_lock);
  if (sim_) sim_lock.lock();
  const Clock& clock = sim_clock_ ? *sim_clock_ : options_.clock ? *options_.clock : SteadyClock::instance();
  const int64_t t0 = clock.now_ns();
  const Graph& g = *model_->graph;
  RETURN_IF_ERROR(validate_inputs(inputs));
  Frame root(*plan_, nullptr, -1, static_cast<int>(topology_.num_spaces()));
  root.reset();
  for (ValueId id : g.inputs()) {
    auto it = inputs.find(g.value(id).name);
    if (it != inputs.end()) root.value(id) = it->second;
  }

  RunEnv env;
  env.devices = &device_ptrs_;
  env.policy = policy_.get();
  env.clock = &clock;
  env.topology = &topology_;
  env.cost = cost_.get();
  env.predict = policy_->uses_costs();
  // Learning pays off only where there is a choice to make (placement, and
  // whether to overlap a task or run it inline), or when asked (profiling).
  // The simulator prices kernels by their work size, which is computed only
  // when learning.
  env.learn = device_ptrs_.size() > 1 || options_.learn_costs || sim_;
  env.backlog_ns = backlog_ns_.get();
  env.copy_engine = &copy_engine_;
  env.observer = run_options.observer;
  env.deadline_ns = deadline_ns;
  env.timeout_ms = run_options.timeout_ms;
  env.cancel = run_options.cancel;
  RunLoop loop(env);
  RETURN_IF_ERROR(loop.run(root));
  RunResult result;
  result.stats = loop.stats();
  const int host = topology_.index_of(kHostSpace);
  for (ValueId id : g.outputs()) {
    RuntimeValue v = root.value(id);
    // Outputs come back to host memory.
    if (const int at = value_space(v, topology_); at != -1 && at != host) {
      ASSIGN_OR_RETURN(v, copy_value(v, kHostSpace, [&](const Tensor& t) {
                         ++result.stats.copies;
                         result.stats.bytes_copied += static_cast<int64_t>(t.nbytes());
                         return host_copy(t);
                       }));
    }
    result.outputs.push_back(std::move(v));
  }
  result.latency_ns = clock.now_ns() - t0;
  return result;
}

}  // namespace sy

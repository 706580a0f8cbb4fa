// `switchyard calibrate`: measures representative kernels on every device of
// a device list, and the links between their memory spaces, and writes the
// result as a cost profile (CostModel::save) for `--profile`.
//
// How: one in-memory ONNX model holds many independent single-op nodes
// (MatMul and Conv at several sizes, elementwise, Softmax, reductions, data
// movement at several element counts). A session over the whole device list
// runs it with a pinning policy that sends every node to one device; each
// device takes its turn. The session's own cost model is not used: warm-up
// runs (oneDNN primitive creation, first-touch page faults, thread start)
// would pollute it. An observer instead feeds kernel times from the recorded
// runs into a fresh CostModel, then a few held-out runs check its
// predictions against measurements it never saw.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>

#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/measure_links.h"
#include "cli/random_inputs.h"
#include "cli/sim_profile_writer.h"
#include "executor/session.h"
#include "ir/onnx_loader.h"
#include "onnx/onnx_pb.h"

namespace sy {

namespace {

namespace fs = std::filesystem;

// One measured kernel of the calibration model, for the summary table.
struct Probe {
  std::string op;
  std::string size;  // human-readable shape
  std::string output;
};

// Builds the calibration model; `probes` lists its nodes in order.
class CalibrationModel {
 public:
  explicit CalibrationModel(bool quick) {
    m_.set_ir_version(8);
    m_.set_producer_name("switchyard calibrate");
    auto* op = m_.add_opset_import();
    op->set_domain("");
    op->set_version(17);
    g_ = m_.mutable_graph();
    g_->set_name("calibrate");

    const std::vector<int64_t> mm = quick ? std::vector<int64_t>{32, 128} : std::vector<int64_t>{32, 64, 128, 256, 512};
    for (int64_t n : mm) {
      std::string a = input("mm_a" + std::to_string(n), {n, n}), b = input("mm_b" + std::to_string(n), {n, n});
      node("MatMul", {a, b}, dims_str({n, n, n}), {n, n});
    }
    // Conv: channels, spatial size. 3x3 kernels, same padding.
    const std::vector<std::pair<int64_t, int64_t>> conv =
        quick ? std::vector<std::pair<int64_t, int64_t>>{{8, 16}}
              : std::vector<std::pair<int64_t, int64_t>>{{8, 32}, {32, 32}, {64, 56}};
    for (auto [c, hw] : conv) {
      std::string tag = std::to_string(c) + "_" + std::to_string(hw);
      std::string x = input("conv_x" + tag, {1, c, hw, hw}), w = input("conv_w" + tag, {c, c, 3, 3});
      auto* n = node("Conv", {x, w}, dims_str({1, c, hw, hw}) + " k3x3", {1, c, hw, hw});
      ints_attr(n, "pads", {1, 1, 1, 1});
    }
    // Element counts for the memory-bound ops, as [rows, 256].
    const std::vector<int64_t> elems =
        quick ? std::vector<int64_t>{4096, 65536} : std::vector<int64_t>{1024, 16384, 262144, 1 << 20};
    for (int64_t e : elems) {
      const int64_t rows = e / kCols;
      const std::string s = std::to_string(e);
      const std::string size = dims_str({rows, kCols});
      std::string x = input("x" + s, {rows, kCols}), y = input("y" + s, {rows, kCols});
      for (const char* u : {"Relu", "Sigmoid", "Tanh"}) node(u, {x}, size, {rows, kCols});
      for (const char* b : {"Add", "Mul"}) node(b, {x, y}, size, {rows, kCols});
      int_attr(node("Softmax", {x}, size, {rows, kCols}), "axis", -1);
      std::string axes = "axes" + s;
      int64_init(axes, {1}, {1});
      int_attr(node("ReduceSum", {x, axes}, size + " axis 1", {rows}), "keepdims", 0);
      int_attr(node("Concat", {x, y}, "2x" + size, {2 * rows, kCols}), "axis", 0);
      ints_attr(node("Transpose", {x}, size, {kCols, rows}), "perm", {1, 0});
      // Random int64 inputs are in [0, 8): valid rows once there are 8.
      const int64_t data_rows = std::max<int64_t>(rows, 8);
      std::string data = data_rows == rows ? x : input("gd" + s, {data_rows, kCols});
      std::string idx = input("gi" + s, {rows}, onnx::TensorProto::INT64);
      node("Gather", {data, idx}, dims_str({data_rows, kCols}) + " take " + std::to_string(rows), {rows, kCols});
    }
  }

  onnx::ModelProto& proto() { return m_; }
  const std::vector<Probe>& probes() const { return probes_; }

 private:
  static constexpr int64_t kCols = 256;

  static std::string dims_str(const std::vector<int64_t>& d) {
    std::string s;
    for (size_t i = 0; i < d.size(); ++i) {
      if (i) s += 'x';
      s += std::to_string(d[i]);
    }
    return s;
  }
  std::string input(const std::string& name, const std::vector<int64_t>& dims,
                    int elem = onnx::TensorProto::FLOAT) {
    auto* v = g_->add_input();
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
    return name;
  }
  void int64_init(const std::string& name, const std::vector<int64_t>& dims, const std::vector<int64_t>& vals) {
    auto* t = g_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t v : vals) t->add_int64_data(v);
  }
  onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& inputs, const std::string& size,
                        const std::vector<int64_t>& out_dims) {
    const std::string out = "out" + std::to_string(probes_.size());
    auto* n = g_->add_node();
    n->set_op_type(op);
    n->set_name(op + "_" + std::to_string(probes_.size()));
    for (const auto& i : inputs) n->add_input(i);
    n->add_output(out);
    // Every node's output is a graph output so that nothing is dead code.
    auto* v = g_->add_output();
    v->set_name(out);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : out_dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
    probes_.push_back(Probe{op, size, out});
    return n;
  }
  static void int_attr(onnx::NodeProto* n, const std::string& name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void ints_attr(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }

  onnx::ModelProto m_;
  onnx::GraphProto* g_ = nullptr;
  std::vector<Probe> probes_;
};

// Sends every node to one device (the one set with pin()), so that each
// device is measured alone, without another device's kernels contending
// for the same cores and memory bandwidth.
class PinPolicy final : public PlacementPolicy {
 public:
  std::string_view name() const override { return "calibrate-pin"; }
  bool uses_costs() const override { return false; }
  PlacementDecision place(const PlacementRequest& r) override {
    const int want = target_.load(std::memory_order_relaxed);
    for (size_t c = 0; c < r.candidates.size(); ++c)
      if (r.candidates[c].device_index == want) return {static_cast<int>(c), "calibrate: pinned"};
    return {0, "calibrate: no kernel on the pinned device"};
  }
  void pin(int device_index) { target_.store(device_index, std::memory_order_relaxed); }

 private:
  std::atomic<int> target_{0};
};

// Turns kernel events into cost-model samples. Runs are sequential and the
// run loop calls observers on its own thread, so no locking is needed.
class Recorder final : public RunObserver {
 public:
  enum class Mode { kIgnore, kLearn, kHoldOut };
  struct Entry {
    int slot = -1;
    double work = 0;
    std::vector<double> learned_us;
    std::vector<double> held_out_rel_err;
  };

  Recorder(const Graph& g, const std::vector<Device*>& devices, CostModel& cost) : cost_(cost) {
    for (const Node& n : g.nodes()) {
      std::vector<Dims> dims(n.inputs.size());
      std::vector<const Dims*> ptrs(n.inputs.size(), nullptr);
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        if (n.inputs[i] == kNoValue) continue;
        for (const Dim& d : g.value(n.inputs[i]).type.shape) dims[i].push_back(std::max<int64_t>(d.value, 1));
        ptrs[i] = &dims[i];
      }
      for (size_t d = 0; d < devices.size(); ++d) {
        Entry& e = entries_[{&n, static_cast<int>(d)}];
        e.slot = cost_.slot(n, devices[d]->id());
        e.work = cost_.work(e.slot, ptrs);
      }
    }
  }
  void set_mode(Mode m) { mode_ = m; }
  void on_kernel(const KernelEvent& ev) override {
    if (mode_ == Mode::kIgnore) return;
    auto it = entries_.find({ev.node, ev.device_index});
    if (it == entries_.end()) return;
    Entry& e = it->second;
    const double us = static_cast<double>(ev.end_ns - ev.start_ns) / 1e3;
    if (!(us > 0)) return;
    if (mode_ == Mode::kLearn) {
      cost_.record(e.slot, e.work, us);
      e.learned_us.push_back(us);
    } else {
      e.held_out_rel_err.push_back(std::abs(cost_.predict_us(e.slot, e.work) - us) / us);
    }
  }
  const Entry* entry(const Node* n, int device) const {
    auto it = entries_.find({n, device});
    return it == entries_.end() ? nullptr : &it->second;
  }
  const std::map<std::pair<const Node*, int>, Entry>& entries() const { return entries_; }
  std::vector<double> held_out_errors() const {
    std::vector<double> all;
    for (const auto& [k, e] : entries_) all.insert(all.end(), e.held_out_rel_err.begin(), e.held_out_rel_err.end());
    return all;
  }

 private:
  CostModel& cost_;
  Mode mode_ = Mode::kIgnore;
  std::map<std::pair<const Node*, int>, Entry> entries_;
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// A chain of kChainNodes one-element Neg nodes: nearly all of its run time
// is the runtime's own cost per node (placement, dispatch, completion),
// which a simulation profile charges as launch_us.
constexpr int kChainNodes = 200;

onnx::ModelProto chain_model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("calibrate_overhead");
  auto value = [](onnx::ValueInfoProto* v, const std::string& name) {
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    tt->mutable_shape()->add_dim()->set_dim_value(1);
  };
  value(g->add_input(), "x0");
  for (int i = 0; i < kChainNodes; ++i) {
    auto* n = g->add_node();
    n->set_op_type("Neg");
    n->add_input(str_cat("x", i));
    n->add_output(str_cat("x", i + 1));
  }
  value(g->add_output(), str_cat("x", kChainNodes));
  return m;
}

// Sums the kernel times of a run.
class KernelTime final : public RunObserver {
 public:
  void on_kernel(const KernelEvent& e) override { ns += e.end_ns - e.start_ns; }
  int64_t ns = 0;
};

// Per device: the median over `reps` runs of (run latency - kernel time) /
// nodes, with every node pinned to the device.
StatusOr<std::vector<double>> measure_overhead_us(const std::string& devices, int reps) {
  onnx::ModelProto proto = chain_model();
  auto loaded = OnnxLoader().load_proto(proto, "<overhead model>", "");
  if (!loaded.ok()) return loaded.status();
  std::shared_ptr<const Model> model(std::move(loaded).value());
  auto pin = std::make_shared<PinPolicy>();
  SessionOptions opts;
  opts.devices = devices;
  opts.custom_policy = pin;
  ASSIGN_OR_RETURN(std::unique_ptr<Session> s, Session::create(model, opts));
  ASSIGN_OR_RETURN(Tensor x, Tensor::host(DataType::kFloat, Dims{1}));
  x.data<float>()[0] = 1;
  const std::map<std::string, RuntimeValue> inputs = {{"x0", RuntimeValue(x)}};
  std::vector<double> out;
  for (size_t d = 0; d < s->devices().size(); ++d) {
    pin->pin(static_cast<int>(d));
    std::vector<double> per_node;
    for (int r = 0; r < reps + 3; ++r) {
      KernelTime kt;
      RunOptions ro;
      ro.observer = &kt;
      ASSIGN_OR_RETURN(RunResult res, s->run(inputs, ro));
      if (r >= 3) per_node.push_back(std::max<double>(0, static_cast<double>(res.latency_ns - kt.ns)) / 1e3 / kChainNodes);
    }
    out.push_back(median(per_node));
  }
  return out;
}

// Kernel times by (op, device, work) from whole-model runs.
class ModelRecorder final : public RunObserver {
 public:
  void on_kernel(const KernelEvent& e) override {
    if (record) times_[{e.node->op_key(), e.device_index, e.work}].push_back(static_cast<double>(e.end_ns - e.start_ns) / 1e3);
  }
  void append_to(std::vector<MeasuredKernel>& out) const {
    for (const auto& [k, us] : times_) out.push_back({std::get<0>(k), std::get<1>(k), std::get<2>(k), median(us)});
  }
  bool record = false;

 private:
  std::map<std::tuple<std::string, int, double>, std::vector<double>> times_;
};

// Runs each model with each device pinned in turn, on the random inputs
// `bench` draws with the same seed, and records every kernel's time at the
// shapes the model really has: shape effects that the work size alone
// misses (a 32x32x32 MatMul is slower here than a 1x192x1024 one).
Status measure_models(const std::vector<std::string>& paths, const std::string& devices, int reps,
                      std::vector<MeasuredKernel>& out, bool quiet) {
  auto pin = std::make_shared<PinPolicy>();
  ModelRecorder rec;
  RunOptions ro;
  ro.observer = &rec;
  for (const std::string& path : paths) {
    auto loaded = OnnxLoader().load_file(path);
    if (!loaded.ok()) return loaded.status();
    std::shared_ptr<const Model> model(std::move(loaded).value());
    SessionOptions opts;
    opts.devices = devices;
    opts.custom_policy = pin;
    opts.learn_costs = true;  // so the run loop computes each kernel's work size
    ASSIGN_OR_RETURN(std::unique_ptr<Session> s, Session::create(model, opts));
    std::mt19937_64 rng(0);
    ASSIGN_OR_RETURN(auto inputs, random_inputs(*model->graph, {}, rng));
    for (size_t d = 0; d < s->devices().size(); ++d) {
      if (!quiet) std::fprintf(stderr, "calibrating %s on %s: %d runs\n", path.c_str(), s->devices()[d]->id().to_string().c_str(), reps);
      pin->pin(static_cast<int>(d));
      for (int r = 0; r < reps + 2; ++r) {
        rec.record = r >= 2;
        auto res = s->run(inputs, ro);
        if (!res.ok()) return res.status().with_context(path);
      }
    }
  }
  rec.append_to(out);
  return OkStatus();
}

}  // namespace

int cmd_calibrate(const CalibrateArgs& a) {
  // Bad input is reported before anything is measured.
  auto devs = create_devices(a.devices);
  if (!devs.ok()) return report_error("--devices '" + a.devices + "': " + devs.status().message(), kExitBadInput);
  devs->clear();  // the session creates its own
  std::vector<std::string> model_paths;
  if (!a.models.empty()) {
    if (a.sim.empty()) return report_error("--models needs --sim: model kernels go into the simulation profile", kExitBadInput);
    auto paths = expand_models(a.models);
    if (!paths.ok()) return report_error(paths.status().message(), kExitBadInput);
    model_paths = std::move(paths).value();
  }
  for (const std::string& file : {a.out, a.sim}) {
    const fs::path out_dir = fs::path(file).parent_path();
    std::error_code ec;
    if (!file.empty() && !out_dir.empty() && !fs::is_directory(out_dir, ec))
      return report_error("cannot write '" + file + "': folder '" + out_dir.string() + "' does not exist", kExitBadInput);
  }

  const int warmup = a.quick ? 1 : 2;
  const int reps = a.reps > 0 ? a.reps : (a.quick ? 3 : 10);
  const int held_out = a.quick ? 2 : 3;

  CalibrationModel cm(a.quick);
  auto loaded = OnnxLoader().load_proto(cm.proto(), "<calibration model>", "");
  if (!loaded.ok()) return report_error("calibration model: " + loaded.status().message(), kExitFailed);
  std::shared_ptr<const Model> model(std::move(loaded).value());

  auto pin = std::make_shared<PinPolicy>();
  SessionOptions opts;
  opts.devices = a.devices;
  opts.custom_policy = pin;
  auto session = Session::create(model, opts);
  if (!session.ok()) return report_error(session.status().message(), kExitFailed);
  Session& s = **session;
  const std::vector<Device*>& devices = s.devices();

  std::mt19937_64 rng(0);
  auto inputs = random_inputs(*model->graph, {}, rng);
  if (!inputs.ok()) return report_error("calibration inputs: " + inputs.status().message(), kExitFailed);

  CostModel cost;
  Recorder rec(*model->graph, devices, cost);
  RunOptions ro;
  ro.observer = &rec;
  for (size_t d = 0; d < devices.size(); ++d) {
    pin->pin(static_cast<int>(d));
    if (!a.quiet)
      std::fprintf(stderr, "calibrating %s: %zu kernels x %d runs\n", devices[d]->id().to_string().c_str(),
                   cm.probes().size(), reps);
    const std::pair<Recorder::Mode, int> phases[] = {
        {Recorder::Mode::kIgnore, warmup}, {Recorder::Mode::kLearn, reps}, {Recorder::Mode::kHoldOut, held_out}};
    for (auto [mode, n] : phases) {
      rec.set_mode(mode);
      for (int r = 0; r < n; ++r) {
        auto res = s.run(*inputs, ro);
        if (!res.ok()) return report_error("calibration run on " + devices[d]->id().to_string() + ": " +
                                               res.status().message(), kExitFailed);
      }
    }
  }
  rec.set_mode(Recorder::Mode::kIgnore);

  // Links last, with the session idle.
  auto links = measure_links(devices);
  if (!links.ok()) return report_error(links.status().message(), kExitFailed);
  Topology topo = s.topology();
  for (const MeasuredLink& l : *links) {
    int from = topo.index_of(l.from), to = topo.index_of(l.to);
    if (from >= 0 && to >= 0) topo.set_link(from, to, l.link);
  }
  cost.set_topology(topo);
  if (Status st = cost.save(a.out); !st.ok()) return report_error(st.message(), kExitBadInput);

  if (!a.sim.empty()) {
    MeasuredMachine mm;
    mm.devices = devices;
    mm.links = *links;
    auto overhead = measure_overhead_us(a.devices, reps);
    if (!overhead.ok()) return report_error("overhead runs: " + overhead.status().message(), kExitFailed);
    mm.launch_us = std::move(overhead).value();
    for (const auto& [key, e] : rec.entries())
      if (!e.learned_us.empty()) mm.kernels.push_back({key.first->op_key(), key.second, e.work, median(e.learned_us)});
    if (Status st = measure_models(model_paths, a.devices, reps, mm.kernels, a.quiet); !st.ok())
      return report_error("calibrating on models: " + st.message(), kExitFailed);
    mm.source = "measured by 'switchyard calibrate --devices " + a.devices + (a.quick ? " --quick" : "") +
                "': kernel medians over " + std::to_string(reps) + " runs per device, each device alone; links by "
                "timed copies; launch_us = run time per node beyond the kernel, from a chain of " +
                std::to_string(kChainNodes) + " one-element nodes" +
                (model_paths.empty() ? std::string() : "; plus every kernel of the models given with --models, "
                                                       "pinned to each device in turn, on bench's seed-0 inputs");
    if (Status st = write_sim_profile(a.sim, mm); !st.ok()) return report_error(st.message(), kExitBadInput);
    if (!a.quiet) {
      for (size_t d = 0; d < devices.size(); ++d)
        std::printf("runtime overhead on %s: %.2f us per node\n", devices[d]->id().to_string().c_str(), mm.launch_us[d]);
      std::printf("wrote simulation profile %s\n", a.sim.c_str());
    }
  }

  if (!a.quiet) {
    std::printf("%-10s %-24s %-7s %12s %12s %8s\n", "op", "size", "device", "median us", "predicted us", "samples");
    const Graph& g = *model->graph;
    std::map<std::string, const Node*> by_output;
    for (const Node& n : g.nodes())
      if (!n.outputs.empty() && n.outputs[0] != kNoValue) by_output[g.value(n.outputs[0]).name] = &n;
    for (size_t p = 0; p < cm.probes().size(); ++p) {
      auto found = by_output.find(cm.probes()[p].output);
      if (found == by_output.end()) continue;
      const Node& n = *found->second;
      for (size_t d = 0; d < devices.size(); ++d) {
        const Recorder::Entry* e = rec.entry(&n, static_cast<int>(d));
        if (!e || e->learned_us.empty()) continue;
        std::printf("%-10s %-24s %-7s %12.2f %12.2f %8zu\n", cm.probes()[p].op.c_str(), cm.probes()[p].size.c_str(),
                    devices[d]->id().to_string().c_str(), median(e->learned_us), cost.predict_us(e->slot, e->work),
                    e->learned_us.size());
      }
    }
    for (const MeasuredLink& l : *links)
      std::printf("link %s -> %s: %.2f GB/s, %.2f us latency\n", l.from.to_string().c_str(), l.to.to_string().c_str(),
                  l.link.bandwidth_gbps, l.link.latency_us);
    if (links->empty()) std::printf("links: none (the devices share one memory space)\n");
    const PredictionError online = cost.error();
    std::vector<double> ho = rec.held_out_errors();
    double ho_mean = 0;
    for (double x : ho) ho_mean += x;
    if (!ho.empty()) ho_mean /= static_cast<double>(ho.size());
    std::printf("prediction error while learning (each sample predicted before it was recorded): mean %.1f%%, "
                "recent median %.1f%%, %lld samples\n",
                100 * online.mean_abs_rel, 100 * online.median_abs_rel, static_cast<long long>(online.samples));
    std::printf("prediction error on %zu held-out samples: mean %.1f%%, median %.1f%%\n", ho.size(), 100 * ho_mean,
                100 * median(ho));
    std::printf("wrote %s\n", a.out.c_str());
  }
  return kExitOk;
}

}  // namespace sy

// `switchyard bench`: compares placement policies on the same models, the
// same devices and the same (random, seeded) inputs, and prints one table.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/random_inputs.h"
#include "devices/cuda/cuda_backend.h"
#include "devices/value_compare.h"
#include "executor/makespan_bound.h"
#include "executor/session.h"
#include "ir/onnx_loader.h"

namespace sy {

namespace {

namespace fs = std::filesystem;
using SteadyTime = std::chrono::steady_clock;

// Policies that decide placement without run-time measurements; the first
// one listed is the baseline the speed-up column divides by.
bool is_static_baseline(const std::string& p) { return p == "cpu" || p == "single" || p == "ort" || p == "static-heft"; }

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) {
    const auto b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
  }
  return out;
}

// Short name for the table: a model stored as <case>/model.onnx is called
// after its folder, anything else after its file.
std::string display_name(const fs::path& p) {
  if (p.filename() == "model.onnx" && p.has_parent_path() && !p.parent_path().filename().empty())
    return p.parent_path().filename().string();
  return p.stem().string();
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// A one-line bar redrawn in place on stderr. Drawn only when stderr is a
// terminal (logs and test captures stay clean) and only once the work has
// taken a second, so quick benches print nothing extra.
class ProgressBar {
 public:
  explicit ProgressBar(int64_t total) : total_(std::max<int64_t>(total, 1)), enabled_(::isatty(STDERR_FILENO) == 1) {}
  ~ProgressBar() { finish(); }
  // Thread-safe.
  void advance(const std::string& label) {
    const int64_t done = done_.fetch_add(1, std::memory_order_relaxed) + 1;
    if (!enabled_) return;
    const auto now = SteadyTime::now();
    std::lock_guard<std::mutex> l(mu_);
    if (now - start_ < std::chrono::seconds(1) || (drawn_ && now - last_ < std::chrono::milliseconds(100))) return;
    last_ = now;
    drawn_ = true;
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(kWidth * done / total_);
    std::fprintf(stderr, "\r[%s%s] %3d%% %-40.40s", std::string(static_cast<size_t>(filled), '#').c_str(),
                 std::string(static_cast<size_t>(kWidth - filled), ' ').c_str(), static_cast<int>(100 * done / total_),
                 label.c_str());
    std::fflush(stderr);
  }
  void finish() {
    std::lock_guard<std::mutex> l(mu_);
    if (drawn_) std::fprintf(stderr, "\r%80s\r", "");
    drawn_ = false;
  }

 private:
  const int64_t total_;
  const bool enabled_;
  std::atomic<int64_t> done_{0};
  std::mutex mu_;
  SteadyTime::time_point start_ = SteadyTime::now(), last_;
  bool drawn_ = false;
};

struct Row {
  std::string model, path, policy;
  bool ok = true;
  std::string error;
  std::vector<double> latency_ms;  // in completion order
  double p50 = 0, p95 = 0, mean = 0, wall_s = 0, throughput = 0;
  double speedup = NAN;  // NaN: no baseline for this model
  double bytes_per_run = 0, copies_per_run = 0, control_nodes_per_run = 0, loop_iterations_per_run = 0;
  std::vector<std::string> device_names;
  std::vector<double> nodes_per_device;  // mean per run
  // Median |predicted - measured| / measured of the session's cost model
  // over its recent kernels; NaN when it made no prediction.
  double prediction_error = NAN;
  // Simulation only: the lower bound of the last run's executed DAG, and
  // that run's makespan over it.
  double bound_ms = NAN, over_bound = NAN;
  std::vector<RuntimeValue> outputs;  // of the first timed run, until checked
  // "ref" (the policy the others are compared with), "same", "DIFF", or
  // "-" (not checked).
  std::string check = "-";
};

std::string placement_str(const Row& r) {
  std::string s;
  for (size_t d = 0; d < r.device_names.size(); ++d) {
    const double n = r.nodes_per_device[d];
    s += (d ? " " : "") + r.device_names[d] + "=" + (std::abs(n - std::round(n)) < 1e-9 ? fmt("%.0f", n) : fmt("%.1f", n));
  }
  return s;
}

struct Loaded {
  std::string path, name;
  std::shared_ptr<const Model> model;
  std::map<std::string, RuntimeValue> inputs;
};

// Warm-up and timed runs of one (model, policy); fills the row's figures.
Status bench_one(const Session& s, const Loaded& m, const BenchArgs& a, ProgressBar& bar, Row& row) {
  const std::string label = m.name + "/" + row.policy;
  for (int w = 0; w < a.warmup; ++w) {
    auto r = s.run(m.inputs);
    if (!r.ok()) return r.status().with_context("warm-up run");
    bar.advance(label);
  }
  const int threads = std::min(a.concurrency, a.runs);
  std::vector<double> lat(static_cast<size_t>(a.runs), 0);
  std::vector<RunStats> stats(static_cast<size_t>(a.runs));
  std::atomic<int> next{0};
  std::atomic<bool> failed{false};
  std::mutex err_mu;
  Status err;
  // Simulated runs are serial (threads == 1), so the last one is known.
  std::optional<MakespanBound> bound;
  if (s.simulator()) bound.emplace(MakespanBound::for_simulator(*s.simulator()));
  auto worker = [&] {
    for (int i = next.fetch_add(1); i < a.runs && !failed.load(); i = next.fetch_add(1)) {
      RunOptions ro;
      if (bound && i + 1 == a.runs) ro.observer = &*bound;
      auto r = s.run(m.inputs, ro);
      if (!r.ok()) {
        std::lock_guard<std::mutex> l(err_mu);
        if (err.ok()) err = r.status().with_context("run " + std::to_string(i + 1));
        failed.store(true);
        return;
      }
      if (i == 0) row.outputs = std::move(r->outputs);
      lat[static_cast<size_t>(i)] = static_cast<double>(r->latency_ns) / 1e6;
      stats[static_cast<size_t>(i)] = std::move(r->stats);
      bar.advance(label);
    }
  };
  const auto t0 = SteadyTime::now();
  if (threads == 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  row.wall_s = std::chrono::duration<double>(SteadyTime::now() - t0).count();
  if (!err.ok()) return err;
  if (const PredictionError e = s.cost_model().error(); e.samples > 0) row.prediction_error = e.median_abs_rel;

  const double n = static_cast<double>(a.runs);
  row.latency_ms = lat;
  row.p50 = percentile(lat, 50);
  row.p95 = percentile(lat, 95);
  for (double x : lat) row.mean += x / n;
  if (bound) {
    // Virtual time: the wall clock measures the simulator, not the machine.
    row.wall_s = row.mean * n / 1e3;
    row.bound_ms = bound->result().bound_us() / 1e3;
    if (row.bound_ms > 0) row.over_bound = lat.back() / row.bound_ms;
  }
  row.throughput = row.wall_s > 0 ? n / row.wall_s : 0;
  for (Device* d : s.devices()) row.device_names.push_back(d->id().to_string());
  row.nodes_per_device.assign(row.device_names.size(), 0);
  // Integer totals first, one division last: exact for static placements.
  int64_t bytes = 0, copies = 0, control = 0, iterations = 0;
  std::vector<int64_t> nodes(row.device_names.size(), 0);
  for (const RunStats& st : stats) {
    bytes += st.bytes_copied;
    copies += st.copies;
    control += st.control_nodes;
    iterations += st.loop_iterations;
    for (size_t d = 0; d < nodes.size() && d < st.nodes_per_device.size(); ++d) nodes[d] += st.nodes_per_device[d];
  }
  row.bytes_per_run = static_cast<double>(bytes) / n;
  row.copies_per_run = static_cast<double>(copies) / n;
  row.control_nodes_per_run = static_cast<double>(control) / n;
  row.loop_iterations_per_run = static_cast<double>(iterations) / n;
  for (size_t d = 0; d < nodes.size(); ++d) row.nodes_per_device[d] = static_cast<double>(nodes[d]) / n;
  return OkStatus();
}

// Compares the outputs of rows[first..] with those of the first row that
// ran: placement must never change what a model computes. Marks each row,
// reports a difference on stderr, and frees the outputs. False if any
// policy's outputs differ.
bool check_outputs(const Graph& g, std::vector<Row>& rows, size_t first) {
  // GPU kernels sum in other orders than CPU kernels: float32 results of
  // long reductions agree to about 1e-4 relative, not bit for bit.
  const Tolerance tol{1e-3, 1e-4};
  const Row* ref = nullptr;
  bool all_same = true;
  for (size_t i = first; i < rows.size(); ++i) {
    Row& r = rows[i];
    if (!r.ok) continue;
    if (!ref) {
      ref = &r;
      r.check = "ref";
      continue;
    }
    r.check = "same";
    for (size_t o = 0; o < r.outputs.size() && o < ref->outputs.size(); ++o) {
      const std::string diff = compare_values(r.outputs[o], ref->outputs[o], tol);
      if (diff.empty()) continue;
      r.check = "DIFF";
      all_same = false;
      report_error(r.model + " with policy '" + r.policy + "': output '" + g.value(g.outputs()[o]).name +
                       "' differs from policy '" + ref->policy + "': " + diff,
                   kExitFailed);
      break;
    }
  }
  for (size_t i = first; i < rows.size(); ++i) rows[i].outputs.clear();
  return all_same;
}

void print_table(const std::vector<Row>& rows, bool simulated) {
  std::vector<std::string> head = {"model",     "policy",     "p50 ms",   "p95 ms",  "mean ms", "runs/s",
                                   "speed-up",  "bytes/run",  "copies/run", "pred err", "outputs",
                                   "placement (nodes/run)"};
  // Simulation adds the lower bound and the makespan over it, before the
  // placement.
  if (simulated) head.insert(head.end() - 1, {"bound ms", "x bound"});
  std::vector<std::vector<std::string>> cells;
  for (const Row& r : rows) {
    if (!r.ok) {
      cells.push_back({r.model, r.policy, "failed"});
      cells.back().resize(head.size(), "-");
      continue;
    }
    // Four significant digits: models range from microseconds to seconds.
    cells.push_back({r.model, r.policy, fmt("%.4g", r.p50), fmt("%.4g", r.p95), fmt("%.4g", r.mean),
                     fmt("%.1f", r.throughput), std::isnan(r.speedup) ? "-" : fmt("%.2f", r.speedup),
                     fmt("%.0f", r.bytes_per_run), fmt("%.1f", r.copies_per_run),
                     std::isnan(r.prediction_error) ? "-" : fmt("%.0f%%", 100 * r.prediction_error), r.check,
                     placement_str(r)});
    if (simulated)
      cells.back().insert(cells.back().end() - 1, {std::isnan(r.bound_ms) ? "-" : fmt("%.4g", r.bound_ms),
                                                   std::isnan(r.over_bound) ? "-" : fmt("%.2f", r.over_bound)});
  }
  std::vector<size_t> w(head.size());
  for (size_t c = 0; c < head.size(); ++c) {
    w[c] = head[c].size();
    for (const auto& row : cells) w[c] = std::max(w[c], row[c].size());
  }
  // Text columns left-aligned, numbers right-aligned; placement is last
  // and unpadded.
  auto line = [&](const std::vector<std::string>& v) {
    std::string s;
    for (size_t c = 0; c < v.size(); ++c) {
      const bool left = c < 2 || c + 1 == v.size();
      const std::string pad(w[c] - v[c].size(), ' ');
      s += (c ? "  " : "") + (c + 1 == v.size() ? v[c] : left ? v[c] + pad : pad + v[c]);
    }
    std::printf("%s\n", s.c_str());
  };
  line(head);
  for (const auto& row : cells) line(row);
}

}  // namespace

int cmd_bench(const BenchArgs& a) {
  // Everything that can be wrong with the arguments is found before the
  // first timed run.
  const std::vector<std::string> policies = split_list(a.policies);
  if (policies.empty()) return report_error("--policies is empty", kExitBadInput);
  for (size_t i = 0; i < policies.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (policies[i] == policies[j]) return report_error("policy '" + policies[i] + "' listed twice", kExitBadInput);
  for (const std::string& p : policies) {
    PolicyOptions po;
    po.seed = a.seed;
    auto made = PolicyRegistry::builtin().create(p, po);
    if (!made.ok()) return report_error(made.status().message(), kExitBadInput);
  }
  if (Status st = check_devices(a.devices, a.simulate); !st.ok()) return report_error(st.message(), kExitBadInput);
  if (!a.simulate.empty() && a.concurrency > 1)
    return report_error("--concurrency must be 1 with --simulate: a simulated machine has one timeline", kExitBadInput);
  auto parsed_dims = parse_dims(a.dims);
  if (!parsed_dims.ok()) return report_error(parsed_dims.status().message(), kExitBadInput);
  const std::map<std::string, int64_t> dims = std::move(parsed_dims).value();
  if (!a.profile.empty()) {
    std::error_code ec;
    if (!fs::exists(a.profile, ec))
      return report_error("cost profile '" + a.profile + "' not found (write one with 'switchyard calibrate')",
                          kExitBadInput);
    if (!fs::is_regular_file(a.profile, ec))
      return report_error("cost profile '" + a.profile + "' is not a regular file", kExitBadInput);
  }
  if (!a.json.empty()) {
    const fs::path dir = fs::path(a.json).parent_path();
    std::error_code ec;
    if (!dir.empty() && !fs::is_directory(dir, ec))
      return report_error("cannot write '" + a.json + "': folder '" + dir.string() + "' does not exist", kExitBadInput);
  }
  auto paths = expand_models(a.models);
  if (!paths.ok()) return report_error(paths.status().message(), kExitBadInput);
  // The inputs are made before any session: for a GPU, in page-locked
  // memory, as a session would have them made after it.
  if (a.simulate.empty() && !cpu_devices_only(a.devices, a.simulate))
    if (Status s = use_pinned_host_memory(); !s.ok()) return report_error(s.message(), kExitBadInput);

  std::vector<Loaded> models;
  LoadOptions load;
  load.fuse_ops = a.fuse;
  load.channels_last = a.fuse && a.channels_last && cpu_devices_only(a.devices, a.simulate);
  for (const std::string& p : *paths) {
    auto loaded = OnnxLoader(load).load_file(p);
    if (!loaded.ok()) return report_error(loaded.status().message(), kExitBadInput);
    Loaded m;
    m.path = p;
    m.name = display_name(p);
    m.model = std::shared_ptr<const Model>(std::move(loaded).value());
    // Seeded per model, so a model's inputs do not depend on which other
    // models are benchmarked with it.
    std::mt19937_64 rng(a.seed);
    auto in = random_inputs(*m.model->graph, dims, rng);
    if (!in.ok()) return report_error(p + ": " + in.status().message(), kExitBadInput);
    m.inputs = std::move(in).value();
    models.push_back(std::move(m));
  }
  {
    std::vector<const Graph*> graphs;
    for (const Loaded& m : models) graphs.push_back(m.model->graph.get());
    if (Status s = check_dims_named(dims, graphs); !s.ok()) return report_error(s.message(), kExitBadInput);
  }

  std::string baseline, static_list;
  for (const std::string& p : policies) {
    if (baseline.empty() && is_static_baseline(p)) baseline = p;
    if (is_static_baseline(p)) static_list += (static_list.empty() ? "" : ",") + p;
  }
  if (baseline.empty()) baseline = policies.front();
  if (static_list.empty()) static_list = "none";
  const bool simulated = !a.simulate.empty();

  ProgressBar bar(static_cast<int64_t>(models.size() * policies.size()) * (a.warmup + a.runs));
  std::vector<Row> rows;
  bool any_failed = false;
  for (const Loaded& m : models) {
    const size_t first = rows.size();
    for (const std::string& p : policies) {
      Row row;
      row.model = m.name;
      row.path = m.path;
      row.policy = p;
      SessionOptions opts;
      opts.policy = p;
      opts.policy_options.seed = a.seed;
      opts.devices = a.devices;
      opts.simulate = a.simulate;
      opts.profile = a.profile;
      auto session = Session::create(m.model, opts);
      if (!session.ok()) {
        bar.finish();
        return report_error(m.path + " with policy '" + p + "': " + session.status().message(), kExitBadInput);
      }
      if (Status st = (*session)->validate_inputs(m.inputs); !st.ok()) {
        bar.finish();
        return report_error(m.path + ": " + st.message(), kExitBadInput);
      }
      if (Status st = bench_one(**session, m, a, bar, row); !st.ok()) {
        // A runtime fault fails this row, not the whole comparison.
        row.ok = false;
        row.error = st.message();
        any_failed = true;
        bar.finish();
        report_error(m.name + " with policy '" + p + "': " + st.message(), kExitFailed);
      }
      rows.push_back(std::move(row));
    }
    if (a.check && !check_outputs(*m.model->graph, rows, first)) any_failed = true;
    // Real timings: the first static policy listed (picking the best of
    // noisy figures would flatter the baseline). Simulated: the best static
    // policy, since the figures are exact.
    const Row* base = nullptr;
    for (size_t i = first; i < rows.size(); ++i) {
      const Row& r = rows[i];
      if (!r.ok) continue;
      if (simulated ? is_static_baseline(r.policy) && (!base || r.mean < base->mean) : r.policy == baseline) base = &r;
    }
    for (size_t i = first; i < rows.size(); ++i)
      if (base && rows[i].ok && rows[i].mean > 0) rows[i].speedup = base->mean / rows[i].mean;
  }
  bar.finish();

  print_table(rows, simulated);
  if (simulated) {
    std::printf("simulated %s; virtual time; %d runs after %d warm-up, seed %llu; speed-up = mean of the best static "
                "policy listed (%s) / mean; bound = lower bound on the last run's executed DAG, x bound = that run's "
                "makespan / bound\n",
                a.simulate.c_str(), a.runs, a.warmup, static_cast<unsigned long long>(a.seed), static_list.c_str());
  } else {
    std::printf("devices %s; %d runs after %d warm-up, concurrency %d, seed %llu; speed-up = mean of '%s' / mean\n",
                a.devices.c_str(), a.runs, a.warmup, std::min(a.concurrency, a.runs),
                static_cast<unsigned long long>(a.seed), baseline.c_str());
  }

  if (!a.json.empty()) {
    nlohmann::json jr = nlohmann::json::array();
    for (const Row& r : rows) {
      nlohmann::json j = {{"model", r.model}, {"path", r.path}, {"policy", r.policy}, {"ok", r.ok}};
      if (!r.ok) {
        j["error"] = r.error;
      } else {
        nlohmann::json per = nlohmann::json::object();
        for (size_t d = 0; d < r.device_names.size(); ++d) per[r.device_names[d]] = r.nodes_per_device[d];
        j.update({{"p50_ms", r.p50},
                  {"p95_ms", r.p95},
                  {"prediction_error", std::isnan(r.prediction_error) ? nlohmann::json() : nlohmann::json(r.prediction_error)},
                  {"mean_ms", r.mean},
                  {"throughput_rps", r.throughput},
                  {"wall_s", r.wall_s},
                  {"speedup", std::isnan(r.speedup) ? nlohmann::json(nullptr) : nlohmann::json(r.speedup)},
                  {"bound_ms", std::isnan(r.bound_ms) ? nlohmann::json(nullptr) : nlohmann::json(r.bound_ms)},
                  {"makespan_over_bound", std::isnan(r.over_bound) ? nlohmann::json(nullptr) : nlohmann::json(r.over_bound)},
                  {"bytes_copied_per_run", r.bytes_per_run},
                  {"copies_per_run", r.copies_per_run},
                  {"control_nodes_per_run", r.control_nodes_per_run},
                  {"loop_iterations_per_run", r.loop_iterations_per_run},
                  {"nodes_per_device", per},
                  {"outputs_check", r.check},
                  {"latency_ms", r.latency_ms}});
      }
      jr.push_back(std::move(j));
    }
    nlohmann::json doc = {{"devices", simulated ? nlohmann::json(nullptr) : nlohmann::json(a.devices)},
                          {"simulate", simulated ? nlohmann::json(a.simulate) : nlohmann::json(nullptr)},
                          {"policies", policies},
                          {"baseline", simulated ? "best static" : baseline},
                          {"runs", a.runs},       {"warmup", a.warmup},   {"concurrency", std::min(a.concurrency, a.runs)},
                          {"seed", a.seed},       {"profile", a.profile}, {"rows", std::move(jr)}};
    std::ofstream out(a.json);
    if (!out) return report_error("cannot write '" + a.json + "'", kExitBadInput);
    out << doc.dump(2) << "\n";
    if (!out) return report_error("write to '" + a.json + "' failed", kExitFailed);
  }
  return any_failed ? kExitFailed : kExitOk;
}

}  // namespace sy

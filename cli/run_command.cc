// `switchyard run` and `switchyard info`.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/random_inputs.h"
#include "cli/tensor_io.h"
#include "devices/cuda/cuda_backend.h"
#include "executor/decision_log.h"
#include "executor/session.h"
#include "executor/trace_writer.h"
#include "ir/onnx_loader.h"

namespace sy {
namespace fs = std::filesystem;

int report_error(const std::string& msg, int code) {
  std::cerr << "error: " << msg << std::endl;
  return code;
}

namespace {

bool split_kv(const std::string& s, std::string* k, std::string* v) {
  auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  *k = s.substr(0, eq);
  *v = s.substr(eq + 1);
  return true;
}

std::string safe_file_name(const std::string& name) {
  std::string s = name;
  for (char& c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) c = '_';
  return s.empty() ? "output" : s;
}

std::string preview(const Tensor& t) {
  std::string s = t.describe();
  if (t.dtype() == DataType::kString || t.numel() == 0) return s;
  s += " [";
  const int64_t n = std::min<int64_t>(t.numel(), 6);
  for (int64_t i = 0; i < n; ++i) {
    char buf[32];
    const char* sep = i ? ", " : "";
    // Integers exactly: %g printed a count of 10^8 as 1e+08.
    if (dtype_is_signed(t.dtype()) && dtype_is_integer(t.dtype()))
      std::snprintf(buf, sizeof buf, "%s%lld", sep, static_cast<long long>(t.int_at(i)));
    else if (dtype_is_integer(t.dtype()))
      std::snprintf(buf, sizeof buf, "%s%llu", sep, static_cast<unsigned long long>(t.int_at(i)));  // uint64 whole
    else
      std::snprintf(buf, sizeof buf, "%s%.6g", sep, t.double_at(i));
    s += buf;
  }
  return s + (t.numel() > n ? ", ...]" : "]");
}

// Share of the run's wall time a device spent in kernels.
double busy_percent(const RunResult& r, size_t d) {
  if (r.latency_ns <= 0) return 0;
  return 100.0 * static_cast<double>(r.stats.busy_ns_per_device[d]) / static_cast<double>(r.latency_ns);
}

}  // namespace

int cmd_run(const RunArgs& a) {
  LoadOptions load;
  load.fuse_ops = a.fuse;
  load.channels_last = a.fuse && a.channels_last && cpu_devices_only(a.devices, a.simulate);
  auto loaded = OnnxLoader(load).load_file(a.model);
  if (!loaded.ok()) return report_error(loaded.status().message(), kExitBadInput);
  std::shared_ptr<const Model> model(std::move(loaded).value());
  SessionOptions opts;
  opts.policy = a.policy;
  opts.policy_options.seed = a.seed;
  opts.devices = a.devices;
  opts.simulate = a.simulate;
  opts.profile = a.profile;
  opts.learn_costs = !a.profile.empty();
  {
    auto dims = parse_dims(a.dims);
    if (!dims.ok()) return report_error(dims.status().message(), kExitBadInput);
    opts.dims = std::move(dims).value();
  }
  if (Status s = check_dims_named(opts.dims, {model->graph.get()}); !s.ok())
    return report_error(s.message(), kExitBadInput);
  auto session = Session::create(model, opts);
  if (!session.ok()) return report_error(session.status().message(), kExitBadInput);
  const Graph& g = *model->graph;

  std::map<std::string, RuntimeValue> inputs;
  for (const auto& spec : a.inputs) {
    std::string name, file;
    if (!split_kv(spec, &name, &file)) return report_error("--input expects NAME=FILE, got '" + spec + "'", kExitBadInput);
    if (!g.find_value(name) || !g.value(*g.find_value(name)).is_graph_input)
      return report_error("model has no input named '" + name + "'", kExitBadInput);
    auto v = read_value_file(file, &g.value(*g.find_value(name)).type);
    if (!v.ok()) return report_error(v.status().message(), kExitBadInput);
    inputs[name] = std::move(v).value();
  }
  std::mt19937_64 rng(a.seed);
  for (ValueId id : g.inputs()) {
    const ValueInfo& info = g.value(id);
    if (inputs.count(info.name) || info.initializer >= 0) continue;
    if (!a.random_inputs)
      return report_error("missing input '" + info.name + "' (" + info.type.to_string() +
                              "); give it with --input " + info.name + "=FILE or use --random-inputs",
                          kExitBadInput);
    auto t = random_tensor(info, opts.dims, rng);
    if (!t.ok()) return report_error(t.status().message(), kExitBadInput);
    inputs[info.name] = RuntimeValue(std::move(t).value());
  }

  if (Status s = (*session)->validate_inputs(inputs); !s.ok()) return report_error(s.message(), kExitBadInput);
  // Trace and decisions cover the last run only, so repeated runs (-n) show
  // the steady state rather than the first, cold one.
  // Output files are checked before running, so a typo costs no run.
  if (!a.trace.empty() && !std::ofstream(a.trace))
    return report_error("cannot write trace '" + a.trace + "'", kExitBadInput);
  if (!a.report.empty() && !std::ofstream(a.report))
    return report_error("cannot write report '" + a.report + "'", kExitBadInput);
  if (!a.profile.empty()) {
    // Saved after the runs, into a folder that must exist.
    const fs::path dir = fs::path(a.profile).parent_path();
    std::error_code ec;
    if (!dir.empty() && !fs::is_directory(dir, ec))
      return report_error("cannot write cost profile '" + a.profile + "': folder '" + dir.string() + "' does not exist",
                          kExitBadInput);
  }
  std::vector<std::string> names;
  for (Device* d : (*session)->devices()) names.push_back(d->id().to_string());
  TraceWriter trace(names);
  DecisionLog decisions(names, std::string((*session)->policy().name()));
  ObserverList observers;
  if (!a.trace.empty()) observers.add(&trace);
  if (!a.decisions.empty()) {
    if (Status s = decisions.open(a.decisions); !s.ok()) return report_error(s.message(), kExitBadInput);
    observers.add(&decisions);
  }
  std::vector<double> lat_ms;
  RunResult last;
  for (int r = 0; r < a.runs; ++r) {
    RunOptions ro;
    // A positive limit under 1 ms still limits.
    if (a.timeout_s > 0) ro.timeout_ms = std::max<int64_t>(1, static_cast<int64_t>(a.timeout_s * 1000));
    if (r == a.runs - 1 && !observers.empty()) ro.observer = &observers;
    auto res = (*session)->run(inputs, ro);
    if (!res.ok()) return report_error(res.status().message(), kExitFailed);
    lat_ms.push_back(static_cast<double>(res->latency_ns) / 1e6);
    last = std::move(res).value();
  }
  if (!a.trace.empty())
    if (Status s = trace.write(a.trace); !s.ok()) return report_error(s.message(), kExitFailed);
  if (!a.decisions.empty())
    if (Status s = decisions.close(); !s.ok()) return report_error(s.message(), kExitFailed);
  if (!a.profile.empty())
    if (Status s = (*session)->save_profile(); !s.ok()) return report_error(s.message(), kExitFailed);

  if (!a.output_dir.empty()) {
    std::error_code ec;
    fs::create_directories(a.output_dir, ec);
    if (ec) return report_error("cannot create output folder '" + a.output_dir + "': " + ec.message(), kExitBadInput);
  }
  for (size_t i = 0; i < last.outputs.size(); ++i) {
    const std::string& name = g.value(g.outputs()[i]).name;
    const RuntimeValue& v = last.outputs[i];
    if (!a.quiet) {
      if (v.is_tensor()) std::cout << name << ": " << preview(v.tensor()) << "\n";
      else if (v.is_sequence()) std::cout << name << ": sequence of " << v.sequence()->items.size() << " tensors\n";
      else std::cout << name << ": (empty optional)\n";
    }
    if (!a.output_dir.empty()) {
      if (!v.is_tensor()) return report_error("output '" + name + "' is not a tensor and cannot be written as .npy", kExitFailed);
      Status s = write_npy((fs::path(a.output_dir) / (safe_file_name(name) + ".npy")).string(), v.tensor());
      if (!s.ok()) return report_error(s.message(), kExitFailed);
    }
  }
  double sum = 0;
  for (double x : lat_ms) sum += x;
  const double mean = sum / static_cast<double>(lat_ms.size());
  const auto& devs = (*session)->devices();
  if (!a.quiet) {
    if (const SimMachine* sim = (*session)->simulator())
      std::printf("simulated %s (virtual time)\n", sim->profile().describe().c_str());
    std::printf("runs: %d  latency ms: p50 %.3f  p95 %.3f  mean %.3f\n", a.runs, percentile(lat_ms, 50),
                percentile(lat_ms, 95), mean);
    if (const FusionCounts& f = model->fusions; f.channels_last_convs > 0)
      std::printf("channels-last (NHWC): %d Conv, %d pools, %d elementwise nodes (--no-channels-last: as written)\n",
                  f.channels_last_convs, f.channels_last_pools, f.channels_last_elementwise);
    std::printf("placement (%s):", std::string((*session)->policy().name()).c_str());
    for (size_t d = 0; d < devs.size(); ++d)
      std::printf(" %s=%lld", devs[d]->id().to_string().c_str(), static_cast<long long>(last.stats.nodes_per_device[d]));
    std::printf("  control-flow nodes=%lld  loop iterations=%lld\n", static_cast<long long>(last.stats.control_nodes),
                static_cast<long long>(last.stats.loop_iterations));
    std::printf("busy (last run):");
    for (size_t d = 0; d < devs.size(); ++d)
      std::printf(" %s=%.0f%%", devs[d]->id().to_string().c_str(), busy_percent(last, d));
    std::printf("  copies=%lld  bytes moved=%lld  overlapped hand-offs=%lld\n", static_cast<long long>(last.stats.copies),
                static_cast<long long>(last.stats.bytes_copied), static_cast<long long>(last.stats.handoffs));
    std::printf("peak memory (last run):");
    for (size_t d = 0; d < devs.size(); ++d)
      std::printf(" %s=%s", devs[d]->id().to_string().c_str(),
                  human_bytes(last.stats.peak_bytes_per_device[d]).c_str());
    std::printf("\n");
    if (last.stats.cpu_fallbacks > 0)
      std::printf("CPU fallbacks (accelerator kernels that declined the shapes): %lld\n",
                  static_cast<long long>(last.stats.cpu_fallbacks));
  }
  if (!a.report.empty()) {
    nlohmann::json j;
    j["model"] = a.model;
    j["policy"] = std::string((*session)->policy().name());
    j["runs"] = a.runs;
    j["latency_ms"] = lat_ms;
    j["p50_ms"] = percentile(lat_ms, 50);
    j["p95_ms"] = percentile(lat_ms, 95);
    j["mean_ms"] = mean;
    nlohmann::json per;
    nlohmann::json busy;
    for (size_t d = 0; d < devs.size(); ++d) {
      per[devs[d]->id().to_string()] = last.stats.nodes_per_device[d];
      busy[devs[d]->id().to_string()] = busy_percent(last, d);
    }
    j["nodes_per_device"] = per;
    j["busy_percent"] = busy;
    nlohmann::json peak;
    for (size_t d = 0; d < devs.size(); ++d) peak[devs[d]->id().to_string()] = last.stats.peak_bytes_per_device[d];
    j["peak_bytes"] = peak;
    j["copies"] = last.stats.copies;
    j["bytes_copied"] = last.stats.bytes_copied;
    j["cpu_fallbacks"] = last.stats.cpu_fallbacks;
    j["control_flow_nodes"] = last.stats.control_nodes;
    j["loop_iterations"] = last.stats.loop_iterations;
    std::ofstream out(a.report);
    if (!out) return report_error("cannot write report '" + a.report + "'", kExitBadInput);
    out << j.dump(2) << "\n";
  }
  return kExitOk;
}

namespace {
// What `info` says about a model's ops: counts, nesting, and which ops each
// kind of device has kernels for.
struct OpSurvey {
  std::map<std::string, int> counts;
  int depth = 0;
  std::set<std::string> no_kernel;  // not even the CPU has one
  bool with_cuda = cuda_compiled();
  int kernel_nodes = 0;                 // nodes that are not control flow
  int cuda_nodes = 0;                   // of those, with a CUDA kernel
  std::map<std::string, int> cpu_only;  // op: nodes without a CUDA kernel

  void walk(const Graph& g, int at, const KernelRegistry& reg) {
    depth = std::max(depth, at);
    for (const Node& n : g.nodes()) {
      std::string key = (n.domain.empty() ? "" : n.domain + "::") + n.op_type;
      counts[key]++;
      if (is_control_flow_op(n)) continue;
      ++kernel_nodes;
      if (!reg.find(n.domain, n.op_type, n.opset, DeviceKind::kCpu)) no_kernel.insert(key);
      if (!with_cuda) continue;
      auto cuda = choose_kernel(g, n, DeviceKind::kCuda, reg);
      if (cuda.ok() && cuda->kernel) ++cuda_nodes;
      else cpu_only[key]++;
    }
    for (const auto& sg : g.subgraphs()) walk(*sg, at + 1, reg);
  }
};
}  // namespace

int cmd_info(const std::string& path, bool fuse) {
  LoadOptions load;
  load.fuse_ops = fuse;
  auto loaded = OnnxLoader(load).load_file(path);
  if (!loaded.ok()) return report_error(loaded.status().message(), kExitBadInput);
  const Model& m = **loaded;
  const Graph& g = *m.graph;
  std::cout << "model: " << path << "\n";
  std::cout << "ir_version: " << m.ir_version << (m.producer.empty() ? "" : "  producer: " + m.producer) << "\n";
  std::cout << "opsets:";
  for (const auto& [d, v] : m.opsets) std::cout << " " << (d.empty() ? "ai.onnx" : d) << "=" << v;
  std::cout << "\ninputs:\n";
  for (ValueId id : g.inputs())
    std::cout << "  " << g.value(id).name << ": " << g.value(id).type.to_string()
              << (g.value(id).initializer >= 0 ? "  (has default initializer)" : "") << "\n";
  std::cout << "outputs:\n";
  for (ValueId id : g.outputs()) std::cout << "  " << g.value(id).name << ": " << g.value(id).type.to_string() << "\n";
  OpSurvey ops;
  ops.walk(g, 0, KernelRegistry::builtin());
  int total = 0;
  for (const auto& [op, c] : ops.counts) total += c;
  std::cout << "nodes: " << total << " (including subgraphs), initializers: " << g.initializers().size() << "\n";
  std::cout << "control-flow nesting depth: " << ops.depth << "\n";
  if (fuse) {
    std::cout << "fused at load: " << m.fusions.constants_folded << " Constant made initializers, "
              << m.fusions.batch_norms_folded << " BatchNormalization folded into Conv, " << m.fusions.residuals_fused
              << " Add into FusedConv, " << m.fusions.activations_fused << " Relu/Clip into FusedConv, "
              << m.fusions.gelus_fused << " Gelu and " << m.fusions.layer_norms_fused
              << " LayerNormalization from arithmetic\n";
    // What run and bench on CPUs rewrite besides: a second load, for
    // models with two convolutions or more (a part needs them).
    FusionCounts cl;
    if (ops.counts["Conv"] + ops.counts[std::string(kSwitchyardDomain) + "::" + kFusedConv] >= 2) {
      load.channels_last = true;
      auto again = OnnxLoader(load).load_file(path);
      if (!again.ok()) return report_error(again.status().message(), kExitBadInput);
      cl = (*again)->fusions;
    }
    std::cout << "channels-last on CPU-only devices (run, bench): " << cl.channels_last_convs << " Conv, "
              << cl.channels_last_pools << " pools, " << cl.channels_last_elementwise << " elementwise nodes\n";
  } else {
    std::cout << "fused at load: nothing (--no-fusion)\n";
  }
  std::cout << "op counts:\n";
  for (const auto& [op, c] : ops.counts) std::cout << "  " << op << ": " << c << "\n";
  if (ops.no_kernel.empty()) {
    std::cout << "kernels: every op has a CPU kernel\n";
  } else {
    std::cout << "ops without a kernel:";
    for (const auto& op : ops.no_kernel) std::cout << " " << op;
    std::cout << "\n";
  }
  // Known from the kernels' own checks, with or without a GPU here: a GPU
  // runs at most these nodes (a kernel may still decline shapes at run time).
  if (!ops.with_cuda) {
    std::cout << "CUDA kernels: none in this build (SWITCHYARD_CUDA=ON adds them)\n";
  } else if (ops.kernel_nodes > 0) {
    std::cout << "CUDA kernels: " << ops.cuda_nodes << " of " << ops.kernel_nodes << " kernel nodes ("
              << 100 * ops.cuda_nodes / ops.kernel_nodes << "%)";
    if (!ops.cpu_only.empty()) {
      std::cout << "; on a CPU:";
      for (const auto& [op, c] : ops.cpu_only) std::cout << " " << op << " x" << c;
    }
    std::cout << "\n";
  }
  return kExitOk;
}

}  // namespace sy

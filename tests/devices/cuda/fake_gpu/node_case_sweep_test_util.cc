#include "tests/devices/cuda/fake_gpu/node_case_sweep_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <random>
#include <set>
#include <thread>

#include "cli/case_runner.h"
#include "cli/random_inputs.h"
#include "cli/tensor_io.h"
#include "devices/value_compare.h"
#include "ir/onnx_loader.h"

namespace sy::testing {

namespace fs = std::filesystem;

namespace {

std::set<std::string> failed_names(const Sweep& s) {
  std::set<std::string> out;
  for (const std::string& f : s.failed) out.insert(f.substr(0, f.find(':')));
  return out;
}

}  // namespace

std::string newer_node_cases() { return std::string(SY_BINARY_DIR) + "/onnx-node-newer/onnx-node-opset18-23"; }

std::vector<std::string> case_dirs(const std::string& root, bool newer) {
  std::string err;
  auto excluded =
      load_exclusions(std::string(SY_SOURCE_DIR) + "/tests/conformance/exclusions.txt", /*required=*/true, &err);
  EXPECT_TRUE(err.empty()) << err;
  if (newer) {
    excluded.merge(load_exclusions(std::string(SY_SOURCE_DIR) + "/tests/conformance/newer/exclusions.txt",
                                   /*required=*/true, &err));
    EXPECT_TRUE(err.empty()) << err;
  }
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(root))
    if (e.is_directory() && fs::exists(e.path() / "model.onnx") && !excluded.count(e.path().filename().string()))
      out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

Sweep sweep(const std::vector<std::string>& dirs, const SessionOptions& options) {
  Sweep s;
  for (const std::string& dir : dirs) {
    const CaseResult got = run_test_case(dir, options, Tolerance{});
    ++s.cases;
    if (got.outcome != CaseResult::Outcome::kPass) {
      s.failed.push_back(fs::path(dir).filename().string() + ": " + got.reason);
      continue;
    }
    ++s.passed;
    for (const auto& [dev, n] : got.placed) s.placed[dev] += n;
  }
  return s;
}

std::string first_lines(const std::vector<std::string>& v, size_t n) {
  std::string out;
  for (size_t i = 0; i < v.size() && i < n; ++i) out += "  " + v[i] + "\n";
  return out;
}

double share(const Sweep& s, const std::string& device) {
  int64_t all = 0;
  for (const auto& [d, n] : s.placed) all += n;
  auto it = s.placed.find(device);
  return all == 0 || it == s.placed.end() ? 0 : static_cast<double>(it->second) / static_cast<double>(all);
}

Sweep expect_pass_set_of_cpu(const std::vector<std::string>& dirs, const SessionOptions& cpu,
                             const SessionOptions& gpu, double min_share) {
  const Sweep on_cpu = sweep(dirs, cpu);
  const Sweep on_gpu = sweep(dirs, gpu);
  EXPECT_EQ(failed_names(on_gpu), failed_names(on_cpu))
      << "failed on the GPU:\n" << first_lines(on_gpu.failed) << "failed on the CPU:\n" << first_lines(on_cpu.failed);
  EXPECT_GE(share(on_gpu, "cuda:0"), min_share);
  std::printf("%d of %d cases passed (%d on the CPU); kernel nodes of the passing cases on cuda:0: %.1f%%\n",
              on_gpu.passed, on_gpu.cases, on_cpu.passed, 100 * share(on_gpu, "cuda:0"));
  return on_cpu;
}

std::vector<int64_t> expect_same_as_cpu(const std::shared_ptr<const Model>& model, Session& on,
                                        const std::vector<std::map<std::string, RuntimeValue>>& inputs,
                                        Tolerance tol, bool two_at_a_time) {
  std::vector<int64_t> placed(on.devices().size());
  SessionOptions cpu_only;
  cpu_only.devices = "cpu";
  cpu_only.policy = "cpu";
  auto cpu = Session::create(model, cpu_only);
  EXPECT_TRUE(cpu.ok()) << cpu.status().message();
  if (!cpu.ok()) return placed;
  std::vector<StatusOr<RunResult>> got(inputs.size(), Internal("not run"));
  for (size_t k = 0; k < inputs.size(); k += two_at_a_time ? 2 : 1) {
    std::thread other;
    if (two_at_a_time && k + 1 < inputs.size()) other = std::thread([&, k] { got[k + 1] = on.run(inputs[k + 1]); });
    got[k] = on.run(inputs[k]);
    if (other.joinable()) other.join();
  }
  for (size_t k = 0; k < inputs.size(); ++k) {
    auto want = (*cpu)->run(inputs[k]);
    EXPECT_TRUE(got[k].ok()) << "input set " << k << ": " << got[k].status().message();
    EXPECT_TRUE(want.ok()) << "input set " << k << ": " << want.status().message();
    if (!got[k].ok() || !want.ok()) continue;
    EXPECT_EQ(got[k]->outputs.size(), want->outputs.size());
    for (size_t o = 0; o < want->outputs.size() && o < got[k]->outputs.size(); ++o) {
      EXPECT_TRUE(!got[k]->outputs[o].is_tensor() || got[k]->outputs[o].tensor().space() == kHostSpace);
      const std::string diff = compare_values(got[k]->outputs[o], want->outputs[o], tol);
      EXPECT_TRUE(diff.empty()) << "input set " << k << ", output " << o << ": " << diff;
    }
    for (size_t d = 0; d < placed.size(); ++d) placed[d] += got[k]->stats.nodes_per_device[d];
  }
  return placed;
}

std::shared_ptr<const Model> load_model_file(const std::string& path) {
  auto loaded = OnnxLoader().load_file(path);
  if (!loaded.ok()) {
    ADD_FAILURE() << path << ": " << loaded.status().message();
    return nullptr;
  }
  return std::move(*loaded);
}

std::map<std::string, RuntimeValue> random_input_set(const Model& m, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto in = random_inputs(*m.graph, {}, rng);
  EXPECT_TRUE(in.ok()) << in.status().message();
  return in.ok() ? *in : std::map<std::string, RuntimeValue>{};
}

std::vector<std::map<std::string, RuntimeValue>> bundled_input_sets(const std::string& dir) {
  std::vector<std::map<std::string, RuntimeValue>> sets;
  for (const auto& set : fs::directory_iterator(dir)) {
    if (!set.is_directory() || set.path().filename().string().rfind("inputs", 0) != 0) continue;
    auto& in = sets.emplace_back();
    for (const auto& f : fs::directory_iterator(set.path())) {
      auto t = read_npy(f.path().string());
      EXPECT_TRUE(t.ok()) << f.path() << ": " << t.status().message();
      if (t.ok()) in[f.path().stem().string()] = *t;
    }
  }
  EXPECT_FALSE(sets.empty()) << dir << " has no inputs* folder";
  return sets;
}

}  // namespace sy::testing

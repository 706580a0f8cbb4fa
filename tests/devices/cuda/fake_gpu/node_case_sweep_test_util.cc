#include "tests/devices/cuda/fake_gpu/node_case_sweep_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>

#include "cli/case_runner.h"
#include "devices/value_compare.h"

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

}  // namespace sy::testing

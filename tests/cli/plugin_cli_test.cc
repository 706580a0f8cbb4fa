// Policy plugins through the CLI: `switchyard run --policy ./lib.so`. The
// example plugin's decisions are checked against the predictions logged
// with --decisions; broken plugins give clear errors, not crashes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_test_util.h"

namespace sy {
namespace {

using namespace cli_test;

const std::string kModel = (source_dir() / "models/control_flow/nested_loops/model.onnx").string();

std::vector<nlohmann::json> read_jsonl(const std::string& path) {
  std::vector<nlohmann::json> out;
  std::istringstream in(read_text_file(path));
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  return out;
}

CommandResult run_with(const std::string& policy, const std::string& decisions) {
  return run_switchyard({"run", kModel, "--random-inputs", "-q", "--devices", "cpu:0,cpu:1", "--policy", policy,
                         "--decisions", decisions});
}

TEST(PluginCli, ExamplePlugin_LargeNodesGoToEarliestFinish) {
  TempDir dir;
  // threshold 0: every node counts as large.
  auto r = run_with(std::string(SY_EXAMPLE_POLICY_PLUGIN) + "?threshold_us=0", dir.file("d.jsonl"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = read_jsonl(dir.file("d.jsonl"));
  ASSERT_FALSE(lines.empty());
  for (const auto& d : lines) {
    EXPECT_EQ(d["policy"], "size-threshold");
    double best = 1e300, chosen = -1;
    for (const auto& c : d["candidates"]) {
      best = std::min(best, c["finish_us"].get<double>());
      if (c["device"] == d["device"]) chosen = c["finish_us"].get<double>();
    }
    EXPECT_LE(chosen, best + 1e-9) << d.dump();
  }
}

TEST(PluginCli, ExamplePlugin_SmallNodesStayWithTheirInputs) {
  TempDir dir;
  auto r = run_with(std::string(SY_EXAMPLE_POLICY_PLUGIN) + "?threshold_us=1e9", dir.file("d.jsonl"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = read_jsonl(dir.file("d.jsonl"));
  ASSERT_FALSE(lines.empty());
  for (const auto& d : lines) {
    // Input bytes per memory space; "cpu:N" owns "cpu-mem:N".
    std::map<std::string, uint64_t> bytes;
    for (const auto& in : d["inputs"]) bytes[in["at"].get<std::string>()] += in["bytes"].get<uint64_t>();
    uint64_t most = 0;
    for (const auto& [at, b] : bytes) most = std::max(most, b);
    std::string dev = d["device"].get<std::string>();
    std::string space = "cpu-mem:" + dev.substr(dev.find(':') + 1);
    EXPECT_EQ(bytes[space], most) << d.dump();
  }
}

TEST(PluginCli, PluginReturningBadIndex_IsAClearRuntimeError) {
  TempDir dir;
  auto r = run_with(SY_TEST_INVALID_INDEX_POLICY_PLUGIN, dir.file("d.jsonl"));
  EXPECT_TRUE(r.exited) << r.command;
  EXPECT_EQ(r.exit_code, 1) << r.err;
  ASSERT_EQ(r.error_lines().size(), 1u) << r.err;
  EXPECT_NE(r.err.find("chose candidate"), std::string::npos) << r.err;
}

TEST(PluginCli, PluginWithWrongAbi_IsRejectedAtLoad) {
  TempDir dir;
  auto r = run_with(SY_TEST_BAD_ABI_POLICY_PLUGIN, dir.file("d.jsonl"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  ASSERT_EQ(r.error_lines().size(), 1u) << r.err;
  EXPECT_NE(r.err.find(SY_TEST_BAD_ABI_POLICY_PLUGIN), std::string::npos) << r.err;
}

TEST(PluginCli, MissingPluginFile_IsAnError) {
  TempDir dir;
  auto r = run_with(dir.file("libnothing.so"), dir.file("d.jsonl"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  ASSERT_EQ(r.error_lines().size(), 1u) << r.err;
  EXPECT_NE(r.err.find("libnothing.so"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace sy

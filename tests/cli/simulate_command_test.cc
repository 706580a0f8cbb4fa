// `--simulate` driven as a user would: two runs with the same seed write
// byte-identical traces, bench prints the bound columns in virtual time,
// calibrate --sim writes a profile that --simulate accepts, and bad
// arguments fail with "error:" and exit code 2.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_test_util.h"

namespace sy {
namespace {

using namespace sy::cli_test;
namespace fs = std::filesystem;

fs::path profile(const char* name) { return source_dir() / "models/profiles" / name; }
fs::path workload(const char* name) { return source_dir() / "models/workloads" / name; }

TEST(SimulateCommand, SameSeedTwice_GivesByteIdenticalTraces) {
  TempDir tmp;
  // Noise on, so the seed matters; the dynamic policy, so placement
  // decisions depend on the simulated times.
  const std::string prof = tmp.file("noisy.json");
  {
    auto doc = nlohmann::json::parse(read_text_file(profile("8xh100-nvlink.json")));
    doc["noise"] = 0.2;
    std::ofstream(prof) << doc.dump();
  }
  std::vector<std::string> traces;
  for (int i = 0; i < 3; ++i) {
    const std::string trace = tmp.file("trace" + std::to_string(i) + ".json");
    const std::string seed = i < 2 ? "7" : "8";
    auto r = run_switchyard({"run", workload("moe_if.onnx").string(), "--random-inputs", "--simulate", prof, "--seed",
                             seed, "-n", "3", "--trace", trace, "-q"});
    ASSERT_TRUE(r.exited && r.exit_code == 0) << r.describe();
    traces.push_back(read_text_file(trace));
    ASSERT_GT(traces.back().size(), 100u);
  }
  EXPECT_EQ(traces[0], traces[1]);
  // A different seed draws other inputs and other noise: a different trace.
  EXPECT_NE(traces[0], traces[2]);
}

TEST(SimulateCommand, Bench_PrintsBoundColumns_InVirtualTime) {
  TempDir tmp;
  auto r = run_switchyard({"bench", workload("wide_branches.onnx").string(), "--simulate",
                           profile("h100-16core.json").string(), "--policies", "dynamic,cpu", "--runs", "2", "--warmup",
                           "1", "--json", tmp.file("b.json")});
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.describe();
  EXPECT_NE(r.out.find("bound ms"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("x bound"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("virtual time"), std::string::npos) << r.out;
  auto doc = nlohmann::json::parse(read_text_file(tmp.file("b.json")));
  ASSERT_EQ(doc["rows"].size(), 2u);
  for (const auto& row : doc["rows"]) {
    ASSERT_TRUE(row["ok"].get<bool>()) << row.dump();
    const double bound = row["bound_ms"].get<double>(), mean = row["mean_ms"].get<double>();
    EXPECT_GT(bound, 0);
    // No placement beats the lower bound.
    EXPECT_GE(row["makespan_over_bound"].get<double>(), 1.0 - 1e-9) << row.dump();
    EXPECT_GE(mean, bound * (1 - 1e-9));
    EXPECT_TRUE(row["nodes_per_device"].contains("cuda:0"));
  }
  // The best static policy listed is the baseline: cpu's speed-up is 1.
  EXPECT_DOUBLE_EQ(doc["rows"][1]["speedup"].get<double>(), 1.0);
}

TEST(SimulateCommand, CalibrateSim_WritesAProfileThatSimulateRuns) {
  TempDir tmp;
  const std::string sim = tmp.file("machine.json");
  auto c = run_switchyard({"calibrate", "--quick", "-q", "--out", tmp.file("cost.json"), "--sim", sim, "--models",
                           workload("rnn_loop.onnx").string()},
                          300);
  ASSERT_TRUE(c.exited && c.exit_code == 0) << c.describe();
  auto doc = nlohmann::json::parse(read_text_file(sim));
  EXPECT_EQ(doc["format"], "switchyard-sim-profile");
  EXPECT_EQ(doc["devices"][0]["class"], "cpu");
  EXPECT_EQ(doc["devices"][0]["count"], 2);
  bool tanh = false;  // an op only the model has, measured at its shapes
  for (const auto& e : doc["costs"]) tanh |= e["op"] == "Tanh" && e.contains("points");
  EXPECT_TRUE(tanh) << doc.dump(1);
  auto r = run_switchyard({"run", workload("rnn_loop.onnx").string(), "--random-inputs", "--simulate", sim, "-q"});
  EXPECT_TRUE(r.exited && r.exit_code == 0) << r.describe();
}

TEST(SimulateCommand, BadArguments_AreBadInput) {
  TempDir tmp;
  std::ofstream(tmp.file("cost.json")) << R"({"version": 1, "ops": []})";
  const std::string model = workload("rnn_loop.onnx").string(), prof = profile("h100-16core.json").string();
  const std::vector<std::vector<std::string>> cases = {
      {"run", model, "--random-inputs", "--simulate", tmp.file("missing.json")},
      {"run", model, "--random-inputs", "--simulate", tmp.file("cost.json")},  // a cost profile, not a machine
      {"run", model, "--random-inputs", "--simulate", prof, "--devices", "cpu"},
      {"bench", model, "--simulate", prof, "--concurrency", "2"},
      {"bench", model, "--simulate", tmp.file("missing.json")},
      {"calibrate", "--out", tmp.file("p.json"), "--models", model},  // --models needs --sim
  };
  for (const auto& args : cases) {
    auto r = run_switchyard(args);
    EXPECT_TRUE(r.exited && r.exit_code == 2) << r.describe();
    EXPECT_EQ(r.error_lines().size(), 1u) << r.describe();
  }
}

}  // namespace
}  // namespace sy

// `switchyard run` driven as a user would: what it prints after the runs
// and what `--report` writes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_test_util.h"

namespace sy {
namespace {

using namespace sy::cli_test;
namespace fs = std::filesystem;

// Each device's peak memory, in the summary and the report: on two CPU
// devices, both ran nodes, so both held tensors.
TEST(RunCommand, PeakMemory_PrintedAndReportedPerDevice) {
  TempDir tmp;
  const std::string model = (source_dir() / "models/workloads/wide_branches.onnx").string();
  auto r = run_switchyard({"run", model, "--random-inputs", "--devices", "cpu:0,cpu:1", "--policy", "round-robin",
                           "--report", tmp.file("r.json")});
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.describe();
  EXPECT_NE(r.out.find("peak memory (last run): cpu:0="), std::string::npos) << r.out;
  const nlohmann::json j = nlohmann::json::parse(read_text_file(tmp.file("r.json")));
  ASSERT_TRUE(j.contains("peak_bytes")) << j.dump(1);
  for (const char* d : {"cpu:0", "cpu:1"}) EXPECT_GT(j["peak_bytes"][d].get<uint64_t>(), 0u) << d << "\n" << j.dump(1);
}

}  // namespace
}  // namespace sy

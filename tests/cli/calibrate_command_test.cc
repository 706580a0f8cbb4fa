// `switchyard calibrate --quick`: writes a cost profile that CostModel::load
// accepts, with measurements for every device and the measured link, and
// that `bench --profile` can use.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "ir/graph.h"
#include "placer/cost_model.h"
#include "tests/cli/cli_test_util.h"

namespace sy {
namespace {

using namespace sy::cli_test;

TEST(CalibrateCommand, QuickWritesLoadableProfileCoveringBothDevices) {
  TempDir tmp;
  const std::string profile = tmp.file("profile.json");
  auto r = run_switchyard({"calibrate", "--quick", "--out", profile});
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.describe();
  ASSERT_TRUE(fs::exists(profile)) << r.describe();
  EXPECT_NE(r.out.find("prediction error"), std::string::npos) << r.out;

  auto doc = nlohmann::json::parse(read_text_file(profile), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  std::set<std::string> devices, ops;
  for (const auto& e : doc["ops"]) {
    devices.insert(e["device"].get<std::string>());
    ops.insert(e["op"].get<std::string>());
    EXPECT_FALSE(e["buckets"].empty()) << e.dump();
  }
  EXPECT_EQ(devices, (std::set<std::string>{"cpu:0", "cpu:1"}));
  for (const char* op : {"MatMul", "Conv", "Add", "Relu", "Softmax", "ReduceSum", "Gather", "Transpose"})
    EXPECT_TRUE(ops.count(op)) << op << " not calibrated";
  bool link = false;
  for (const auto& l : doc["links"])
    if (l["from"] == "cpu-mem:0" && l["to"] == "cpu-mem:1") link = l["bandwidth_gbps"].get<double>() > 0;
  EXPECT_TRUE(link) << doc["links"].dump();

  CostModel cm;
  Status s = cm.load(profile);
  ASSERT_TRUE(s.ok()) << s.message();
  Node mm;
  mm.op_type = "MatMul";
  for (int16_t d : {0, 1}) {
    int slot = cm.slot(mm, DeviceId{DeviceKind::kCpu, d});
    Dims a{64, 64}, b{64, 64};
    const Dims* in[] = {&a, &b};
    double us = cm.predict_us(slot, cm.work(slot, in));
    EXPECT_TRUE(std::isfinite(us) && us > 0) << us;
  }

  // The profile drives a benchmark.
  auto b = run_switchyard({"bench", (source_dir() / "models/control_flow/nested_loops/model.onnx").string(),
                           "--policies", "dynamic,cpu", "--runs", "2", "--warmup", "0", "--profile", profile});
  ASSERT_TRUE(b.exited && b.exit_code == 0) << b.describe();
}

TEST(CalibrateCommand, BadArguments_AreBadInput) {
  TempDir tmp;
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"calibrate", "--quick"},  // --out is required
           {"calibrate", "--quick", "--out", tmp.file("p.json"), "--devices", "tpu:0"},
           {"calibrate", "--quick", "--out", "/nonexistent/dir/p.json"}}) {
    auto r = run_switchyard(args);
    ASSERT_TRUE(r.exited) << r.describe();
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_FALSE(r.error_lines().empty()) << r.describe();
  }
  EXPECT_FALSE(fs::exists(tmp.file("p.json")));
}

}  // namespace
}  // namespace sy

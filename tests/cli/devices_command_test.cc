// `switchyard devices`: lists the split CPU devices and a measured link
// between their memory spaces; one whole-host device has no links.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "tests/cli/cli_test_util.h"

namespace sy {
namespace {

using namespace sy::cli_test;

TEST(DevicesCommand, DefaultListsBothCpuDevicesAndMeasuredLinks) {
  TempDir tmp;
  auto r = run_switchyard({"devices", "--json", tmp.file("d.json")});
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.describe();
  EXPECT_NE(r.out.find("cpu:0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cpu:1"), std::string::npos) << r.out;
  // e.g. "  cpu-mem:0  -> cpu-mem:1     31.86 GB/s      0.06 us"
  std::smatch m;
  const std::regex link(R"(cpu-mem:0\s+->\s+cpu-mem:1\s+([0-9.]+) GB/s\s+([0-9.]+) us)");
  ASSERT_TRUE(std::regex_search(r.out, m, link)) << r.out;
  EXPECT_GT(std::stod(m[1]), 0) << r.out;

  auto doc = nlohmann::json::parse(read_text_file(tmp.file("d.json")), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  ASSERT_EQ(doc["devices"].size(), 2u);
  EXPECT_EQ(doc["devices"][0]["name"], "cpu:0");
  EXPECT_EQ(doc["devices"][1]["name"], "cpu:1");
  EXPECT_EQ(doc["devices"][1]["kind"], "cpu");
  EXPECT_GT(doc["devices"][0]["memory_bytes"].get<uint64_t>(), 0u);
  EXPECT_FALSE(doc["devices"][0]["description"].get<std::string>().empty());
  ASSERT_EQ(doc["links"].size(), 2u);  // both directions
  for (const auto& l : doc["links"]) {
    EXPECT_NE(l["from"], l["to"]);
    EXPECT_GT(l["bandwidth_gbps"].get<double>(), 0);
    EXPECT_GE(l["latency_us"].get<double>(), 0);
  }
}

TEST(DevicesCommand, WholeHostDevice_HasNoLinks) {
  auto r = run_switchyard({"devices", "--devices", "cpu"});
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.describe();
  // Device rows start with two spaces and the name.
  EXPECT_NE(r.out.find("\n  cpu:0 "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\n  cpu:1 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("links: none"), std::string::npos) << r.out;
}

TEST(DevicesCommand, BadDeviceList_IsBadInput) {
  for (const char* spec : {"gpu:0", "cpu:x", ""}) {
    auto r = run_switchyard({"devices", "--devices", spec});
    ASSERT_TRUE(r.exited) << r.describe();
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_FALSE(r.error_lines().empty()) << r.describe();
  }
}

}  // namespace
}  // namespace sy

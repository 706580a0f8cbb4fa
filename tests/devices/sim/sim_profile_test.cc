#include "devices/sim/sim_profile.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include <unistd.h>

namespace sy {
namespace {

using json = nlohmann::json;

// Two nodes, each with two "core" CPUs and two "h100" GPUs. The links cover
// every pair and exercise each level of specificity:
//   links[0] "*"->"*"        local   (core->core, h100->core)
//   links[1] "core"->"h100"  local   (exact on both sides)
//   links[2] "*"->"h100"     local   (h100->h100: one side exact)
//   links[3] "*"->"*"        remote  (anything between nodes)
//   links[4] "h100"->"h100"  remote  (exact, between nodes)
json base_profile() {
  return json::parse(R"({
    "format": "switchyard-sim-profile",
    "version": 1,
    "name": "two-node test box",
    "source": "hand-written",
    "nodes": 2,
    "noise": 0.1,
    "devices": [
      {"class": "core", "kind": "cpu", "count": 2, "memory_gb": 64, "launch_us": 1},
      {"class": "h100", "kind": "cuda", "count": 2, "memory_gb": 80, "queues": 4, "copy_queues": 2, "launch_us": 5}
    ],
    "costs": [
      {"class": "core", "op": "*", "base_us": 2, "us_per_work": 0.001},
      {"class": "core", "op": "MatMul", "base_us": 1, "us_per_work": 0.01},
      {"class": "h100", "op": "*", "base_us": 5, "us_per_work": 0.0001, "points": [[1000, 6], [2000, 8]]}
    ],
    "links": [
      {"from": "*", "to": "*", "latency_us": 1, "bandwidth_gbps": 100},
      {"from": "core", "to": "h100", "latency_us": 10, "bandwidth_gbps": 25},
      {"from": "*", "to": "h100", "scope": "local", "latency_us": 7, "bandwidth_gbps": 50},
      {"from": "*", "to": "*", "scope": "remote", "latency_us": 50, "bandwidth_gbps": 10},
      {"from": "h100", "to": "h100", "scope": "remote", "latency_us": 20, "bandwidth_gbps": 40}
    ]
  })");
}

StatusOr<SimProfile> parse(const json& j) { return parse_sim_profile(j.dump(), "test.json"); }

// Parses `j`, expects InvalidArgument, and returns the message.
std::string error_of(const json& j) {
  auto p = parse(j);
  EXPECT_FALSE(p.ok()) << j.dump();
  if (p.ok()) return "";
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument) << p.status().to_string();
  EXPECT_NE(p.status().message().find("test.json"), std::string::npos) << p.status().message();
  return p.status().message();
}

int index_of(const SimProfile& p, DeviceKind kind, int ordinal) {
  for (size_t i = 0; i < p.devices.size(); ++i)
    if (p.devices[i].id == DeviceId{kind, static_cast<int16_t>(ordinal)}) return static_cast<int>(i);
  ADD_FAILURE() << "no device " << DeviceId{kind, static_cast<int16_t>(ordinal)}.to_string();
  return 0;
}

// The index into links of the link used from device a to device b.
int link_index(const SimProfile& p, DeviceId a, DeviceId b) {
  const SimLink& l = p.link(index_of(p, a.kind, a.ordinal), index_of(p, b.kind, b.ordinal));
  return static_cast<int>(&l - p.links.data());
}

constexpr DeviceId cpu(int o) { return {DeviceKind::kCpu, static_cast<int16_t>(o)}; }
constexpr DeviceId gpu(int o) { return {DeviceKind::kCuda, static_cast<int16_t>(o)}; }

// --- valid profiles ----------------------------------------------------------

TEST(SimProfile, ValidProfile_ParsesHeaderClassesAndCosts) {
  auto p = parse(base_profile());
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  EXPECT_EQ(p->path, "test.json");
  EXPECT_EQ(p->name, "two-node test box");
  EXPECT_EQ(p->source, "hand-written");
  EXPECT_EQ(p->nodes, 2);
  EXPECT_DOUBLE_EQ(p->noise, 0.1);
  ASSERT_EQ(p->classes.size(), 2u);

  const SimDeviceClass& core = p->classes[0];
  EXPECT_EQ(core.name, "core");
  EXPECT_EQ(core.kind, DeviceKind::kCpu);
  EXPECT_EQ(core.count, 2);
  EXPECT_EQ(core.memory_bytes, uint64_t{64'000'000'000});
  EXPECT_EQ(core.queues, 1);       // default
  EXPECT_EQ(core.copy_queues, 1);  // default
  EXPECT_DOUBLE_EQ(core.launch_us, 1.0);
  EXPECT_DOUBLE_EQ(core.handoff_us, 10.0);  // default
  ASSERT_EQ(core.costs.size(), 2u);
  EXPECT_EQ(&core.cost("MatMul"), &core.costs[1]);
  EXPECT_EQ(&core.cost("Add"), &core.costs[0]);  // falls back to "*"
  EXPECT_DOUBLE_EQ(core.cost("MatMul").base_us, 1.0);
  EXPECT_DOUBLE_EQ(core.cost("MatMul").us_per_work, 0.01);

  const SimDeviceClass& h100 = p->classes[1];
  EXPECT_EQ(h100.kind, DeviceKind::kCuda);
  EXPECT_EQ(h100.memory_bytes, uint64_t{80'000'000'000});
  EXPECT_EQ(h100.queues, 4);
  EXPECT_EQ(h100.copy_queues, 2);
  EXPECT_DOUBLE_EQ(h100.launch_us, 5.0);
  ASSERT_EQ(h100.costs.size(), 1u);
  ASSERT_EQ(h100.costs[0].points.size(), 2u);
  EXPECT_DOUBLE_EQ(h100.costs[0].points[1][0], 2000.0);
  EXPECT_DOUBLE_EQ(h100.costs[0].points[1][1], 8.0);
  EXPECT_EQ(&h100.cost("MatMul"), &h100.costs[0]);
}

TEST(SimProfile, OptionalFields_TakeDefaults) {
  json j = base_profile();
  for (const char* k : {"name", "source", "nodes", "noise"}) j.erase(k);
  j["devices"][0].erase("launch_us");
  auto p = parse(j);
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  EXPECT_EQ(p->name, "");
  EXPECT_EQ(p->nodes, 1);
  EXPECT_DOUBLE_EQ(p->noise, 0.0);
  EXPECT_DOUBLE_EQ(p->classes[0].launch_us, 0.0);
  EXPECT_DOUBLE_EQ(p->classes[0].handoff_us, 10.0);
  EXPECT_EQ(p->classes[0].count, 2);
  EXPECT_EQ(p->devices.size(), 4u);
}

TEST(SimProfile, Devices_ExpandPerNodeWithSeparateCpuAndCudaOrdinals) {
  auto p = parse(base_profile());
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  ASSERT_EQ(p->devices.size(), 8u);
  // node 0: cpu:0 cpu:1 cuda:0 cuda:1; node 1: cpu:2 cpu:3 cuda:2 cuda:3.
  const DeviceId want[] = {cpu(0), cpu(1), gpu(0), gpu(1), cpu(2), cpu(3), gpu(2), gpu(3)};
  const int want_cls[] = {0, 0, 1, 1, 0, 0, 1, 1};
  const int want_node[] = {0, 0, 0, 0, 1, 1, 1, 1};
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(p->devices[i].id, want[i]) << i << ": " << p->devices[i].id.to_string();
    EXPECT_EQ(p->devices[i].cls, want_cls[i]) << i;
    EXPECT_EQ(p->devices[i].node, want_node[i]) << i;
  }
  EXPECT_EQ(p->pair_link.size(), 64u);
}

TEST(SimProfile, Devices_FirstDeviceIsTheHostCpu) {
  // A cuda class listed after the cpu class: devices()[0] is still cpu:0.
  json j = base_profile();
  j["nodes"] = 1;
  auto p = parse(j);
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  ASSERT_EQ(p->devices.size(), 4u);
  EXPECT_EQ(p->devices[0].id, cpu(0));
  EXPECT_EQ(p->devices[3].id, gpu(1));
}

TEST(SimProfile, Links_MostSpecificMatchWins) {
  auto p = parse(base_profile());
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  // core -> core: only the "*"->"*" local link matches.
  EXPECT_EQ(link_index(*p, cpu(0), cpu(1)), 0);
  // core -> h100: the exact link beats "*"->"h100" and "*"->"*".
  EXPECT_EQ(link_index(*p, cpu(0), gpu(0)), 1);
  EXPECT_EQ(link_index(*p, cpu(1), gpu(1)), 1);
  // h100 -> h100: "*"->"h100" (one side exact) beats "*"->"*".
  EXPECT_EQ(link_index(*p, gpu(0), gpu(1)), 2);
  // h100 -> core: links are directed; "core"->"h100" does not apply.
  EXPECT_EQ(link_index(*p, gpu(0), cpu(0)), 0);
  // Within node 1 the same local links apply.
  EXPECT_EQ(link_index(*p, cpu(2), gpu(3)), 1);
  EXPECT_EQ(link_index(*p, gpu(2), gpu(3)), 2);
}

TEST(SimProfile, Links_RemoteScopeAppliesOnlyBetweenNodes) {
  auto p = parse(base_profile());
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  EXPECT_EQ(link_index(*p, cpu(0), cpu(2)), 3);
  EXPECT_EQ(link_index(*p, cpu(3), gpu(0)), 3);  // core->h100 remote: wildcard remote link
  EXPECT_EQ(link_index(*p, gpu(0), gpu(2)), 4);  // exact remote link
  EXPECT_EQ(link_index(*p, gpu(3), gpu(1)), 4);
  const SimLink& l = p->link(index_of(*p, DeviceKind::kCuda, 0), index_of(*p, DeviceKind::kCuda, 2));
  EXPECT_TRUE(l.remote);
  EXPECT_DOUBLE_EQ(l.latency_us, 20.0);
  EXPECT_DOUBLE_EQ(l.bandwidth_gbps, 40.0);
  // Local links never serve a remote pair, even when more specific.
  EXPECT_FALSE(p->links[1].remote);
}

TEST(SimProfile, SingleDevice_NeedsNoLinks) {
  json j = base_profile();
  j["nodes"] = 1;
  j["devices"] = json::array({{{"class", "core"}, {"kind", "cpu"}, {"memory_gb", 1}}});
  j["costs"] = json::array({{{"class", "core"}, {"op", "*"}, {"base_us", 1}, {"us_per_work", 0}}});
  j.erase("links");
  auto p = parse(j);
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  ASSERT_EQ(p->devices.size(), 1u);
  EXPECT_EQ(p->devices[0].id, cpu(0));
  EXPECT_TRUE(p->links.empty());
}

TEST(SimProfile, ExactlySixtyFourDevices_IsAccepted) {
  json j = base_profile();
  j["nodes"] = 2;
  j["devices"][0]["count"] = 16;
  j["devices"][1]["count"] = 16;
  auto p = parse(j);
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  EXPECT_EQ(p->devices.size(), 64u);
  EXPECT_EQ(p->devices.back().id, gpu(31));
}

TEST(SimProfile, Describe_NamesTheProfileAndItsDevices) {
  auto p = parse(base_profile());
  ASSERT_TRUE(p.ok());
  const std::string d = p->describe();
  EXPECT_EQ(d.rfind("two-node test box", 0), 0u) << d;
  EXPECT_NE(d.find("cpu:0"), std::string::npos) << d;
  EXPECT_NE(d.find("cuda:3"), std::string::npos) << d;
}

// --- files -------------------------------------------------------------------

class SimProfileFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("sy_sim_profile_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  std::filesystem::path dir_;
};

TEST_F(SimProfileFile, Load_ReadsAndValidatesTheFile) {
  const std::string path = write("box.json", base_profile().dump(2));
  auto p = load_sim_profile(path);
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  EXPECT_EQ(p->path, path);
  EXPECT_EQ(p->devices.size(), 8u);
}

TEST_F(SimProfileFile, Load_MissingFile_IsNotFound) {
  const std::string path = (dir_ / "nope.json").string();
  auto p = load_sim_profile(path);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kNotFound);
  EXPECT_NE(p.status().message().find(path), std::string::npos) << p.status().message();
}

TEST_F(SimProfileFile, Load_Directory_IsInvalidArgumentSayingSo) {
  auto p = load_sim_profile(dir_.string());
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find("not a regular file"), std::string::npos) << p.status().to_string();
}

TEST_F(SimProfileFile, Load_BadContent_IsInvalidArgumentNamingTheFile) {
  const std::string path = write("bad.json", "{ not json");
  auto p = load_sim_profile(path);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find(path), std::string::npos) << p.status().message();
  EXPECT_NE(p.status().message().find("not valid JSON"), std::string::npos) << p.status().message();
}

// --- bad input ---------------------------------------------------------------

void expect_contains(const std::string& msg, std::initializer_list<const char*> parts) {
  for (const char* s : parts) EXPECT_NE(msg.find(s), std::string::npos) << "'" << s << "' not in: " << msg;
}

TEST(SimProfile, NotJson_IsInvalidArgument) {
  for (const char* text : {"", "{", "[1, 2", "{\"format\": }", "NaN"}) {
    auto p = parse_sim_profile(text, "test.json");
    ASSERT_FALSE(p.ok()) << text;
    EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument) << text;
    expect_contains(p.status().message(), {"test.json", "not valid JSON"});
  }
}

TEST(SimProfile, TopLevelNotAnObject_IsInvalidArgument) {
  expect_contains(error_of(json::array({1, 2})), {"top level", "object"});
  expect_contains(error_of(json("switchyard-sim-profile")), {"top level"});
}

TEST(SimProfile, WrongOrMissingFormat_IsInvalidArgument) {
  json j = base_profile();
  j["format"] = "switchyard-cost-profile";
  expect_contains(error_of(j), {"format", "switchyard-sim-profile"});
  j.erase("format");
  expect_contains(error_of(j), {"format"});
  j = base_profile();
  j["format"] = 1;
  expect_contains(error_of(j), {"format"});
}

TEST(SimProfile, VersionOtherThanOne_IsInvalidArgument) {
  for (json v : {json(2), json(0), json("1"), json(1.5), json(nullptr)}) {
    json j = base_profile();
    j["version"] = v;
    expect_contains(error_of(j), {"version", "must be 1"});
  }
  json j = base_profile();
  j.erase("version");
  expect_contains(error_of(j), {"version"});
}

TEST(SimProfile, FirstClassNotCpu_IsInvalidArgument) {
  json j = base_profile();
  std::swap(j["devices"][0], j["devices"][1]);
  expect_contains(error_of(j), {"devices[0]", "cpu"});
}

TEST(SimProfile, NoDevices_IsInvalidArgument) {
  json j = base_profile();
  j["devices"] = json::array();
  expect_contains(error_of(j), {"devices", "1 to 64 classes"});
  j.erase("devices");
  expect_contains(error_of(j), {"devices"});
  j["devices"] = json::object();
  expect_contains(error_of(j), {"devices"});
}

TEST(SimProfile, BadDeviceClassFields_NameTheField) {
  struct Case {
    const char* key;
    json value;
  };
  const Case cases[] = {
      {"class", ""},      {"class", "*"},      {"class", 3},        {"kind", "tpu"},    {"kind", 1},
      {"count", 0},       {"count", 65},       {"count", 1.5},      {"count", "2"},     {"memory_gb", 0},
      {"memory_gb", -1},  {"memory_gb", 1e7},  {"memory_gb", "80"}, {"queues", 0},      {"queues", 65},
      {"copy_queues", 0}, {"copy_queues", 17}, {"launch_us", -0.5}, {"launch_us", 2e6}, {"launch_us", true},
      {"handoff_us", -1}, {"handoff_us", 2e6}, {"handoff_us", "5"},
  };
  for (const Case& c : cases) {
    json j = base_profile();
    j["devices"][1][c.key] = c.value;
    const std::string msg = error_of(j);
    SCOPED_TRACE(std::string(c.key) + " = " + c.value.dump());
    expect_contains(msg, {"devices[1]", c.key});
  }
}

TEST(SimProfile, MissingRequiredDeviceField_NamesTheField) {
  for (const char* key : {"class", "kind", "memory_gb"}) {
    json j = base_profile();
    j["devices"][1].erase(key);
    SCOPED_TRACE(key);
    expect_contains(error_of(j), {"devices[1]", "missing", key});
  }
  json j = base_profile();
  j["devices"][1] = 5;
  expect_contains(error_of(j), {"devices[1]", "object"});
}

TEST(SimProfile, DuplicateClass_IsInvalidArgument) {
  json j = base_profile();
  j["devices"][1]["class"] = "core";
  j["devices"][1]["kind"] = "cpu";
  expect_contains(error_of(j), {"devices[1]", "class 'core'", "twice"});
}

TEST(SimProfile, TooManyDevices_IsInvalidArgument) {
  json j = base_profile();
  j["nodes"] = 1;
  j["devices"][0]["count"] = 33;
  j["devices"][1]["count"] = 32;  // 65 on one node
  expect_contains(error_of(j), {"devices", "more than 64"});

  j = base_profile();  // 2 nodes
  j["devices"][0]["count"] = 16;
  j["devices"][1]["count"] = 17;  // 33 per node x 2 nodes = 66
  expect_contains(error_of(j), {"devices", "more than 64", "2 nodes"});

  j = base_profile();
  j["nodes"] = 16;
  j["devices"][0]["count"] = 3;
  j["devices"][1]["count"] = 2;  // 5 x 16 = 80
  expect_contains(error_of(j), {"devices", "more than 64"});
}

TEST(SimProfile, BadNodesOrNoise_IsInvalidArgument) {
  for (json v : {json(0), json(17), json(1.5), json("2")}) {
    json j = base_profile();
    j["nodes"] = v;
    expect_contains(error_of(j), {"nodes"});
  }
  for (json v : {json(-0.1), json(1.5), json("0.1")}) {
    json j = base_profile();
    j["noise"] = v;
    expect_contains(error_of(j), {"noise"});
  }
}

TEST(SimProfile, MissingWildcardCost_NamesTheClass) {
  json j = base_profile();
  j["costs"].erase(2);  // h100's only entry
  expect_contains(error_of(j), {"costs", "class 'h100'", "\"*\""});

  j = base_profile();
  j["costs"][0]["op"] = "Add";  // core: Add and MatMul, no "*"
  expect_contains(error_of(j), {"costs", "class 'core'", "\"*\""});
}

TEST(SimProfile, DuplicateOp_IsInvalidArgument) {
  json j = base_profile();
  j["costs"].push_back({{"class", "core"}, {"op", "MatMul"}, {"base_us", 3}, {"us_per_work", 0}});
  expect_contains(error_of(j), {"costs[3]", "op 'MatMul'", "class 'core'", "twice"});
  // The same op for two different classes is fine.
  j = base_profile();
  j["costs"].push_back({{"class", "h100"}, {"op", "MatMul"}, {"base_us", 3}, {"us_per_work", 0}});
  EXPECT_TRUE(parse(j).ok());
}

TEST(SimProfile, UnknownClassInCosts_IsInvalidArgument) {
  json j = base_profile();
  j["costs"][1]["class"] = "tpu";
  expect_contains(error_of(j), {"costs[1]", "unknown class 'tpu'"});
  j = base_profile();
  j["costs"][1]["class"] = "*";
  expect_contains(error_of(j), {"costs[1]", "unknown class '*'"});
}

TEST(SimProfile, BadCostsArray_IsInvalidArgument) {
  json j = base_profile();
  j.erase("costs");
  expect_contains(error_of(j), {"costs"});
  j["costs"] = json::object();
  expect_contains(error_of(j), {"costs"});
  j = base_profile();
  j["costs"][1] = "MatMul";
  expect_contains(error_of(j), {"costs[1]", "object"});
}

TEST(SimProfile, BadCostNumbers_NameTheField) {
  struct Case {
    const char* key;
    json value;
  };
  const Case cases[] = {{"base_us", -1},       {"base_us", 2e9},        {"base_us", "1"},  {"base_us", nullptr},
                        {"us_per_work", -1e-9}, {"us_per_work", 2e6},   {"us_per_work", false}};
  for (const Case& c : cases) {
    json j = base_profile();
    j["costs"][1][c.key] = c.value;
    SCOPED_TRACE(std::string(c.key) + " = " + c.value.dump());
    expect_contains(error_of(j), {"costs[1]", c.key});
  }
  for (const char* key : {"op", "base_us", "us_per_work"}) {
    json j = base_profile();
    j["costs"][1].erase(key);
    SCOPED_TRACE(key);
    expect_contains(error_of(j), {"costs[1]", "missing", key});
  }
}

TEST(SimProfile, OverflowingNumber_IsRejected) {
  // JSON has no NaN or infinity; a literal too large for a double is the
  // closest a file can get. Either the parser or the range check rejects it.
  json j = base_profile();
  j["costs"][1]["base_us"] = 12345;
  std::string text = j.dump();
  const size_t at = text.find("12345");
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, 5, "1e999");
  auto p = parse_sim_profile(text, "test.json");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  const std::string& msg = p.status().message();
  EXPECT_TRUE(msg.find("base_us") != std::string::npos || msg.find("not valid JSON") != std::string::npos) << msg;
}

TEST(SimProfile, PointsNotIncreasing_NameThePoint) {
  json j = base_profile();
  j["costs"][2]["points"] = json::array({json::array({1000, 6}), json::array({500, 8})});
  expect_contains(error_of(j), {"costs[2].points[1]", "increase"});
  j["costs"][2]["points"] = json::array({json::array({1000, 6}), json::array({1000, 8})});
  expect_contains(error_of(j), {"costs[2].points[1]", "increase"});
  // Decreasing times are allowed (only work must increase).
  j["costs"][2]["points"] = json::array({json::array({1000, 8}), json::array({2000, 6})});
  EXPECT_TRUE(parse(j).ok());
}

TEST(SimProfile, BadPoints_NameThePoint) {
  const json bad_points[] = {
      json::array({json::array({1000})}),                  // not a pair
      json::array({json::array({1000, 6, 7})}),            // a triple
      json::array({json::array({"1000", 6})}),             // a string
      json::array({json::object({{"work", 1}})}),          // an object
      json::array({json::array({0, 6})}),                  // work not positive
      json::array({json::array({-5, 6})}),                 // work negative
      json::array({json::array({1e31, 6})}),               // work too large
      json::array({json::array({1000, -1})}),              // negative time
      json::array({json::array({1000, 2e9})}),             // time too large
  };
  for (const json& pts : bad_points) {
    json j = base_profile();
    j["costs"][2]["points"] = pts;
    SCOPED_TRACE(pts.dump());
    expect_contains(error_of(j), {"costs[2].points[0]"});
  }
  json j = base_profile();
  j["costs"][2]["points"] = 3;
  expect_contains(error_of(j), {"costs[2]", "points"});
  j["costs"][2]["points"] = json::array();
  for (int i = 0; i < 257; ++i) j["costs"][2]["points"].push_back(json::array({i + 1, 1}));
  expect_contains(error_of(j), {"costs[2]", "points"});
}

TEST(SimProfile, UnknownClassInLinks_IsInvalidArgument) {
  json j = base_profile();
  j["links"][1]["to"] = "a100";
  expect_contains(error_of(j), {"links[1]", "unknown class 'a100'"});
  j = base_profile();
  j["links"][4]["from"] = "tpu";
  expect_contains(error_of(j), {"links[4]", "unknown class 'tpu'"});
}

TEST(SimProfile, BadLinkFields_NameTheField) {
  struct Case {
    const char* key;
    json value;
  };
  const Case cases[] = {{"scope", "global"},    {"scope", 1},           {"latency_us", -1},
                        {"latency_us", 2e9},    {"bandwidth_gbps", 0},  {"bandwidth_gbps", -3},
                        {"bandwidth_gbps", 2e6}, {"from", ""},          {"to", 7}};
  for (const Case& c : cases) {
    json j = base_profile();
    j["links"][2][c.key] = c.value;
    SCOPED_TRACE(std::string(c.key) + " = " + c.value.dump());
    expect_contains(error_of(j), {"links[2]", c.key});
  }
  for (const char* key : {"from", "to", "latency_us", "bandwidth_gbps"}) {
    json j = base_profile();
    j["links"][2].erase(key);
    SCOPED_TRACE(key);
    expect_contains(error_of(j), {"links[2]", "missing", key});
  }
  json j = base_profile();
  j["links"] = json::object();
  expect_contains(error_of(j), {"links"});
}

TEST(SimProfile, MissingLocalLink_NamesTheDevicePair) {
  json j = base_profile();
  j["nodes"] = 1;
  j["links"].erase(0);  // no "*"->"*" local: core->core has nothing
  expect_contains(error_of(j), {"links", "no local link", "class 'core' to class 'core'", "cpu:0 -> cpu:1"});

  j = base_profile();
  j["nodes"] = 1;
  j["devices"][0]["count"] = 1;
  j["links"] = json::array({{{"from", "core"}, {"to", "h100"}, {"latency_us", 1}, {"bandwidth_gbps", 1}},
                            {{"from", "h100"}, {"to", "h100"}, {"latency_us", 1}, {"bandwidth_gbps", 1}}});
  // cpu:0 -> cuda:0 and cuda:0 -> cuda:1 are covered, the way back is not.
  expect_contains(error_of(j), {"no local link", "class 'h100' to class 'core'", "cuda:0 -> cpu:0"});
}

TEST(SimProfile, MissingRemoteLink_NamesTheDevicePair) {
  json j = base_profile();  // 2 nodes
  j["links"].erase(3);      // only h100 -> h100 remains remote
  expect_contains(error_of(j), {"links", "no remote link", "class 'core' to class 'core'", "cpu:0 -> cpu:2"});

  // A remote link does not stand in for a missing local one.
  j = base_profile();
  j["nodes"] = 1;
  j["links"] = json::array({{{"from", "*"}, {"to", "*"}, {"scope", "remote"}, {"latency_us", 1}, {"bandwidth_gbps", 1}}});
  expect_contains(error_of(j), {"no local link", "cpu:0 -> cpu:1"});
}

// --- SimCost::predict_us -----------------------------------------------------

TEST(SimCost, Line_IsBasePlusSlopeTimesWork) {
  SimCost c;
  c.base_us = 2;
  c.us_per_work = 0.5;
  EXPECT_DOUBLE_EQ(c.predict_us(0), 2.0);
  EXPECT_DOUBLE_EQ(c.predict_us(10), 7.0);
  EXPECT_DOUBLE_EQ(c.predict_us(1e6), 2.0 + 5e5);
  EXPECT_DOUBLE_EQ(c.predict_us(-100), 2.0);  // negative work counts as none
}

TEST(SimCost, Line_IsFlooredAtFiftyNanoseconds) {
  SimCost c;
  EXPECT_DOUBLE_EQ(c.predict_us(0), 0.05);
  EXPECT_DOUBLE_EQ(c.predict_us(1e9), 0.05);
  c.us_per_work = 1e-3;
  EXPECT_DOUBLE_EQ(c.predict_us(10), 0.05);     // 0.01 us
  EXPECT_DOUBLE_EQ(c.predict_us(100), 0.1);     // above the floor
}

SimCost points_cost() {
  SimCost c;
  c.base_us = 1000;  // ignored once there are points
  c.us_per_work = 0.1;
  c.points = {{100, 10}, {200, 30}, {400, 40}};
  return c;
}

TEST(SimCost, Points_InterpolateLinearly) {
  const SimCost c = points_cost();
  EXPECT_DOUBLE_EQ(c.predict_us(100), 10.0);
  EXPECT_DOUBLE_EQ(c.predict_us(150), 20.0);
  EXPECT_DOUBLE_EQ(c.predict_us(200), 30.0);
  EXPECT_DOUBLE_EQ(c.predict_us(300), 35.0);
  EXPECT_DOUBLE_EQ(c.predict_us(350), 37.5);
  EXPECT_DOUBLE_EQ(c.predict_us(400), 40.0);
}

TEST(SimCost, Points_ExtrapolateWithTheLineSlopeFromTheEnds) {
  const SimCost c = points_cost();
  EXPECT_DOUBLE_EQ(c.predict_us(500), 50.0);    // 40 + 0.1 * 100
  EXPECT_DOUBLE_EQ(c.predict_us(1400), 140.0);  // 40 + 0.1 * 1000
  EXPECT_DOUBLE_EQ(c.predict_us(50), 5.0);      // 10 - 0.1 * 50
  EXPECT_DOUBLE_EQ(c.predict_us(0), 0.05);      // 10 - 0.1 * 100 = 0: floored
  SimCost flat = c;
  flat.us_per_work = 0;
  EXPECT_DOUBLE_EQ(flat.predict_us(1e6), 40.0);
  EXPECT_DOUBLE_EQ(flat.predict_us(1), 10.0);
}

TEST(SimCost, SinglePoint_ActsAsAnAnchorForTheSlope) {
  SimCost c;
  c.us_per_work = 2;
  c.points = {{10, 100}};
  EXPECT_DOUBLE_EQ(c.predict_us(10), 100.0);
  EXPECT_DOUBLE_EQ(c.predict_us(15), 110.0);
  EXPECT_DOUBLE_EQ(c.predict_us(5), 90.0);
}

TEST(SimCost, Points_TimesBelowTheFloorAreRaised) {
  SimCost c;
  c.points = {{1, 0}, {2, 1}};
  EXPECT_DOUBLE_EQ(c.predict_us(1), 0.05);
  EXPECT_DOUBLE_EQ(c.predict_us(1.5), 0.5);
}

TEST(SimCost, ParsedProfile_PredictsFromItsPoints) {
  auto p = parse(base_profile());
  ASSERT_TRUE(p.ok());
  const SimCost& h = p->classes[1].cost("Relu");
  EXPECT_DOUBLE_EQ(h.predict_us(1500), 7.0);
  EXPECT_DOUBLE_EQ(h.predict_us(3000), 8.0 + 0.0001 * 1000);
  const SimCost& mm = p->classes[0].cost("MatMul");
  EXPECT_DOUBLE_EQ(mm.predict_us(1000), 11.0);
}

}  // namespace
}  // namespace sy

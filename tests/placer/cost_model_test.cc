#include "placer/cost_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>
#include <unistd.h>
#include <vector>

#include "devices/cpu/cpu_device.h"

namespace sy {
namespace {

constexpr DeviceId kCpu0{DeviceKind::kCpu, 0};
constexpr DeviceId kCpu1{DeviceKind::kCpu, 1};

Node make_node(const std::string& op, const std::string& domain = "") {
  Node n;
  n.op_type = op;
  n.domain = domain;
  return n;
}

double work_of(CostModel& m, int slot, std::vector<const Dims*> dims) { return m.work(slot, dims); }

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("sy_cost_model_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

std::string write_file(const std::string& name, const std::string& text) {
  std::string p = temp_path(name);
  std::ofstream(p) << text;
  return p;
}

TEST(CostModel, Slot_SameKeySameSlot_OtherDeviceOrDomainDiffers) {
  CostModel m;
  Node a = make_node("MatMul"), b = make_node("MatMul"), c = make_node("MatMul", "com.microsoft");
  int s = m.slot(a, kCpu0);
  EXPECT_EQ(m.slot(b, kCpu0), s);
  EXPECT_NE(m.slot(a, kCpu1), s);
  EXPECT_NE(m.slot(c, kCpu0), s);
  EXPECT_NE(m.slot(c, kCpu0), m.slot(a, kCpu1));
}

TEST(CostModel, Work_MatMulCountsMultiplyAdds_WithBatchAndVectors) {
  CostModel m;
  int s = m.slot(make_node("MatMul"), kCpu0);
  Dims a{2, 3, 4}, b{4, 5}, v{4}, bb{7, 1, 4, 5}, a2{3, 4};
  EXPECT_DOUBLE_EQ(work_of(m, s, {&a, &b}), 2 * 3 * 4 * 5);
  EXPECT_DOUBLE_EQ(work_of(m, s, {&v, &b}), 4 * 5);
  EXPECT_DOUBLE_EQ(work_of(m, s, {&a2, &v}), 3 * 4);
  EXPECT_DOUBLE_EQ(work_of(m, s, {&a, &bb}), 7 * 3 * 4 * 5);  // broadcast batch
}

TEST(CostModel, Work_GemmIsMKNWhateverTheTransposes) {
  CostModel m;
  int s = m.slot(make_node("Gemm"), kCpu0);
  Dims a{3, 4}, at{4, 3}, b{4, 5}, bt{5, 4}, c{5};
  EXPECT_DOUBLE_EQ(work_of(m, s, {&a, &b, &c}), 60);
  EXPECT_DOUBLE_EQ(work_of(m, s, {&a, &bt, &c}), 60);
  EXPECT_DOUBLE_EQ(work_of(m, s, {&at, &b}), 60);
  EXPECT_DOUBLE_EQ(work_of(m, s, {&at, &bt}), 60);
}

TEST(CostModel, Work_ConvUsesKernelAndSpatialDims) {
  CostModel m;
  int conv = m.slot(make_node("Conv"), kCpu0);
  Dims x{2, 3, 8, 8}, w{16, 3, 3, 3}, bias{16};
  EXPECT_DOUBLE_EQ(work_of(m, conv, {&x, &w, &bias}), 2.0 * 16 * 3 * 9 * 64);
  Dims wg{16, 1, 3, 3};  // depthwise-like grouping: Cin/g = 1
  EXPECT_DOUBLE_EQ(work_of(m, conv, {&x, &wg}), 2.0 * 16 * 1 * 9 * 64);
  int convt = m.slot(make_node("ConvTranspose"), kCpu0);
  Dims xt{1, 4, 5, 5}, wt{4, 6, 2, 2};  // [Cin, Cout/g, k, k]
  EXPECT_DOUBLE_EQ(work_of(m, convt, {&xt, &wt}), 1.0 * 4 * 6 * 4 * 25);
}

TEST(CostModel, Work_GenericSumsPresentInputs_AtLeastOne) {
  CostModel m;
  int s = m.slot(make_node("Add"), kCpu0);
  Dims a{2, 3}, b{3}, z{0, 4};
  EXPECT_DOUBLE_EQ(work_of(m, s, {&a, &b}), 9);
  EXPECT_DOUBLE_EQ(work_of(m, s, {&a, nullptr, &b}), 9);
  EXPECT_DOUBLE_EQ(work_of(m, s, {nullptr}), 1);
  EXPECT_DOUBLE_EQ(work_of(m, s, {&z}), 1);
  // A MatMul whose operand is absent falls back to the generic count.
  int mm = m.slot(make_node("MatMul"), kCpu0);
  EXPECT_DOUBLE_EQ(work_of(m, mm, {&a, nullptr}), 6);
}

TEST(CostModel, Predict_NothingKnown_IsDefaultGuess) {
  CostModel m;
  int s = m.slot(make_node("Relu"), kCpu0);
  EXPECT_DOUBLE_EQ(m.predict_us(s, 0), 1.0);
  EXPECT_DOUBLE_EQ(m.predict_us(s, 1e6), 1.0 + 1e6 * 0.5e-3);
  EXPECT_DOUBLE_EQ(m.predict_us(-1, 2000), 2.0);  // invalid slots are harmless
}

TEST(CostModel, Predict_SeenShapeClass_UsesBucketHistory) {
  CostModel m;
  int s = m.slot(make_node("MatMul"), kCpu0);
  m.record(s, 1000, 10);
  m.record(s, 1000, 14);
  m.record(s, 1000, 18);
  EXPECT_NEAR(m.predict_us(s, 1000), 14, 1e-9);  // plain mean while young
  EXPECT_NEAR(m.predict_us(s, 1010), 14, 1e-9);  // same log2 class
  // After many samples the bucket follows a change of regime.
  for (int i = 0; i < 40; ++i) m.record(s, 1000, 50);
  EXPECT_NEAR(m.predict_us(s, 1000), 50, 0.1);
}

TEST(CostModel, Predict_UnseenShapeClass_UsesSlotRegression) {
  CostModel m;
  int s = m.slot(make_node("MatMul"), kCpu0);
  m.record(s, 1000, 11);  // time = 1 + 0.01 * work
  m.record(s, 4000, 41);
  EXPECT_NEAR(m.predict_us(s, 64000), 641, 0.5);
  EXPECT_NEAR(m.predict_us(s, 16000), 161, 0.2);
  // Below the data the line is bounded by the nearest larger measured class
  // (and floored), never negative.
  EXPECT_GE(m.predict_us(s, 1), 0.05);
  EXPECT_LE(m.predict_us(s, 1), 11);
}

TEST(CostModel, Predict_UnseenShapeClass_LineBoundedByMeasuredNeighbours) {
  CostModel m;
  int s = m.slot(make_node("Conv"), kCpu0);
  m.record(s, 100, 50);  // a slow small shape (launch overhead dominates)
  m.record(s, 10000, 60);
  m.record(s, 1000000, 10000);
  // The line alone says ~7.7 us at work 300 and ~35 us at 3000; a larger
  // shape is not faster than the 50 us measured for a smaller one.
  EXPECT_NEAR(m.predict_us(s, 300), 50, 1e-9);
  EXPECT_NEAR(m.predict_us(s, 3000), 50, 1e-9);
  // Between 10000 (60 us) and 1e6 (10000 us) the line itself applies.
  EXPECT_NEAR(m.predict_us(s, 100000), 4.7475 + 0.0099948 * 100000, 0.5);
}

TEST(CostModel, Predict_UnseenOp_UsesDevicePooledLine) {
  CostModel m;
  int a = m.slot(make_node("MatMul"), kCpu0);
  int b = m.slot(make_node("Gemm"), kCpu0);
  int other = m.slot(make_node("Gemm"), kCpu1);
  m.record(a, 1000, 20);  // cpu:0 pooled: time = 0.02 * work
  m.record(a, 3000, 60);
  EXPECT_NEAR(m.predict_us(b, 2000), 40, 0.1);
  // Nothing at all measured on cpu:1: the fixed guess.
  EXPECT_DOUBLE_EQ(m.predict_us(other, 2000), 1.0 + 2000 * 0.5e-3);
}

TEST(CostModel, Predict_OpSeenOnOtherDevice_ScaledByDeviceSpeed) {
  CostModel m;
  int a0 = m.slot(make_node("MatMul"), kCpu0);
  int a1 = m.slot(make_node("MatMul"), kCpu1);
  int c0 = m.slot(make_node("Conv"), kCpu0);
  int c1 = m.slot(make_node("Conv"), kCpu1);
  m.record(c0, 1000, 10);  // Conv: cpu:1 runs it at half the time of cpu:0
  m.record(c0, 200000, 2000);
  m.record(c1, 1000, 5);
  m.record(c1, 200000, 1000);
  m.record(a0, 100000, 100);  // MatMul, measured on cpu:0 only, is a fast op
  // cpu:1's pooled line alone would say ~500 us. The MatMul history scaled
  // by the devices' pooled ratio at this work (500 / ~700) says ~71.
  double p = m.predict_us(a1, 100000);
  EXPECT_GT(p, 50);
  EXPECT_LT(p, 100);
}

TEST(CostModel, Error_ComparesPredictionBeforeUpdate) {
  CostModel m;
  int s = m.slot(make_node("Relu"), kCpu0);
  EXPECT_EQ(m.error().samples, 0);
  m.record(s, 1000, 1.5);  // default guess 1.5: exact
  m.record(s, 1000, 3.0);  // bucket says 1.5: off by 50%
  PredictionError e = m.error();
  EXPECT_EQ(e.samples, 2);
  EXPECT_NEAR(e.mean_abs_rel, 0.25, 1e-9);
  EXPECT_NEAR(e.median_abs_rel, 0.5, 1e-6);  // upper median of {0, 0.5}
}

TEST(CostModel, Record_IgnoresInvalidMeasurements) {
  CostModel m;
  int s = m.slot(make_node("Relu"), kCpu0);
  m.record(s, 1000, std::nan(""));
  m.record(s, 1000, -3);
  m.record(s, 1000, INFINITY);
  m.record(-1, 1000, 5);
  m.record(1 << 30, 1000, 5);
  EXPECT_EQ(m.error().samples, 0);
  EXPECT_DOUBLE_EQ(m.predict_us(s, 1000), 1.5);
}

TEST(CostModel, Issue_ZeroUntilMeasured_ThenFollowsTheRecentAverage) {
  CostModel m;
  EXPECT_DOUBLE_EQ(m.issue_us(0), 0);
  m.record_issue(0, 8);  // the first sample is taken as is
  EXPECT_DOUBLE_EQ(m.issue_us(0), 8);
  m.record_issue(0, 0);  // then averaged with weight 1/8
  EXPECT_DOUBLE_EQ(m.issue_us(0), 7);
  for (int i = 0; i < 200; ++i) m.record_issue(0, 2);
  EXPECT_NEAR(m.issue_us(0), 2, 1e-6);
  // Each device, and each link's copies, are learned apart.
  EXPECT_DOUBLE_EQ(m.issue_us(1), 0);
  EXPECT_DOUBLE_EQ(m.copy_issue_us(0, 1), 0);
  m.record_copy_issue(0, 1, 90);
  m.record_copy_issue(1, 0, 5);
  EXPECT_DOUBLE_EQ(m.copy_issue_us(0, 1), 90);
  EXPECT_DOUBLE_EQ(m.copy_issue_us(1, 0), 5);
  EXPECT_NEAR(m.issue_us(0), 2, 1e-6) << "kernels' issue time is apart from copies'";
  EXPECT_DOUBLE_EQ(m.issue_us(1), 0);
}

TEST(CostModel, Issue_IgnoresInvalidMeasurementsAndDevices) {
  CostModel m;
  m.record_issue(0, 4);
  m.record_issue(0, std::nan(""));
  m.record_issue(0, -1);
  m.record_issue(0, INFINITY);
  EXPECT_DOUBLE_EQ(m.issue_us(0), 4);
  m.record_issue(-1, 4);
  m.record_issue(1 << 20, 4);
  EXPECT_DOUBLE_EQ(m.issue_us(-1), 0);
  EXPECT_DOUBLE_EQ(m.issue_us(1 << 20), 0);
  m.record_copy_issue(-1, 0, 4);
  m.record_copy_issue(0, 1 << 20, 4);
  m.record_copy_issue(0, 1, std::nan(""));
  EXPECT_DOUBLE_EQ(m.copy_issue_us(-1, 0), 0);
  EXPECT_DOUBLE_EQ(m.copy_issue_us(0, 1 << 20), 0);
  EXPECT_DOUBLE_EQ(m.copy_issue_us(0, 1), 0);
}

// Transfers start from the topology's links and then follow the copies
// measured on each link, each direction apart.
TEST(CostModel, Transfers_FollowMeasuredCopies_PerDirection) {
  CpuDevice d0(0), d1(1);
  Topology topo({&d0, &d1});
  topo.set_link(0, 1, {10, 1});  // 10 us + 1 GB/s: 1 MB in 1010 us
  topo.set_link(1, 0, {10, 1});
  CostModel m;
  m.set_topology(topo);
  EXPECT_DOUBLE_EQ(m.transfer_us(0, 1, 1'000'000), 1010);
  EXPECT_DOUBLE_EQ(m.transfer_us(0, 0, 1'000'000), 0);
  // Copies of one size measure the bandwidth past the prior's latency.
  for (int i = 0; i < 4; ++i) m.record_copy(0, 1, 1'000'000, 110);
  EXPECT_NEAR(m.transfer_us(0, 1, 1'000'000), 110, 0.01);
  EXPECT_NEAR(m.transfer_us(0, 1, 2'000'000), 210, 0.01);
  EXPECT_NEAR(m.transfer_us(0, 1, 0), 10, 0.01);
  EXPECT_DOUBLE_EQ(m.transfer_us(1, 0, 1'000'000), 1010) << "the other direction is its own link";
  // Spaces the topology lacks are ignored (LinkModel's tests cover the rest).
  m.record_copy(5, 0, 100, 1);
  m.record_copy(0, -1, 100, 1);
  EXPECT_NEAR(m.transfer_us(0, 1, 1'000'000), 110, 0.01);
  // A profile saves the link as measured: the next session starts there.
  const std::string path = temp_path("learned_link.json");
  ASSERT_TRUE(m.save(path).ok());
  CostModel n;
  n.set_topology(topo);
  ASSERT_TRUE(n.load(path).ok());
  EXPECT_NEAR(n.transfer_us(0, 1, 2'000'000), 210, 0.01);
  EXPECT_DOUBLE_EQ(n.transfer_us(1, 0, 1'000'000), 1010);
  std::filesystem::remove(path);
}

TEST(CostModel, Json_RoundTrip_PreservesPredictionsAndLinks) {
  CpuDevice d0(0), d1(1);
  Topology topo({&d0, &d1});
  ASSERT_EQ(topo.num_spaces(), 2u);
  topo.set_link(0, 1, Link{3.5, 12.0});
  topo.set_link(1, 0, Link{4.5, 10.0});

  CostModel m;
  m.set_topology(topo);
  Node mm = make_node("MatMul"), custom = make_node("Fancy", "my.domain");
  int s = m.slot(mm, kCpu0), c = m.slot(custom, kCpu1);
  m.record(s, 1000, 11);
  m.record(s, 4000, 41);
  m.record(s, 4000, 43);
  m.record(c, 77, 3.25);
  std::string path = temp_path("roundtrip.json");
  ASSERT_TRUE(m.save(path).ok());

  CostModel n;
  n.set_topology(Topology({&d0, &d1}));  // default links, overwritten by load
  Status st = n.load(path);
  ASSERT_TRUE(st.ok()) << st.to_string();
  // Slots created by load are found by later slot() calls with the same key.
  int s2 = n.slot(mm, kCpu0), c2 = n.slot(custom, kCpu1);
  for (double w : {1000.0, 4000.0, 64000.0, 10.0})
    EXPECT_NEAR(n.predict_us(s2, w), m.predict_us(s, w), 1e-6 * m.predict_us(s, w)) << w;
  EXPECT_DOUBLE_EQ(n.predict_us(c2, 77), 3.25);
  EXPECT_DOUBLE_EQ(n.topology().link(0, 1).latency_us, 3.5);
  EXPECT_DOUBLE_EQ(n.topology().link(1, 0).bandwidth_gbps, 10.0);
  EXPECT_NEAR(n.transfer_us(0, 1, 12000), 3.5 + 1.0, 1e-9);

  // Loading again merges: bucket counts add up, the mean stays.
  ASSERT_TRUE(n.load(path).ok());
  EXPECT_DOUBLE_EQ(n.predict_us(c2, 77), 3.25);
  std::filesystem::remove(path);
}

TEST(CostModel, Json_LoadMergesLines_AsIfRecordedTogether) {
  Node mm = make_node("MatMul");
  CostModel a, b, both;
  int sa = a.slot(mm, kCpu0), sb = b.slot(mm, kCpu0), s = both.slot(mm, kCpu0);
  // Noisy samples of 1 + 0.01 * work, split between two models.
  a.record(sa, 1000, 12);
  a.record(sa, 4000, 40);
  b.record(sb, 16000, 163);
  b.record(sb, 2000, 20);
  for (auto [w, t] : {std::pair{1000.0, 12.0}, {4000.0, 40.0}, {16000.0, 163.0}, {2000.0, 20.0}}) both.record(s, w, t);
  std::string path = temp_path("merge.json");
  ASSERT_TRUE(b.save(path).ok());
  ASSERT_TRUE(a.load(path).ok());
  EXPECT_NEAR(a.predict_us(sa, 256000), both.predict_us(s, 256000), 1e-3 * both.predict_us(s, 256000));
  // The pooled device line merged too: an unseen op on cpu:0 agrees.
  int ga = a.slot(make_node("Gemm"), kCpu0), gb = both.slot(make_node("Gemm"), kCpu0);
  EXPECT_NEAR(a.predict_us(ga, 500000), both.predict_us(gb, 500000), 1e-3 * both.predict_us(gb, 500000));
  std::filesystem::remove(path);
}

TEST(CostModel, Json_LinksOfUnknownSpaces_ApplyOnLaterTopology) {
  std::string path = write_file("links.json", R"({"version":1,"ops":[],"links":[
      {"from":"cpu-mem:0","to":"cpu-mem:1","latency_us":7,"bandwidth_gbps":1}]})");
  CostModel m;
  ASSERT_TRUE(m.load(path).ok());
  CpuDevice d0(0), d1(1);
  m.set_topology(Topology({&d0, &d1}));
  ASSERT_EQ(m.topology().space(0).to_string(), "cpu-mem:0");
  EXPECT_DOUBLE_EQ(m.topology().link(0, 1).latency_us, 7);
  std::filesystem::remove(path);
}

TEST(CostModel, Json_Malformed_GivesClearErrorsAndChangesNothing) {
  CostModel m;
  EXPECT_EQ(m.load(temp_path("does_not_exist.json")).code(), StatusCode::kNotFound);
  // A folder opens as a stream, and reading it threw out of the parser.
  const Status folder = m.load(std::filesystem::temp_directory_path().string());
  EXPECT_EQ(folder.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(folder.message().find("not a regular file"), std::string::npos) << folder.to_string();
  struct Case {
    const char* text;
    const char* expect;  // substring of the message
  };
  const Case cases[] = {
      {"{not json", "not valid JSON"},
      {"[1,2]", "must be an object"},
      {R"({"ops":[]})", "version"},
      {R"({"version":2,"ops":[]})", "version"},
      {R"({"version":1,"ops":{}})", "ops: must be an array"},
      {R"({"version":1,"ops":[{"device":"cpu:0"}]})", "'op'"},
      {R"({"version":1,"ops":[{"op":"Add","device":"gpu:0"}]})", "bad device"},
      {R"({"version":1,"ops":[{"op":"Add","device":"cpu:0","buckets":[[99,1.0,1]]}]})", "class"},
      {R"({"version":1,"ops":[{"op":"Add","device":"cpu:0","buckets":[[3,-1.0,1]]}]})", "mean_us"},
      {R"({"version":1,"ops":[{"op":"Add","device":"cpu:0","buckets":[[3,1.0,0]]}]})", "count"},
      {R"({"version":1,"ops":[{"op":"Add","device":"cpu:0","buckets":[[3,"x",1]]}]})", "buckets[0]"},
      {R"({"version":1,"ops":[{"op":"Add","device":"cpu:0","line":{"n":"2"}}]})", "'n'"},
      {R"({"version":1,"ops":[{"op":"Add","device":"cpu:0","line":{"n":2,"mean_work":1}}]})", "mean_us"},
      {R"({"version":1,"links":[{"from":"a","to":"b","latency_us":-1,"bandwidth_gbps":1}]})", "latency_us"},
      {R"({"version":1,"links":[{"from":"a","to":"b","latency_us":1}]})", "bandwidth_gbps"},
  };
  int i = 0;
  for (const Case& c : cases) {
    std::string path = write_file("bad" + std::to_string(i++) + ".json", c.text);
    Status st = m.load(path);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << c.text;
    EXPECT_NE(st.message().find(c.expect), std::string::npos) << c.text << " -> " << st.message();
    EXPECT_NE(st.message().find(path), std::string::npos) << st.message();
    std::filesystem::remove(path);
  }
  // A file that is valid up to its last entry merges nothing.
  std::string path = write_file("partial.json", R"({"version":1,"ops":[
      {"op":"Relu","device":"cpu:0","buckets":[[9,123.0,5]]},
      {"op":"Add","device":"cpu:0","buckets":[[3,-1.0,1]]}]})");
  EXPECT_FALSE(m.load(path).ok());
  int s = m.slot(make_node("Relu"), kCpu0);
  EXPECT_DOUBLE_EQ(m.predict_us(s, 1000), 1.5);
  std::filesystem::remove(path);
}

TEST(CostModel, Record_ConcurrentThreads_CountsEverySample) {
  CostModel m;
  std::vector<int> slots;
  for (const char* op : {"Add", "Mul", "MatMul"})
    for (DeviceId d : {kCpu0, kCpu1}) slots.push_back(m.slot(make_node(op), d));
  constexpr int kThreads = 4, kPerThread = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        int s = slots[static_cast<size_t>((i + t) % slots.size())];
        double w = (i % 2) ? 1000 : 64000;
        m.record(s, w, w / 100.0);  // exactly linear, identical in every thread
        (void)m.predict_us(s, 8000);
      }
    });
  }
  // Slots created while others record must not disturb them.
  for (int i = 0; i < 400; ++i) (void)m.slot(make_node("Op" + std::to_string(i)), kCpu0);
  for (auto& th : threads) th.join();
  EXPECT_EQ(m.error().samples, kThreads * kPerThread);
  for (int s : slots) {
    EXPECT_NEAR(m.predict_us(s, 1000), 10, 1e-9);
    EXPECT_NEAR(m.predict_us(s, 64000), 640, 1e-9);
    EXPECT_NEAR(m.predict_us(s, 8000), 80, 0.05);  // the line, unseen class
  }
}

}  // namespace
}  // namespace sy

namespace sy {
namespace {

TEST(CostModel, ColdFirstSample_IsReplacedByAFastSecondOne) {
  CostModel m;
  int s = m.slot(make_node("Relu"), kCpu0);
  EXPECT_EQ(m.samples(s, 1000), 0);
  m.record(s, 1000, 5000);  // cold: page faults, thread start-up
  m.record(s, 1000, 50);
  EXPECT_EQ(m.samples(s, 1000), 2);
  EXPECT_NEAR(m.predict_us(s, 1000), 50, 1e-9);
  // Later samples average as usual: a slow one moves the estimate up.
  for (int i = 0; i < 5; ++i) m.record(s, 1000, 50);
  m.record(s, 1000, 150);
  EXPECT_GT(m.predict_us(s, 1000), 60);
}

}  // namespace
}  // namespace sy

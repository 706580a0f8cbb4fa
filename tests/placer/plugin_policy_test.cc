// Tests for loading placement policies from shared libraries (the C ABI of
// placer/plugin_abi.h): the example plugin's decisions, the field-by-field
// conversion of requests, and every load error.
#include "placer/plugin_policy.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "placer/policy_registry.h"
#include "tests/placer/plugins/record_policy.h"

namespace sy {
namespace {

constexpr MemorySpace kCudaSpace{DeviceKind::kCuda, 0};

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::unique_ptr<PlacementPolicy> load_or_die(const std::string& path) {
  auto p = load_plugin_policy(path, PolicyOptions{});
  EXPECT_TRUE(p.ok()) << p.status().to_string();
  return p.ok() ? std::move(*p) : nullptr;
}

Candidate make_candidate(DeviceKind kind, int index, double compute, double transfer, double backlog) {
  Candidate c;
  c.device = DeviceId{kind, 0};
  c.space = MemorySpace{kind, 0};
  c.device_index = index;
  c.predicted_compute_us = compute;
  c.predicted_transfer_us = transfer;
  c.backlog_us = backlog;
  return c;
}

InputInfo make_input(MemorySpace where, uint64_t bytes, const Dims* dims = nullptr) {
  InputInfo in;
  in.location = where;
  in.dtype = DataType::kFloat;
  in.dims = dims;
  in.bytes = bytes;
  return in;
}

int place(PlacementPolicy& p, std::span<const InputInfo> inputs, std::span<const Candidate> candidates) {
  PlacementRequest r;
  r.inputs = inputs;
  r.candidates = candidates;
  return p.place(r).candidate;
}

TEST(PluginPolicy, ExamplePlugin_LoadsWithItsNameAndUsesCosts) {
  auto p = load_or_die(SY_EXAMPLE_POLICY_PLUGIN);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->name(), "size-threshold");
  EXPECT_TRUE(p->uses_costs());
}

TEST(PluginPolicy, ExampleLargeNode_ChoosesEarliestFinishOverDataLocality) {
  auto p = load_or_die(SY_EXAMPLE_POLICY_PLUGIN);
  ASSERT_NE(p, nullptr);
  // All data on the host, but the GPU finishes at 10 + 50 + 100 = 160 µs
  // against the CPU's 500 µs.
  Candidate c[] = {make_candidate(DeviceKind::kCpu, 0, 500, 0, 0), make_candidate(DeviceKind::kCuda, 1, 100, 50, 10)};
  InputInfo in[] = {make_input(kHostSpace, 1 << 20), make_input(kHostSpace, 1 << 20)};
  EXPECT_EQ(place(*p, in, c), 1);
  // A long GPU queue tips it back to the CPU.
  c[1].backlog_us = 1000;
  EXPECT_EQ(place(*p, in, c), 0);
}

TEST(PluginPolicy, ExampleSmallNode_StaysWhereMostInputBytesLive) {
  auto p = load_or_die(SY_EXAMPLE_POLICY_PLUGIN);
  ASSERT_NE(p, nullptr);
  // Both predicted under the default 50 µs: locality wins even though the
  // CPU is idle and the GPU is busy.
  Candidate c[] = {make_candidate(DeviceKind::kCpu, 0, 10, 5, 0), make_candidate(DeviceKind::kCuda, 1, 2, 0, 300)};
  InputInfo on_gpu[] = {make_input(kCudaSpace, 4096), make_input(kHostSpace, 16)};
  EXPECT_EQ(place(*p, on_gpu, c), 1);
  InputInfo on_host[] = {make_input(kCudaSpace, 16), make_input(kHostSpace, 4096)};
  EXPECT_EQ(place(*p, on_host, c), 0);
}

TEST(PluginPolicy, ExampleSmallNodeWithoutInputs_TieBrokenByEarliestFinish) {
  auto p = load_or_die(SY_EXAMPLE_POLICY_PLUGIN);
  ASSERT_NE(p, nullptr);
  Candidate c[] = {make_candidate(DeviceKind::kCpu, 0, 3, 0, 40), make_candidate(DeviceKind::kCuda, 1, 2, 0, 1)};
  EXPECT_EQ(place(*p, {}, c), 1);
}

TEST(PluginPolicy, ExampleThresholdOption_ChangesWhatCountsAsLarge) {
  Candidate c[] = {make_candidate(DeviceKind::kCpu, 0, 20, 5, 0), make_candidate(DeviceKind::kCuda, 1, 10, 0, 100)};
  InputInfo in[] = {make_input(kCudaSpace, 4096)};
  auto dflt = load_or_die(SY_EXAMPLE_POLICY_PLUGIN);
  auto low = load_or_die(std::string(SY_EXAMPLE_POLICY_PLUGIN) + "?threshold_us=5");
  ASSERT_NE(dflt, nullptr);
  ASSERT_NE(low, nullptr);
  EXPECT_EQ(place(*dflt, in, c), 1);  // small at 50 µs: stays with its data
  EXPECT_EQ(place(*low, in, c), 0);   // large at 5 µs: CPU finishes at 25 < 110
}

TEST(PluginPolicy, ExampleBadOption_FailsWithPluginsReasonAndPath) {
  std::string path = std::string(SY_EXAMPLE_POLICY_PLUGIN) + "?threshold_us=fast";
  auto p = load_plugin_policy(path, PolicyOptions{});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(contains(p.status().message(), SY_EXAMPLE_POLICY_PLUGIN)) << p.status().message();
  EXPECT_TRUE(contains(p.status().message(), "threshold_us must be")) << p.status().message();
  EXPECT_TRUE(contains(p.status().message(), "seed=0,threshold_us=fast")) << p.status().message();
}

TEST(PluginPolicy, ExampleConcurrentPlaceAndObserve_GiveConsistentAnswers) {
  auto p = load_or_die(SY_EXAMPLE_POLICY_PLUGIN "?verbose=0");
  ASSERT_NE(p, nullptr);
  Candidate c[] = {make_candidate(DeviceKind::kCpu, 0, 500, 0, 0), make_candidate(DeviceKind::kCuda, 1, 100, 50, 10)};
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        if (place(*p, {}, c) != 1) wrong.fetch_add(1);
        p->observe(Completion{nullptr, nullptr, DeviceId{DeviceKind::kCuda, 0}, 1, 1.0, 100, 120});
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(PluginPolicy, TwoPoliciesFromOneLibrary_OutliveEachOther) {
  auto a = load_or_die(SY_EXAMPLE_POLICY_PLUGIN);
  auto b = load_or_die(SY_EXAMPLE_POLICY_PLUGIN);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  a.reset();  // closes one reference to the library, not b's
  Candidate c[] = {make_candidate(DeviceKind::kCpu, 0, 500, 0, 0), make_candidate(DeviceKind::kCuda, 1, 100, 50, 10)};
  EXPECT_EQ(place(*b, {}, c), 1);
}

// The record plugin copies what it sees into a global that the test reads
// through a second handle to the same, already loaded, library.
class PluginConversion : public ::testing::Test {
 protected:
  void SetUp() override {
    auto p = load_plugin_policy(SY_TEST_RECORD_POLICY_PLUGIN "?mode=fast", PolicyOptions{7});
    ASSERT_TRUE(p.ok()) << p.status().to_string();
    policy_ = std::move(*p);
    handle_ = dlopen(SY_TEST_RECORD_POLICY_PLUGIN, RTLD_NOW | RTLD_NOLOAD);
    ASSERT_NE(handle_, nullptr) << dlerror();
    auto fn = reinterpret_cast<sy_test_record_fn>(dlsym(handle_, SY_TEST_RECORD_SYMBOL));
    ASSERT_NE(fn, nullptr) << dlerror();
    rec_ = fn();
  }
  void TearDown() override {
    policy_.reset();
    if (handle_) dlclose(handle_);
  }
  std::unique_ptr<PlacementPolicy> policy_;
  void* handle_ = nullptr;
  const sy_test_record* rec_ = nullptr;
};

TEST_F(PluginConversion, Create_ReceivesSeedThenUserOptions) {
  EXPECT_STREQ(rec_->options, "seed=7,mode=fast");
  EXPECT_EQ(policy_->name(), "record");
  EXPECT_FALSE(policy_->uses_costs());  // it sets SY_POLICY_IGNORES_COSTS
}

TEST_F(PluginConversion, Place_SeesEveryRequestFieldAndMayWriteMemo) {
  Graph g("loop_body");
  Node n;
  n.id = 5;
  n.name = "mm_3";
  n.op_type = "MatMul";
  n.domain = "com.example";
  Dims d2{3, 4};
  Dims scalar{};
  InputInfo in[3];
  in[0] = make_input(kCudaSpace, 48, &d2);
  in[1] = make_input(kHostSpace, 8, &scalar);
  in[1].dtype = DataType::kInt64;
  in[2] = InputInfo{};  // omitted optional input
  Candidate c[] = {make_candidate(DeviceKind::kCpu, 0, 1.5, 2.5, 3.5), make_candidate(DeviceKind::kCuda, 2, 4, 5, 6)};
  c[1].device.ordinal = 1;
  c[0].issue_us = 0.5;
  c[1].issue_us = 7;
  c[1].output_transfer_us = 9;
  std::atomic<int32_t> memo{-1};
  PlacementRequest r;
  r.graph = &g;
  r.node = &n;
  r.depth = 2;
  r.inputs = in;
  r.candidates = c;
  r.memo = &memo;

  const int places_before = rec_->places;
  EXPECT_EQ(policy_->place(r).candidate, 1);  // the plugin picks the last
  EXPECT_EQ(rec_->places, places_before + 1);
  EXPECT_EQ(rec_->request_struct_size, sizeof(sy_place_request_v1));
  EXPECT_STREQ(rec_->op_type, "MatMul");
  EXPECT_STREQ(rec_->domain, "com.example");
  EXPECT_STREQ(rec_->node_name, "mm_3");
  EXPECT_STREQ(rec_->graph_name, "loop_body");
  EXPECT_EQ(rec_->depth, 2);
  EXPECT_EQ(rec_->node_id, 5);
  ASSERT_EQ(rec_->num_inputs, 3);
  EXPECT_EQ(rec_->inputs[0].location_kind, SY_DEVICE_CUDA);
  EXPECT_EQ(rec_->inputs[0].location_index, 0);
  EXPECT_EQ(rec_->inputs[0].dtype, 1);  // ONNX FLOAT
  EXPECT_EQ(rec_->inputs[0].rank, 2);
  EXPECT_EQ(rec_->dims[0][0], 3);
  EXPECT_EQ(rec_->dims[0][1], 4);
  EXPECT_EQ(rec_->inputs[0].bytes, 48u);
  EXPECT_EQ(rec_->inputs[1].location_kind, SY_DEVICE_CPU);
  EXPECT_EQ(rec_->inputs[1].dtype, 7);  // ONNX INT64
  EXPECT_EQ(rec_->inputs[1].rank, 0);
  EXPECT_EQ(rec_->inputs[2].dtype, 0);
  EXPECT_EQ(rec_->inputs[2].rank, -1);
  EXPECT_EQ(rec_->inputs[2].bytes, 0u);
  ASSERT_EQ(rec_->num_candidates, 2);
  EXPECT_EQ(rec_->candidates[0].device_kind, SY_DEVICE_CPU);
  EXPECT_DOUBLE_EQ(rec_->candidates[0].predicted_compute_us, 1.5);
  EXPECT_DOUBLE_EQ(rec_->candidates[0].predicted_transfer_us, 2.5);
  EXPECT_DOUBLE_EQ(rec_->candidates[0].backlog_us, 3.5);
  EXPECT_EQ(rec_->candidates[1].device_kind, SY_DEVICE_CUDA);
  EXPECT_EQ(rec_->candidates[1].device_ordinal, 1);
  EXPECT_EQ(rec_->candidates[1].memory_kind, SY_DEVICE_CUDA);
  EXPECT_EQ(rec_->candidates[1].device_index, 2);
  EXPECT_DOUBLE_EQ(rec_->issue_us[0], 0.5);
  EXPECT_DOUBLE_EQ(rec_->issue_us[1], 7);
  EXPECT_DOUBLE_EQ(rec_->output_transfer_us[0], 0);
  EXPECT_DOUBLE_EQ(rec_->output_transfer_us[1], 9);
  EXPECT_EQ(rec_->memo_present, 1);
  EXPECT_EQ(rec_->memo_before, -1);
  EXPECT_EQ(memo.load(), 42);
}

TEST_F(PluginConversion, Place_WideNodeBeyondStackArrays_IsConvertedFully) {
  Dims d{1, 2, 3};
  std::vector<InputInfo> in(40, make_input(kHostSpace, 24, &d));
  std::vector<Candidate> c;
  for (int i = 0; i < 20; ++i) {
    c.push_back(make_candidate(DeviceKind::kSim, i, i, 0, 0));
    c.back().issue_us = i;
    c.back().output_transfer_us = 100 + i;
  }
  PlacementRequest r;
  r.inputs = in;
  r.candidates = c;
  EXPECT_EQ(policy_->place(r).candidate, 19);
  EXPECT_EQ(rec_->num_inputs, 40);
  EXPECT_EQ(rec_->num_candidates, 20);
  EXPECT_EQ(rec_->dims[3][2], 3);
  EXPECT_EQ(rec_->candidates[3].device_index, 3);
  EXPECT_DOUBLE_EQ(rec_->issue_us[3], 3);
  EXPECT_DOUBLE_EQ(rec_->output_transfer_us[3], 103);
  EXPECT_EQ(rec_->memo_present, 0);
  EXPECT_STREQ(rec_->op_type, "");  // no node: empty strings, never NULL
}

TEST_F(PluginConversion, Observe_SeesCompletion) {
  Node n;
  n.id = 9;
  n.name = "relu_1";
  n.op_type = "Relu";
  Completion done{nullptr, &n, DeviceId{DeviceKind::kCuda, 1}, 3, 1024.0, 12.5, 14.0};
  const int before = rec_->observes;
  policy_->observe(done);
  EXPECT_EQ(rec_->observes, before + 1);
  EXPECT_STREQ(rec_->completion_op_type, "Relu");
  EXPECT_STREQ(rec_->completion_node_name, "relu_1");
  EXPECT_EQ(rec_->completion.struct_size, sizeof(sy_completion_v1));
  EXPECT_EQ(rec_->completion.node_id, 9);
  EXPECT_EQ(rec_->completion.device_kind, SY_DEVICE_CUDA);
  EXPECT_EQ(rec_->completion.device_ordinal, 1);
  EXPECT_EQ(rec_->completion.device_index, 3);
  EXPECT_DOUBLE_EQ(rec_->completion.work, 1024.0);
  EXPECT_DOUBLE_EQ(rec_->completion.predicted_us, 12.5);
  EXPECT_DOUBLE_EQ(rec_->completion.measured_us, 14.0);
}

TEST_F(PluginConversion, Destroy_IsCalledWhenThePolicyIsDestroyed) {
  const int destroys = rec_->destroys;
  policy_.reset();
  // Still readable: our own handle keeps the library mapped.
  EXPECT_EQ(rec_->destroys, destroys + 1);
}

TEST(PluginPolicy, InvalidIndex_IsPassedThroughForTheExecutorToReport) {
  auto p = load_or_die(SY_TEST_INVALID_INDEX_POLICY_PLUGIN);
  ASSERT_NE(p, nullptr);
  Candidate c[3];
  EXPECT_EQ(place(*p, {}, c), 3);
}

TEST(PluginPolicy, MissingFile_IsNotFoundNamingThePath) {
  std::string path = testing::TempDir() + "/no_such_policy_plugin.so";
  auto p = load_plugin_policy(path, PolicyOptions{});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(contains(p.status().message(), path)) << p.status().message();
}

TEST(PluginPolicy, NotALibrary_IsInvalidArgumentWithLoaderMessage) {
  std::string path = testing::TempDir() + "/sy_plugin_test_not_a_library.so";
  {
    std::ofstream f(path);
    f << "this is not an ELF file\n";
  }
  auto p = load_plugin_policy(path, PolicyOptions{});
  std::filesystem::remove(path);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(contains(p.status().message(), "cannot load policy plugin '" + path + "'")) << p.status().message();
}

TEST(PluginPolicy, Directory_IsInvalidArgument) {
  auto p = load_plugin_policy(testing::TempDir() + "/", PolicyOptions{});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(contains(p.status().message(), "directory")) << p.status().message();
}

TEST(PluginPolicy, MissingEntrySymbol_IsInvalidArgumentNamingSymbolAndPath) {
  auto p = load_plugin_policy(SY_TEST_NO_ENTRY_POLICY_PLUGIN, PolicyOptions{});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(contains(p.status().message(), SY_TEST_NO_ENTRY_POLICY_PLUGIN)) << p.status().message();
  EXPECT_TRUE(contains(p.status().message(), "sy_policy_entry")) << p.status().message();
}

TEST(PluginPolicy, WrongAbiVersion_IsInvalidArgumentNamingBothVersions) {
  auto p = load_plugin_policy(SY_TEST_BAD_ABI_POLICY_PLUGIN, PolicyOptions{});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  const std::string& m = p.status().message();
  EXPECT_TRUE(contains(m, SY_TEST_BAD_ABI_POLICY_PLUGIN)) << m;
  EXPECT_TRUE(contains(m, "ABI version 99")) << m;
  EXPECT_TRUE(contains(m, "supports version 1")) << m;
}

TEST(PluginPolicy, IsPluginPath_RecognisesPathsAndSoFiles) {
  EXPECT_TRUE(is_plugin_path("./libp.so"));
  EXPECT_TRUE(is_plugin_path("/opt/policies/p"));
  EXPECT_TRUE(is_plugin_path("libp.so"));
  EXPECT_TRUE(is_plugin_path("libp.so?threshold_us=5"));
  EXPECT_FALSE(is_plugin_path("dynamic"));
  EXPECT_FALSE(is_plugin_path("single?x.so"));
  EXPECT_FALSE(is_plugin_path(".so"));
}

TEST(PluginPolicy, RegistryCreate_WithPluginPath_GoesThroughLoader) {
  auto p = PolicyRegistry::builtin().create(SY_EXAMPLE_POLICY_PLUGIN);
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  EXPECT_EQ((*p)->name(), "size-threshold");

  auto missing = PolicyRegistry::builtin().create("./no/such/libpolicy.so");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(contains(missing.status().message(), "./no/such/libpolicy.so")) << missing.status().message();
}

}  // namespace
}  // namespace sy

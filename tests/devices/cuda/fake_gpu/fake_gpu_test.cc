// The real CudaDevice and the run loop over it, on the fake GPUs of
// fake_cuda.h with the host kernels of host_kernels_on_gpu.h: what a GPU
// run exercises apart from the kernels themselves (stream-ordered memory,
// copies in every direction, peer copies, completion callbacks, control
// flow on the GPU, concurrent runs, device faults and running out of
// device memory), in every CUDA build, GPU or not. The fake aborts with
// "fake CUDA: ..." on a use after a stream-ordered free, a bad free, or a
// CUDA call from a callback.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "cli/case_runner.h"
#include "devices/value_compare.h"
#include "executor/session.h"
#include "tests/devices/cuda/fake_gpu/fake_cuda.h"
#include "tests/devices/cuda/fake_gpu/host_kernels_on_gpu.h"
#include "tests/devices/cuda/fake_gpu/node_case_sweep_test_util.h"
#include "tests/executor/model_builder.h"

namespace sy {
namespace {

using testing::bundled_input_sets;
using testing::case_dirs;
using testing::expect_same_as_cpu;
using testing::first_lines;
using testing::kNodeCases;
using testing::load_model_file;
using testing::random_input_set;
using testing::share;
using testing::Sweep;
using testing::sweep;

namespace fs = std::filesystem;

// The fake GPUs run the CPU kernels: their results are bit-identical.
constexpr Tolerance kSameKernels{0, 0};

SessionOptions on_fake_gpus(const std::string& devices, const std::string& policy, uint64_t seed = 0) {
  SessionOptions o;
  o.devices = devices;
  o.policy = policy;
  o.policy_options.seed = seed;
  o.registry = &fake_cuda::registry_with_host_kernels_on_gpu();
  return o;
}

// Device memory still allocated once every session is gone is a leak.
class FakeGpu : public ::testing::Test {
 protected:
  void SetUp() override { before_ = fake_cuda::stats().device_bytes; }
  void TearDown() override {
    fake_cuda::set_jitter(0, 0);
    EXPECT_EQ(fake_cuda::stats().device_bytes, before_) << "device memory leaked";
  }

 private:
  uint64_t before_ = 0;
};

// What `switchyard conformance --devices cuda:0,cpu --policy gpu` checks on
// a real GPU, here with the host kernels: the CPU's pass set, with the
// nodes on the GPU.
TEST_F(FakeGpu, NodeCases_PassAsOnCpu_UnderGpuPolicy) {
  if (!fs::exists(kNodeCases)) GTEST_SKIP() << kNodeCases << " is missing (Debian package libonnx-testdata)";
  const Sweep s = sweep(case_dirs(kNodeCases), on_fake_gpus("cuda:0,cpu", "gpu"));
  EXPECT_TRUE(s.failed.empty()) << s.failed.size() << " of " << s.cases << " cases failed:\n" << first_lines(s.failed);
  EXPECT_GT(s.cases, 800);
  // Issue 4's bar for the real GPU; the real backend's kernel set, placement
  // and declines are the same here.
  EXPECT_GE(share(s, "cuda:0"), 0.6);
  std::printf("%d of %d cases passed; kernel nodes of the passing cases on cuda:0: %.1f%%\n", s.passed, s.cases,
              100 * share(s, "cuda:0"));
}

// The same for the opset 18-23 cases, against a CPU run of them
// (ImageDecoder, which has no CUDA kernel, runs on the CPU): the newer kernels (Attention,
// RMSNormalization, RotaryEmbedding, GroupNormalization, Resize-18, ...)
// are placed on the GPU and give the CPU's pass set.
TEST_F(FakeGpu, NewerNodeCases_PassAsOnCpu_UnderGpuPolicy) {
  const std::string newer = testing::newer_node_cases();
  if (!fs::exists(newer)) GTEST_SKIP() << newer << " is missing (unpacked at configure time)";
  const Sweep cpu = testing::expect_pass_set_of_cpu(case_dirs(newer, /*newer=*/true), on_fake_gpus("cpu", "cpu"),
                                                    on_fake_gpus("cuda:0,cpu", "gpu"), 0.6);
  EXPECT_GT(cpu.passed, 650);
}

// Random placement over a CPU and two GPUs, with the streams' operations
// shuffled by jitter: copies in every direction, GPU to GPU included.
TEST_F(FakeGpu, NodeCases_PassAsOnCpu_UnderRandomOverTwoGpus) {
  if (!fs::exists(kNodeCases)) GTEST_SKIP() << kNodeCases << " is missing (Debian package libonnx-testdata)";
  fake_cuda::set_jitter(7, 40);
  const uint64_t peer_before = fake_cuda::stats().peer_copies;
  const Sweep s = sweep(case_dirs(kNodeCases), on_fake_gpus("cpu,cuda:0,cuda:1", "random", 1));
  EXPECT_TRUE(s.failed.empty()) << s.failed.size() << " of " << s.cases << " cases failed:\n" << first_lines(s.failed);
  EXPECT_GT(s.cases, 800);
  for (const char* d : {"cpu:0", "cuda:0", "cuda:1"}) EXPECT_GT(share(s, d), 0.1) << d;
  EXPECT_GT(fake_cuda::stats().peer_copies, peer_before) << "no value moved between the GPUs";
}

// The bundled control-flow models (If, Loop, Scan, nested, zero trips)
// with their own inputs: bodies run on the GPUs, and only conditions and
// trip counts cross to the host.
TEST_F(FakeGpu, ControlFlowModels_MatchCpu) {
  const fs::path root = fs::path(SY_SOURCE_DIR) / "models" / "control_flow";
  fake_cuda::set_jitter(3, 40);
  int models = 0;
  std::map<std::string, int64_t> on_gpus;  // kernel nodes on the GPUs, by policy
  for (const std::string& dir : case_dirs(root.string())) {
    SCOPED_TRACE(dir);
    ++models;
    std::shared_ptr<const Model> model = load_model_file(dir + "/model.onnx");
    ASSERT_TRUE(model);
    const auto inputs = bundled_input_sets(dir);
    ASSERT_FALSE(inputs.empty());
    for (const auto& [devices, policy] : std::vector<std::pair<std::string, std::string>>{
             {"cuda:0,cpu", "gpu"}, {"cpu,cuda:0,cuda:1", "random"}, {"cpu,cuda:0,cuda:1", "dynamic"}}) {
      for (uint64_t seed : {1, 2, 3}) {
        SCOPED_TRACE(devices + " " + policy + " seed " + std::to_string(seed));
        auto s = Session::create(model, on_fake_gpus(devices, policy, seed));
        ASSERT_TRUE(s.ok()) << s.status().message();
        const std::vector<int64_t> placed = expect_same_as_cpu(model, **s, inputs, kSameKernels);
        for (size_t d = 0; d < placed.size(); ++d)
          if ((*s)->devices()[d]->id().kind == DeviceKind::kCuda) on_gpus[policy] += placed[d];
      }
    }
  }
  EXPECT_GE(models, 6);
  // dynamic may rightly keep these tiny models on the host.
  EXPECT_GT(on_gpus["gpu"], 0);
  EXPECT_GT(on_gpus["random"], 0);
}

// The workloads under `dynamic`, two runs at a time: the policy moves
// nodes between the devices as it learns.
TEST_F(FakeGpu, Workloads_MatchCpu_UnderDynamicWithConcurrentRuns) {
  fake_cuda::set_jitter(11, 20);
  int models = 0;
  for (const auto& e : fs::directory_iterator(std::string(SY_SOURCE_DIR) + "/models/workloads")) {
    if (e.path().extension() != ".onnx") continue;
    SCOPED_TRACE(e.path().filename().string());
    ++models;
    std::shared_ptr<const Model> model = load_model_file(e.path().string());
    ASSERT_TRUE(model);
    auto s = Session::create(model, on_fake_gpus("cpu,cuda:0,cuda:1", "dynamic"));
    ASSERT_TRUE(s.ok()) << s.status().message();
    std::vector<std::map<std::string, RuntimeValue>> inputs;
    for (uint64_t seed = 0; seed < 8; ++seed) inputs.push_back(random_input_set(*model, seed));
    const std::vector<int64_t> placed = expect_same_as_cpu(model, **s, inputs, kSameKernels, /*two_at_a_time=*/true);
    EXPECT_GT(placed[1] + placed[2], 0) << "dynamic never used the fake GPUs";
  }
  EXPECT_GE(models, 8);
}

// Sessions on a GPU share its streams (and so its cuBLAS and cuDNN
// handles, which are bound to them): the first session on each GPU opens
// it, later ones, concurrent or not, create nothing.
TEST_F(FakeGpu, Sessions_ShareEachGpusStreams) {
  std::shared_ptr<const Model> model = load_model_file(std::string(SY_SOURCE_DIR) + "/models/workloads/rnn_loop.onnx");
  ASSERT_TRUE(model);
  const auto in = random_input_set(*model, 3);
  auto first = Session::create(model, on_fake_gpus("cuda:0,cuda:1,cpu", "random"));
  ASSERT_TRUE(first.ok()) << first.status().message();
  const uint64_t streams = fake_cuda::stats().streams;
  std::vector<std::thread> runs;
  std::vector<Status> got(4);
  for (size_t i = 0; i < got.size(); ++i)
    runs.emplace_back([&, i] {
      auto s = Session::create(model, on_fake_gpus("cuda:1,cuda:0,cpu", "random", i));
      got[i] = s.ok() ? (*s)->run(in).status() : s.status();
    });
  for (auto& t : runs) t.join();
  for (const Status& st : got) EXPECT_TRUE(st.ok()) << st.message();
  ASSERT_TRUE((*first)->run(in).ok());
  EXPECT_EQ(fake_cuda::stats().streams, streams) << "a later session opened its own streams";
}

// A float16 CNN block under `gpu`: every node has a CUDA kernel for its
// 16-bit types and attributes (BatchNormalization with float parameters,
// as ONNX allows), so nothing runs on the host and only the inputs and
// outputs cross.
TEST_F(FakeGpu, HalfPrecisionCnn_StaysOnTheGpu) {
  constexpr int kF16 = onnx::TensorProto::FLOAT16, kF32 = onnx::TensorProto::FLOAT;
  auto m = testing::new_model(17);
  testing::GraphBuilder g(m.mutable_graph());
  g.input("x", kF16, {2, 3, 16, 16}).input("w", kF16, {8, 3, 3, 3});
  for (const char* p : {"scale", "bias", "mean", "var"}) g.input(p, kF32, {8});
  g.output("pooled", kF16, {2, 8, 1, 1}).output("mean_hw", kF16, {2, 8}).output("best", onnx::TensorProto::INT64,
                                                                                  {2, 1, 1});
  auto ints = [](onnx::NodeProto* n, const char* name, std::vector<int64_t> v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  };
  ints(g.node("Conv", {"x", "w"}, {"c"}), "pads", {1, 1, 1, 1});
  g.node("Abs", {"var"}, {"var_pos"});  // a variance is never negative
  g.node("BatchNormalization", {"c", "scale", "bias", "mean", "var_pos"}, {"bn"});
  g.node("Relu", {"bn"}, {"r"});
  auto* pool = g.node("MaxPool", {"r"}, {"p"});
  ints(pool, "kernel_shape", {2, 2});
  ints(pool, "strides", {2, 2});
  g.node("GlobalAveragePool", {"p"}, {"pooled"});
  auto* mean = g.node("ReduceMean", {"p"}, {"mean_hw"});
  ints(mean, "axes", {2, 3});
  mean->add_attribute()->set_name("keepdims");
  mean->mutable_attribute(1)->set_type(onnx::AttributeProto::INT);
  mean->mutable_attribute(1)->set_i(0);
  g.node("ArgMax", {"pooled"}, {"best"});
  auto loaded = testing::load_model(m);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  std::shared_ptr<const Model> model = std::move(*loaded);
  auto s = Session::create(model, on_fake_gpus("cuda:0,cpu", "gpu"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  const std::vector<int64_t> placed =
      expect_same_as_cpu(model, **s, {random_input_set(*model, 1), random_input_set(*model, 2)}, kSameKernels);
  EXPECT_EQ(placed[0], 2 * 8) << "kernel nodes on cuda:0";
  EXPECT_EQ(placed[1], 0) << "kernel nodes on the CPU";
}

// An op only the CPU runs, in a session given GPUs alone: the error says
// to add a CPU, which would take the node.
TEST_F(FakeGpu, CpuOnlyOp_WithoutCpuDevice_SaysToAddOne) {
  auto m = testing::new_model();
  testing::GraphBuilder g(m.mutable_graph());
  g.input("x", onnx::TensorProto::STRING, {2}).output("y", onnx::TensorProto::STRING, {2});
  g.node("StringNormalizer", {"x"}, {"y"});
  auto loaded = testing::load_model(m);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  std::shared_ptr<const Model> model = std::move(*loaded);
  auto s = Session::create(model, on_fake_gpus("cuda:0", "gpu"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("add cpu to the devices"), std::string::npos) << s.status().message();
  EXPECT_TRUE(Session::create(model, on_fake_gpus("cuda:0,cpu", "gpu")).ok());
}

// A GPU that faults part-way through a run (an illegal address in a
// kernel, say) fails the run with an error naming the GPU: no hang, no
// crash, nothing freed under the GPU's queued work.
TEST_F(FakeGpu, DeviceFault_FailsTheRun) {
  std::shared_ptr<const Model> model = load_model_file(std::string(SY_SOURCE_DIR) + "/models/workloads/rnn_loop.onnx");
  ASSERT_TRUE(model);
  const auto in = random_input_set(*model, 5);
  for (uint64_t after : {1, 2, 5, 10, 30}) {
    SCOPED_TRACE(after);
    {
      auto s = Session::create(model, on_fake_gpus("cuda:0,cpu", "gpu"));
      ASSERT_TRUE(s.ok()) << s.status().message();
      ASSERT_TRUE((*s)->run(in).ok()) << "the healthy GPU should run it";
      fake_cuda::fault_device(0, after);
      auto r = (*s)->run(in);
      ASSERT_FALSE(r.ok()) << "the run succeeded on a faulted GPU";
      EXPECT_NE(r.status().message().find("cuda:0"), std::string::npos) << r.status().message();
    }
    fake_cuda::heal(0);
  }
}

// A graph that needs more device memory than the GPU has fails with
// ResourceExhausted, and frees what it had allocated.
TEST_F(FakeGpu, OutOfDeviceMemory_IsResourceExhausted) {
  // Three live tensors of 2^27 floats (512 MiB each) on a 1 GiB GPU.
  constexpr int kF = onnx::TensorProto::FLOAT;
  auto m = testing::new_model();
  testing::GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {1}).init_int64("shape", {1}, {int64_t{1} << 27}).output("y", kF, {int64_t{1} << 27});
  g.node("Expand", {"x", "shape"}, {"a"});
  g.node("Neg", {"a"}, {"b"});
  g.node("Add", {"a", "b"}, {"y"});
  auto loaded = testing::load_model(m);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  auto s = Session::create(std::move(*loaded), on_fake_gpus("cuda:0,cpu", "gpu"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  auto x = Tensor::host(DataType::kFloat, Dims{1});
  ASSERT_TRUE(x.ok());
  x->data<float>()[0] = 2;
  auto r = (*s)->run({{"x", *x}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted) << r.status().message();
  EXPECT_NE(r.status().message().find("out of memory"), std::string::npos) << r.status().message();
}

// Beside a GPU, the CPU device has its own queue, and a long CPU kernel
// goes to it while the GPU works, so that the run loop stays free to take
// the GPU's completions and feed it; a kernel shorter than a hand-off still
// runs on the loop's thread. SWITCHYARD_CPU_BESIDE_GPU=inline restores
// every CPU kernel on the loop's thread; a bad value is an error.
TEST_F(FakeGpu, LongCpuKernel_BesideBusyGpu_RunsOnTheCpuQueue) {
  constexpr int kF = onnx::TensorProto::FLOAT;
  auto m = testing::new_model();
  testing::GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {256, 256}).input("s", kF, {2, 2});
  g.output("a", kF, {256, 256}).output("b", kF, {256, 256}).output("n", kF, {2, 2});
  g.node("Relu", {"x"}, {"a"});         // the GPU's, under the gpu policy
  g.node("MatMul", {"x", "x"}, {"b"});  // the CPU's alone: long by the cost model's first guess
  g.node("Neg", {"s"}, {"n"});          // the CPU's alone: about 1 us by that guess
  auto loaded = testing::load_model(m);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  std::shared_ptr<const Model> model = std::move(*loaded);
  const KernelRegistry& all = fake_cuda::registry_with_host_kernels_on_gpu();
  KernelRegistry registry;
  registry.add(*all.find("", "Relu", 17, DeviceKind::kCpu));
  registry.add(*all.find("", "Relu", 17, DeviceKind::kCuda));
  registry.add(*all.find("", "MatMul", 17, DeviceKind::kCpu));
  registry.add(*all.find("", "Neg", 17, DeviceKind::kCpu));
  SessionOptions o = on_fake_gpus("cpu,cuda:0", "gpu");
  o.registry = &registry;
  const auto in = random_input_set(*model, 1);

  struct Mode {
    const char* env;
    bool queue;
  };
  for (const Mode mode :
       {Mode{nullptr, true}, Mode{"spare-core", true}, Mode{"all-cores", true}, Mode{"inline", false}}) {
    SCOPED_TRACE(mode.env ? mode.env : "(unset)");
    if (mode.env)
      setenv("SWITCHYARD_CPU_BESIDE_GPU", mode.env, 1);
    else
      unsetenv("SWITCHYARD_CPU_BESIDE_GPU");
    auto s = Session::create(model, o);
    ASSERT_TRUE(s.ok()) << s.status().message();
    const DeviceInfo& cpu = (*s)->devices()[0]->info();
    EXPECT_EQ(cpu.description.find("own queue") != std::string::npos, mode.queue) << cpu.description;
    const int hw = static_cast<int>(std::thread::hardware_concurrency());
    const bool spare = mode.queue && std::string_view(mode.env ? mode.env : "spare-core") == "spare-core" && hw > 2;
    EXPECT_EQ(cpu.threads, spare ? hw - 1 : hw);
    auto r = (*s)->run(in);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->stats.nodes_per_device, (std::vector<int64_t>{2, 1}));
    EXPECT_EQ(r->stats.handoffs, mode.queue ? 1 : 0);  // MatMul, not Neg
  }
  setenv("SWITCHYARD_CPU_BESIDE_GPU", "fast", 1);
  auto bad = Session::create(model, o);
  unsetenv("SWITCHYARD_CPU_BESIDE_GPU");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("SWITCHYARD_CPU_BESIDE_GPU is 'fast'"), std::string::npos)
      << bad.status().message();
  // A lone CPU is unchanged: inline, every core.
  auto lone = Session::create(model, on_fake_gpus("cpu", "cpu"));
  ASSERT_TRUE(lone.ok()) << lone.status().message();
  EXPECT_EQ((*lone)->devices()[0]->info().description.find("own queue"), std::string::npos);
}

// Under AddressSanitizer the fake poisons what no one may touch, so that
// the emulated kernels' stray reads and writes of device memory, which no
// range check of the fake sees, are reported where they happen (the
// sanitizer runs of scripts/sanitize-fake-gpu.sh).
TEST(FakeCudaDeathTest, StrayDeviceAccess_IsReportedUnderAddressSanitizer) {
#if !defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "needs an AddressSanitizer build (scripts/sanitize-fake-gpu.sh address): "
                  "elsewhere the fake poisons nothing";
#else
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // the fake's stream threads
  auto byte = [](void* device_ptr, size_t i) {
    return static_cast<volatile char*>(fake_cuda::host_view(device_ptr))[i];
  };
  void* p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, 10), cudaSuccess);
  EXPECT_EQ(byte(p, 9), static_cast<char>(0xCD));  // the fake's "never written" pattern
  EXPECT_DEATH(byte(p, 10), "AddressSanitizer: use-after-poison");
  ASSERT_EQ(cudaFree(p), cudaSuccess);
  EXPECT_DEATH(byte(p, 0), "AddressSanitizer: use-after-poison");

  // A stream-ordered allocation whose stream is held back by a host function.
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  std::atomic<bool> go{false};
  auto wait_for_go = [](void* flag) {
    while (!static_cast<std::atomic<bool>*>(flag)->load()) std::this_thread::yield();
  };
  ASSERT_EQ(cudaLaunchHostFunc(s, wait_for_go, &go), cudaSuccess);
  ASSERT_EQ(cudaMallocAsync(&p, 16, s), cudaSuccess);
  EXPECT_DEATH(byte(p, 0), "AddressSanitizer: use-after-poison");
  go = true;
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(byte(p, 15), static_cast<char>(0xCD));
  ASSERT_EQ(cudaFreeAsync(p, s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
#endif
}

}  // namespace
}  // namespace sy

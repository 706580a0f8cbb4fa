// Session-level tests of SessionOptions::simulate: runs on a SimMachine in
// virtual time.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "executor/session.h"
#include "tests/executor/model_builder.h"

namespace sy {
namespace {

using testing::GraphBuilder;

constexpr int kF = onnx::TensorProto::FLOAT;

// cpu:0 plus two GPUs that are much faster than the host at everything. The
// GPU class's memory is a placeholder (@GPU_GB@) so tests can shrink it.
constexpr const char* kProfileTemplate = R"({
  "format": "switchyard-sim-profile",
  "version": 1,
  "name": "simulate test",
  "noise": @NOISE@,
  "devices": [
    {"class": "host", "kind": "cpu", "memory_gb": 16, "launch_us": 2},
    {"class": "gpu", "kind": "cuda", "count": 2, "memory_gb": @GPU_GB@, "queues": 2, "launch_us": 4}
  ],
  "costs": [
    {"class": "host", "op": "*", "base_us": 20, "us_per_work": 0.05},
    {"class": "host", "op": "MatMul", "base_us": 20, "us_per_work": 0.02},
    {"class": "gpu", "op": "*", "base_us": 1, "us_per_work": 0.001}
  ],
  "links": [
    {"from": "*", "to": "*", "latency_us": 3, "bandwidth_gbps": 20}
  ]
})";

std::string profile_text(const std::string& noise = "0", const std::string& gpu_gb = "16") {
  std::string s = kProfileTemplate;
  s.replace(s.find("@NOISE@"), 7, noise);
  s.replace(s.find("@GPU_GB@"), 8, gpu_gb);
  return s;
}

// Records every kernel and copy of a run, in the order reported.
class Recorder : public RunObserver {
 public:
  using Kernel = std::tuple<std::string, int, int64_t, int64_t>;  // node, device, start, end
  using Copy = std::tuple<ValueId, int, int64_t, int64_t>;        // value, device, start, end
  void on_kernel(const KernelEvent& e) override {
    kernels.emplace_back(e.node->name, e.device_index, e.start_ns, e.end_ns);
    work.push_back(e.work);
    ops.push_back(e.node->op_type);
  }
  void on_copy(const CopyEvent& e) override { copies.emplace_back(e.value, e.device_index, e.start_ns, e.end_ns); }
  std::vector<Kernel> kernels;
  std::vector<Copy> copies;
  std::vector<double> work;
  std::vector<std::string> ops;
};

// x[16,16] -> MatMul(W) -> m1;  x -> Relu -> r -> MatMul(W) -> m2;
// Add(m1, m2) -> s -> Tanh -> t; Mul(t, x) -> y.   Plus Sigmoid(x) -> z.
onnx::ModelProto diamond(int64_t n = 16) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  std::vector<float> w(static_cast<size_t>(n * n));
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int>(i * 7 % 11) - 5) * 0.05f;
  g.input("x", kF, {n, n}).init_float("W", {n, n}, w).output("y", kF, {n, n}).output("z", kF, {n, n});
  g.node("MatMul", {"x", "W"}, {"m1"});
  g.node("Relu", {"x"}, {"r"});
  g.node("MatMul", {"r", "W"}, {"m2"});
  g.node("Add", {"m1", "m2"}, {"s"});
  g.node("Tanh", {"s"}, {"t"});
  g.node("Mul", {"t", "x"}, {"y"});
  g.node("Sigmoid", {"x"}, {"z"});
  return m;
}

Tensor square_input(int64_t n = 16) {
  Tensor t = *Tensor::host(DataType::kFloat, Dims{n, n});
  for (int64_t i = 0; i < n * n; ++i) t.data<float>()[i] = static_cast<float>(i % 13) * 0.1f - 0.6f;
  return t;
}

StatusOr<std::unique_ptr<Session>> make_session(onnx::ModelProto& m, const std::string& simulate,
                                                const std::string& policy, uint64_t seed = 1) {
  auto model = testing::load_model(m);
  if (!model.ok()) return model.status();
  SessionOptions opt;
  opt.simulate = simulate;
  opt.policy = policy;
  opt.policy_options.seed = seed;
  return Session::create(std::shared_ptr<const Model>(std::move(model).value()), opt);
}

std::unique_ptr<Session> session_or_die(onnx::ModelProto& m, const std::string& simulate, const std::string& policy,
                                        uint64_t seed = 1) {
  auto s = make_session(m, simulate, policy, seed);
  EXPECT_TRUE(s.ok()) << policy << ": " << s.status().to_string();
  return s.ok() ? std::move(s).value() : nullptr;
}

void expect_same_values(const RuntimeValue& a, const RuntimeValue& b, const std::string& what) {
  ASSERT_TRUE(a.is_tensor()) << what;
  ASSERT_TRUE(b.is_tensor()) << what;
  const Tensor &x = a.tensor(), &y = b.tensor();
  EXPECT_EQ(x.space(), kHostSpace) << what;
  ASSERT_EQ(x.dtype(), y.dtype()) << what;
  ASSERT_EQ(x.dims(), y.dims()) << what;
  for (int64_t i = 0; i < x.numel(); ++i) ASSERT_FLOAT_EQ(x.data<float>()[i], y.data<float>()[i]) << what << " [" << i << "]";
}

// --- the session -----------------------------------------------------------------

TEST(Simulate, Session_RunsOnTheProfilesDevices) {
  testing::TempFile file(profile_text());
  auto m = diamond();
  auto s = session_or_die(m, file.path(), "dynamic");
  ASSERT_NE(s, nullptr);
  ASSERT_NE(s->simulator(), nullptr);
  EXPECT_EQ(s->simulator()->profile().name, "simulate test");
  ASSERT_EQ(s->devices().size(), 3u);
  EXPECT_EQ(s->devices()[0]->id().to_string(), "cpu:0");
  EXPECT_EQ(s->devices()[1]->id().to_string(), "cuda:0");
  EXPECT_EQ(s->devices()[2]->id().to_string(), "cuda:1");
  EXPECT_EQ(s->devices()[0]->memory_space(), kHostSpace);
}

TEST(Simulate, WithoutSimulate_ThereIsNoSimulator) {
  auto m = diamond();
  auto s = session_or_die(m, "", "dynamic");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->simulator(), nullptr);
}

TEST(Simulate, MissingProfile_IsNotFound) {
  auto m = diamond();
  auto s = make_session(m, "/nonexistent/sy_simulate_test_profile.json", "dynamic");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kNotFound);
}

TEST(Simulate, BadProfile_IsInvalidArgument) {
  std::string text = profile_text();
  text.replace(text.find("\"version\": 1"), 12, "\"version\": 2");
  testing::TempFile file(text);
  auto m = diamond();
  auto s = make_session(m, file.path(), "dynamic");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("version"), std::string::npos) << s.status().message();
}

// --- virtual time --------------------------------------------------------------

TEST(Simulate, Latency_IsVirtualTimeFromTheProfile) {
  testing::TempFile file(profile_text());
  constexpr int kNodes = 4;
  auto m = testing::add_chain(kNodes, 64);
  auto s = session_or_die(m, file.path(), "cpu");
  ASSERT_NE(s, nullptr);
  Tensor x = *Tensor::host(DataType::kFloat, Dims{64});
  for (int i = 0; i < 64; ++i) x.data<float>()[i] = static_cast<float>(i);
  Recorder rec;
  RunOptions ro;
  ro.observer = &rec;
  auto r = s->run({{"x", RuntimeValue(x)}}, ro);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(rec.kernels.size(), static_cast<size_t>(kNodes));
  // Each Add runs on the host for the profile's time at its work size, and
  // issues 2 us after the previous one finished.
  int64_t prev_end = 0;
  for (size_t i = 0; i < rec.kernels.size(); ++i) {
    const auto& [name, dev, start, end] = rec.kernels[i];
    EXPECT_EQ(dev, 0);
    EXPECT_GT(rec.work[i], 0.0);
    const double us = s->simulator()->kernel_us(0, "Add", rec.work[i]);
    EXPECT_EQ(end - start, std::llround(us * 1e3)) << name;
    EXPECT_EQ(start, prev_end + 2000) << name;
    prev_end = end;
  }
  EXPECT_EQ(r->latency_ns, prev_end);
  EXPECT_EQ(s->simulator()->now_ns(), prev_end);
  EXPECT_FLOAT_EQ(r->outputs[0].tensor().data<float>()[5], 5.0f + kNodes);

  // A second run continues on the same virtual timeline and takes as long.
  Recorder rec2;
  ro.observer = &rec2;
  auto r2 = s->run({{"x", RuntimeValue(x)}}, ro);
  ASSERT_TRUE(r2.ok()) << r2.status().to_string();
  EXPECT_EQ(r2->latency_ns, r->latency_ns);
  ASSERT_FALSE(rec2.kernels.empty());
  EXPECT_EQ(std::get<2>(rec2.kernels[0]), prev_end + 2000);
}

TEST(Simulate, Latency_DoesNotDependOnTheHostsSpeed) {
  // A model big enough to take real time on the host still reports the
  // profile's virtual time: a fresh session's latency equals its clock.
  testing::TempFile file(profile_text());
  auto m = diamond(64);
  auto s = session_or_die(m, file.path(), "gpu");
  ASSERT_NE(s, nullptr);
  auto r = s->run({{"x", RuntimeValue(square_input(64))}});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_GT(r->latency_ns, 0);
  EXPECT_EQ(r->latency_ns, s->simulator()->now_ns());
}

TEST(Simulate, SameSeedTwice_IdenticalLatencyAndSchedule) {
  testing::TempFile file(profile_text(/*noise=*/"0.2"));
  auto m = diamond();
  for (const char* policy : {"dynamic", "random", "round-robin"}) {
    SCOPED_TRACE(policy);
    Recorder rec[2];
    int64_t latency[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
      auto s = session_or_die(m, file.path(), policy, /*seed=*/11);
      ASSERT_NE(s, nullptr);
      RunOptions ro;
      ro.observer = &rec[k];
      // Three runs: the policy's learning and the noise stream carry over.
      for (int run = 0; run < 3; ++run) {
        auto r = s->run({{"x", RuntimeValue(square_input())}}, ro);
        ASSERT_TRUE(r.ok()) << r.status().to_string();
        latency[k] += r->latency_ns;
      }
    }
    EXPECT_EQ(latency[0], latency[1]);
    EXPECT_EQ(rec[0].kernels.size(), 3u * 7u);
    EXPECT_EQ(rec[0].kernels, rec[1].kernels);
    EXPECT_EQ(rec[0].copies, rec[1].copies);
  }
}

TEST(Simulate, DifferentSeeds_DrawDifferentNoise) {
  testing::TempFile file(profile_text(/*noise=*/"0.2"));
  auto m = diamond();
  Recorder rec[2];
  for (int k = 0; k < 2; ++k) {
    auto s = session_or_die(m, file.path(), "cpu", /*seed=*/100 + static_cast<uint64_t>(k));
    ASSERT_NE(s, nullptr);
    RunOptions ro;
    ro.observer = &rec[k];
    auto r = s->run({{"x", RuntimeValue(square_input())}}, ro);
    ASSERT_TRUE(r.ok()) << r.status().to_string();
  }
  EXPECT_NE(rec[0].kernels, rec[1].kernels);
}

// --- values ----------------------------------------------------------------------

TEST(Simulate, Outputs_MatchARealCpuRun) {
  testing::TempFile file(profile_text());
  auto m = diamond();
  auto cpu = session_or_die(m, "", "cpu");
  ASSERT_NE(cpu, nullptr);
  auto want = cpu->run({{"x", RuntimeValue(square_input())}});
  ASSERT_TRUE(want.ok()) << want.status().to_string();
  for (const char* policy : {"dynamic", "cpu", "gpu", "round-robin", "random", "ort", "static-heft"}) {
    SCOPED_TRACE(policy);
    auto s = session_or_die(m, file.path(), policy);
    ASSERT_NE(s, nullptr);
    Recorder rec;
    RunOptions ro;
    ro.observer = &rec;
    auto got = s->run({{"x", RuntimeValue(square_input())}}, ro);
    ASSERT_TRUE(got.ok()) << got.status().to_string();
    ASSERT_EQ(got->outputs.size(), want->outputs.size());
    for (size_t i = 0; i < want->outputs.size(); ++i)
      expect_same_values(got->outputs[i], want->outputs[i], "output " + std::to_string(i));
    if (std::string(policy) == "gpu") {
      // The all-GPU baseline really ran on the simulated GPU.
      for (const auto& k : rec.kernels) EXPECT_EQ(std::get<1>(k), 1) << std::get<0>(k);
      EXPECT_FALSE(rec.copies.empty());
    }
  }
}

TEST(Simulate, ControlFlow_MatchesARealCpuRun) {
  testing::TempFile file(profile_text());
  auto m = testing::relu_loop();
  Tensor trips = *Tensor::host(DataType::kInt64, Dims{});
  *trips.data<int64_t>() = 6;
  Tensor x = *Tensor::host(DataType::kFloat, Dims{4});
  for (int i = 0; i < 4; ++i) x.data<float>()[i] = 0.5f * static_cast<float>(i) - 0.75f;
  auto cpu = session_or_die(m, "", "cpu");
  ASSERT_NE(cpu, nullptr);
  auto want = cpu->run({{"M", RuntimeValue(trips)}, {"x", RuntimeValue(x)}});
  ASSERT_TRUE(want.ok()) << want.status().to_string();
  ASSERT_EQ(want->outputs[1].tensor().dims(), Dims({6, 4}));
  for (const char* policy : {"dynamic", "gpu", "round-robin"}) {
    SCOPED_TRACE(policy);
    auto s = session_or_die(m, file.path(), policy);
    ASSERT_NE(s, nullptr);
    auto got = s->run({{"M", RuntimeValue(trips)}, {"x", RuntimeValue(x)}});
    ASSERT_TRUE(got.ok()) << got.status().to_string();
    EXPECT_EQ(got->stats.loop_iterations, 6);
    for (size_t i = 0; i < want->outputs.size(); ++i)
      expect_same_values(got->outputs[i], want->outputs[i], "output " + std::to_string(i));
  }
}

// --- memory ------------------------------------------------------------------------

TEST(Simulate, TinyGpuMemory_ForcedGpuRunFailsOutOfMemory) {
  testing::TempFile file(profile_text("0", /*gpu_gb=*/"1e-6"));  // ~1000 bytes; x alone is 16 KiB
  auto m = diamond(64);
  auto s = session_or_die(m, file.path(), "gpu");
  ASSERT_NE(s, nullptr);
  auto r = s->run({{"x", RuntimeValue(square_input(64))}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted) << r.status().to_string();
  EXPECT_NE(r.status().message().find("out of memory"), std::string::npos) << r.status().message();
  // The session is still usable afterwards (the failed run released what it held).
  for (Device* d : s->devices()) EXPECT_EQ(d->bytes_in_use(), 0u) << d->info().name;
}

TEST(Simulate, TinyGpuMemory_DynamicPolicyStillCompletes) {
  testing::TempFile file(profile_text("0", /*gpu_gb=*/"1e-6"));
  auto m = diamond(64);
  auto cpu = session_or_die(m, "", "cpu");
  ASSERT_NE(cpu, nullptr);
  auto want = cpu->run({{"x", RuntimeValue(square_input(64))}});
  ASSERT_TRUE(want.ok()) << want.status().to_string();
  // With room on the GPUs, dynamic placement uses them (they are far
  // faster), so the tiny-memory run below is a real test.
  {
    testing::TempFile roomy(profile_text("0", /*gpu_gb=*/"16"));
    auto s = session_or_die(m, roomy.path(), "dynamic");
    ASSERT_NE(s, nullptr);
    Recorder rec;
    RunOptions ro;
    ro.observer = &rec;
    auto r = s->run({{"x", RuntimeValue(square_input(64))}}, ro);
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    int on_gpu = 0;
    for (const auto& k : rec.kernels) on_gpu += std::get<1>(k) != 0;
    ASSERT_GT(on_gpu, 0);
  }
  auto s = session_or_die(m, file.path(), "dynamic");
  ASSERT_NE(s, nullptr);
  Recorder rec;
  RunOptions ro;
  ro.observer = &rec;
  auto got = s->run({{"x", RuntimeValue(square_input(64))}}, ro);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  for (size_t i = 0; i < want->outputs.size(); ++i)
    expect_same_values(got->outputs[i], want->outputs[i], "output " + std::to_string(i));
  // Every tensor is 16 KiB, so nothing fits on the GPUs: all on the host.
  EXPECT_EQ(rec.kernels.size(), 7u);
  for (const auto& k : rec.kernels) EXPECT_EQ(std::get<1>(k), 0) << std::get<0>(k);
}

}  // namespace
}  // namespace sy

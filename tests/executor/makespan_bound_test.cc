#include "executor/makespan_bound.h"

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "devices/sim/sim_machine.h"
#include "executor/session.h"
#include "tests/executor/model_builder.h"

namespace sy {
namespace {

using testing::GraphBuilder;

constexpr int kF = onnx::TensorProto::FLOAT;

// --- hand-fed events -----------------------------------------------------------

// Kernel times by node name, one per device.
class Events {
 public:
  explicit Events(std::map<std::string, std::vector<double>> times) : times_(std::move(times)) {}

  MakespanBound bound(std::vector<double> launch, std::vector<int> queues) const {
    return MakespanBound([this](const Node& n, double, int d) { return times_.at(n.name)[static_cast<size_t>(d)]; },
                         std::move(launch), std::move(queues));
  }
  Node& node(const std::string& name) {
    Node& n = nodes_.emplace_back();
    n.name = name;
    n.op_type = "Relu";
    return n;
  }
  // A fresh tensor (its own buffer) as a value.
  const RuntimeValue* fresh() {
    return &values_.emplace_back(*Tensor::host(DataType::kFloat, Dims{4}));
  }
  // A value sharing `v`'s buffer (a view: Reshape, Identity, ...).
  const RuntimeValue* view_of(const RuntimeValue* v) { return &values_.emplace_back(v->tensor()); }

  static void feed(MakespanBound& b, const Node& n, std::vector<const RuntimeValue*> in,
                   std::vector<const RuntimeValue*> out, double work = 0) {
    KernelEvent e;
    e.node = &n;
    e.work = work;
    e.inputs = std::span<const RuntimeValue* const>(in.data(), in.size());
    e.outputs = std::span<const RuntimeValue* const>(out.data(), out.size());
    b.on_kernel(e);
  }

 private:
  std::map<std::string, std::vector<double>> times_;
  std::deque<Node> nodes_;
  std::deque<RuntimeValue> values_;
};

TEST(MakespanBound, NoKernels_IsZero) {
  Events ev({});
  MakespanBound b = ev.bound({1, 2}, {1, 1});
  const auto r = b.result();
  EXPECT_EQ(r.kernels, 0);
  EXPECT_DOUBLE_EQ(r.bound_us(), 0.0);
}

TEST(MakespanBound, DependentChain_CriticalPathSumsFastestLaunchPlusKernel) {
  Events ev({{"A", {10, 4}}, {"B", {6, 20}}});
  MakespanBound b = ev.bound(/*launch=*/{1, 2}, /*queues=*/{1, 1});
  const RuntimeValue* x = ev.fresh();
  const RuntimeValue* t = ev.fresh();
  const RuntimeValue* y = ev.fresh();
  Events::feed(b, ev.node("A"), {x}, {t});  // fastest: device 1, 2 + 4 = 6
  Events::feed(b, ev.node("B"), {t}, {y});  // fastest: device 0, 1 + 6 = 7
  const auto r = b.result();
  EXPECT_EQ(r.kernels, 2);
  EXPECT_DOUBLE_EQ(r.critical_path_us, 13.0);
  EXPECT_DOUBLE_EQ(r.launches_us, 2.0);  // two kernels at the cheapest launch
  // The fractional spread of 4 us and 6 us of work over two devices is far
  // shorter than the chain (LP optimum 72/13 us).
  EXPECT_GT(r.area_us, 0.0);
  EXPECT_LE(r.area_us, 72.0 / 13.0 + 1e-9);
  EXPECT_DOUBLE_EQ(r.bound_us(), 13.0);
}

TEST(MakespanBound, IndependentKernels_CriticalPathIsTheLongestOne) {
  Events ev({{"A", {10, 4}}, {"B", {6, 20}}});
  MakespanBound b = ev.bound({1, 2}, {1, 1});
  Events::feed(b, ev.node("A"), {ev.fresh()}, {ev.fresh()});
  Events::feed(b, ev.node("B"), {ev.fresh()}, {ev.fresh()});
  EXPECT_DOUBLE_EQ(b.result().critical_path_us, 7.0);
}

TEST(MakespanBound, IndependentKernelsOnEqualDevices_AreaIsTotalOverDevices) {
  Events ev({{"K", {10, 10}}});
  MakespanBound b = ev.bound({0, 0}, {1, 1});
  for (int i = 0; i < 4; ++i) Events::feed(b, ev.node("K"), {ev.fresh()}, {ev.fresh()});
  const auto r = b.result();
  EXPECT_DOUBLE_EQ(r.critical_path_us, 10.0);
  EXPECT_NEAR(r.area_us, 40.0 / 2, 1e-9);
  EXPECT_NEAR(r.bound_us(), 20.0, 1e-9);
}

TEST(MakespanBound, TwoIndependentKernelsOnTwoEqualDevices_AreaIsHalfTheTotal) {
  Events ev({{"K", {10, 10}}, {"L", {6, 6}}});
  MakespanBound b = ev.bound({0, 0}, {1, 1});
  Events::feed(b, ev.node("K"), {ev.fresh()}, {ev.fresh()});
  Events::feed(b, ev.node("L"), {ev.fresh()}, {ev.fresh()});
  const auto r = b.result();
  EXPECT_NEAR(r.area_us, (10.0 + 6.0) / 2, 1e-9);
  EXPECT_DOUBLE_EQ(r.bound_us(), 10.0);  // max(critical path 10, area 8)
}

TEST(MakespanBound, Queues_CountAsParallelCapacity) {
  Events ev({{"K", {10, 10}}});
  MakespanBound b = ev.bound({0, 0}, {2, 2});
  for (int i = 0; i < 8; ++i) Events::feed(b, ev.node("K"), {ev.fresh()}, {ev.fresh()});
  EXPECT_NEAR(b.result().area_us, 80.0 / 4, 1e-9);
}

TEST(MakespanBound, UnequalDevices_AreaApproachesTheFractionalOptimumFromBelow) {
  // Device 0 is three times as fast: the best fractional spread puts 3/4 of
  // the work there and finishes at 30 us.
  Events ev({{"K", {10, 30}}});
  MakespanBound b = ev.bound({0, 0}, {1, 1});
  for (int i = 0; i < 4; ++i) Events::feed(b, ev.node("K"), {ev.fresh()}, {ev.fresh()});
  const auto r = b.result();
  EXPECT_LE(r.area_us, 30.0 + 1e-9);  // never above the optimum: it is a bound
  EXPECT_GE(r.area_us, 27.0);         // and the weight search gets close
}

TEST(MakespanBound, SerialLaunches_BoundManySmallKernels) {
  Events ev({{"K", {1, 1}}});
  MakespanBound b = ev.bound({3, 5}, {1, 1});
  for (int i = 0; i < 10; ++i) Events::feed(b, ev.node("K"), {ev.fresh()}, {ev.fresh()});
  const auto r = b.result();
  EXPECT_DOUBLE_EQ(r.critical_path_us, 4.0);
  EXPECT_DOUBLE_EQ(r.launches_us, 30.0);
  EXPECT_DOUBLE_EQ(r.bound_us(), 30.0);
}

TEST(MakespanBound, View_KeepsTheProducersTime) {
  // A -> t; V: t -> v (v shares t's buffer); B: v -> y. B can start when A is
  // done: the view's own kernel does not delay the buffer.
  Events ev({{"A", {10}}, {"V", {5}}, {"B", {1}}});
  MakespanBound b = ev.bound({0}, {1});
  const RuntimeValue* t = ev.fresh();
  const RuntimeValue* v = ev.view_of(t);
  Events::feed(b, ev.node("A"), {ev.fresh()}, {t});
  Events::feed(b, ev.node("V"), {t}, {v});
  Events::feed(b, ev.node("B"), {v}, {ev.fresh()});
  EXPECT_DOUBLE_EQ(b.result().critical_path_us, 15.0);  // A + V; A + B is 11
}

TEST(MakespanBound, NewBuffer_ChainsAfterItsProducer) {
  // As above, but V writes a buffer of its own: B waits for V.
  Events ev({{"A", {10}}, {"V", {5}}, {"B", {1}}});
  MakespanBound b = ev.bound({0}, {1});
  const RuntimeValue* t = ev.fresh();
  const RuntimeValue* v = ev.fresh();
  Events::feed(b, ev.node("A"), {ev.fresh()}, {t});
  Events::feed(b, ev.node("V"), {t}, {v});
  Events::feed(b, ev.node("B"), {v}, {ev.fresh()});
  EXPECT_DOUBLE_EQ(b.result().critical_path_us, 16.0);
}

TEST(MakespanBound, SequenceInputs_WaitForTheirItems) {
  Events ev({{"A", {10}}, {"S", {2}}});
  MakespanBound b = ev.bound({0}, {1});
  const RuntimeValue* t = ev.fresh();
  Events::feed(b, ev.node("A"), {ev.fresh()}, {t});
  auto seq = std::make_shared<Sequence>();
  seq->elem = DataType::kFloat;
  seq->items.push_back(t->tensor());
  const RuntimeValue s{std::shared_ptr<const Sequence>(seq)};
  Events::feed(b, ev.node("S"), {&s}, {ev.fresh()});
  EXPECT_DOUBLE_EQ(b.result().critical_path_us, 12.0);
}

TEST(MakespanBound, AbsentInputsAndOutputs_AreIgnored) {
  Events ev({{"A", {10}}, {"B", {3}}});
  MakespanBound b = ev.bound({0}, {1});
  const RuntimeValue* t = ev.fresh();
  RuntimeValue none;
  Events::feed(b, ev.node("A"), {nullptr, &none}, {t, nullptr});
  Events::feed(b, ev.node("B"), {t, nullptr}, {nullptr});
  EXPECT_DOUBLE_EQ(b.result().critical_path_us, 13.0);
}

TEST(MakespanBound, Reset_ForgetsTheRun) {
  Events ev({{"A", {10}}});
  MakespanBound b = ev.bound({1}, {1});
  const RuntimeValue* t = ev.fresh();
  Events::feed(b, ev.node("A"), {ev.fresh()}, {t});
  ASSERT_GT(b.result().bound_us(), 0.0);
  b.reset();
  auto r = b.result();
  EXPECT_EQ(r.kernels, 0);
  EXPECT_DOUBLE_EQ(r.bound_us(), 0.0);
  // t's producer time is gone too: a consumer starts at 0.
  Events::feed(b, ev.node("A"), {t}, {ev.fresh()});
  EXPECT_DOUBLE_EQ(b.result().critical_path_us, 11.0);
}

// --- from a simulated machine ----------------------------------------------------

// cpu:0 "host" (launch 2 us, Add 5 us + 0.01 us/work, MatMul 5 us + 0.002 us/work,
// else 4 us + 0.001 us/work) and two "gpu" (launch 5 us, 2 queues, Add 50 us,
// else 1 us + 0.001 us/work). Slopes in whole ns per unit of work keep the
// simulator's nanosecond rounding exact.
constexpr const char* kProfile = R"({
  "format": "switchyard-sim-profile",
  "version": 1,
  "name": "bound test",
  "devices": [
    {"class": "host", "kind": "cpu", "memory_gb": 16, "launch_us": 2},
    {"class": "gpu", "kind": "cuda", "count": 2, "memory_gb": 16, "queues": 2, "launch_us": 5}
  ],
  "costs": [
    {"class": "host", "op": "*", "base_us": 4, "us_per_work": 0.001},
    {"class": "host", "op": "Add", "base_us": 5, "us_per_work": 0.01},
    {"class": "host", "op": "MatMul", "base_us": 5, "us_per_work": 0.002},
    {"class": "gpu", "op": "*", "base_us": 1, "us_per_work": 0.001},
    {"class": "gpu", "op": "Add", "base_us": 50, "us_per_work": 0}
  ],
  "links": [
    {"from": "*", "to": "*", "latency_us": 4, "bandwidth_gbps": 8}
  ]
})";

TEST(MakespanBound, ForSimulator_UsesTheProfilesNoiseFreeTimes) {
  auto prof = parse_sim_profile(kProfile, "bound.json");
  ASSERT_TRUE(prof.ok()) << prof.status().to_string();
  SimMachine m(std::move(prof).value(), 1);
  MakespanBound b = MakespanBound::for_simulator(m);
  Events ev({});
  // Three dependent Adds of work 100: host 2 + 5 + 1 = 8 us beats gpu 5 + 50.
  const RuntimeValue* v = ev.fresh();
  for (int i = 0; i < 3; ++i) {
    const RuntimeValue* next = ev.fresh();
    Node& n = ev.node("add" + std::to_string(i));
    n.op_type = "Add";
    Events::feed(b, n, {v}, {next}, /*work=*/100);
    v = next;
  }
  // A Relu of work 1000: gpu 5 + 1 + 1 = 7 us, host 2 + 4 + 1 = 7 us.
  const RuntimeValue* out = ev.fresh();
  Events::feed(b, ev.node("relu"), {v}, {out}, /*work=*/1000);
  const auto r = b.result();
  EXPECT_EQ(r.kernels, 4);
  EXPECT_NEAR(r.critical_path_us, 3 * 8.0 + 7.0, 1e-9);
  EXPECT_NEAR(r.launches_us, 4 * 2.0, 1e-9);
}

// x[16,16] -> MatMul(W) -> m1;  x -> Relu -> r -> MatMul(W) -> m2;
// Add(m1, m2) -> s -> Tanh -> t; Mul(t, x) -> y.   Plus Sigmoid(x) -> z.
onnx::ModelProto diamond() {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  std::vector<float> w(256);
  for (int i = 0; i < 256; ++i) w[static_cast<size_t>(i)] = static_cast<float>((i * 7) % 11 - 5) * 0.05f;
  g.input("x", kF, {16, 16}).init_float("W", {16, 16}, w).output("y", kF, {16, 16}).output("z", kF, {16, 16});
  g.node("MatMul", {"x", "W"}, {"m1"});
  g.node("Relu", {"x"}, {"r"});
  g.node("MatMul", {"r", "W"}, {"m2"});
  g.node("Add", {"m1", "m2"}, {"s"});
  g.node("Tanh", {"s"}, {"t"});
  g.node("Mul", {"t", "x"}, {"y"});
  g.node("Sigmoid", {"x"}, {"z"});
  return m;
}

Tensor input_16x16() {
  Tensor t = *Tensor::host(DataType::kFloat, Dims{16, 16});
  for (int i = 0; i < 256; ++i) t.data<float>()[i] = static_cast<float>(i % 13) * 0.1f - 0.6f;
  return t;
}

std::unique_ptr<Session> sim_session(onnx::ModelProto& m, const std::string& profile, const std::string& policy) {
  auto model = testing::load_model(m);
  EXPECT_TRUE(model.ok()) << model.status().to_string();
  SessionOptions opt;
  opt.simulate = profile;
  opt.policy = policy;
  opt.policy_options.seed = 3;
  auto s = Session::create(std::shared_ptr<const Model>(std::move(model).value()), opt);
  EXPECT_TRUE(s.ok()) << policy << ": " << s.status().to_string();
  return s.ok() ? std::move(s).value() : nullptr;
}

TEST(MakespanBound, Simulated_BoundNeverExceedsAnyPolicysMakespan) {
  testing::TempFile file(kProfile);
  auto m = diamond();
  for (const char* policy : {"dynamic", "cpu", "gpu", "round-robin", "random", "ort", "static-heft"}) {
    SCOPED_TRACE(policy);
    auto s = sim_session(m, file.path(), policy);
    ASSERT_NE(s, nullptr);
    ASSERT_NE(s->simulator(), nullptr);
    MakespanBound bound = MakespanBound::for_simulator(*s->simulator());
    RunOptions ro;
    ro.observer = &bound;
    auto r = s->run({{"x", RuntimeValue(input_16x16())}}, ro);
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    const auto b = bound.result();
    EXPECT_EQ(b.kernels, 7);
    EXPECT_GT(b.bound_us(), 0.0);
    EXPECT_GE(static_cast<double>(r->latency_ns) / 1e3, b.bound_us() - 1e-6)
        << "critical path " << b.critical_path_us << ", area " << b.area_us << ", launches " << b.launches_us;
  }
}

TEST(MakespanBound, Simulated_RepeatedRunsOnOneSession_BoundHoldsEachTime) {
  testing::TempFile file(kProfile);
  auto m = diamond();
  auto s = sim_session(m, file.path(), "dynamic");
  ASSERT_NE(s, nullptr);
  MakespanBound bound = MakespanBound::for_simulator(*s->simulator());
  for (int i = 0; i < 4; ++i) {
    bound.reset();
    RunOptions ro;
    ro.observer = &bound;
    auto r = s->run({{"x", RuntimeValue(input_16x16())}}, ro);
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_EQ(bound.result().kernels, 7);
    EXPECT_GE(static_cast<double>(r->latency_ns) / 1e3, bound.result().bound_us() - 1e-6) << "run " << i;
  }
}

TEST(MakespanBound, Simulated_ChainOnItsFastestDevice_MeetsTheBound) {
  // Add is cheapest on the host, and a chain has nothing to overlap: running
  // it all on the host is optimal, and the bound is exactly its makespan.
  testing::TempFile file(kProfile);
  auto m = testing::add_chain(5, 64);
  auto s = sim_session(m, file.path(), "cpu");
  ASSERT_NE(s, nullptr);
  MakespanBound bound = MakespanBound::for_simulator(*s->simulator());
  RunOptions ro;
  ro.observer = &bound;
  Tensor x = *Tensor::host(DataType::kFloat, Dims{64});
  for (int i = 0; i < 64; ++i) x.data<float>()[i] = static_cast<float>(i);
  auto r = s->run({{"x", RuntimeValue(x)}}, ro);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  const auto b = bound.result();
  EXPECT_EQ(b.kernels, 5);
  EXPECT_NEAR(static_cast<double>(r->latency_ns) / 1e3, b.bound_us(), 1e-6);
  EXPECT_NEAR(b.bound_us(), b.critical_path_us, 1e-12);
  EXPECT_FLOAT_EQ(r->outputs[0].tensor().data<float>()[10], 15.0f);
}

}  // namespace
}  // namespace sy

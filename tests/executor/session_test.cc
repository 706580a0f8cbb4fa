#include "executor/session.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <thread>

#include "devices/host_allocator.h"
#include "tests/executor/model_builder.h"

namespace sy {
namespace {

using testing::GraphBuilder;

constexpr int kF = onnx::TensorProto::FLOAT;
constexpr int kI64 = onnx::TensorProto::INT64;
constexpr int kB = onnx::TensorProto::BOOL;

Tensor floats(Dims d, float fill) {
  Tensor t = *Tensor::host(DataType::kFloat, d);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = fill;
  return t;
}

std::unique_ptr<Session> session_for(onnx::ModelProto& m, SessionOptions opt = {}) {
  auto model = testing::load_model(m);
  EXPECT_TRUE(model.ok()) << model.status().to_string();
  auto s = Session::create(std::shared_ptr<const Model>(std::move(model).value()), opt);
  EXPECT_TRUE(s.ok()) << s.status().to_string();
  return std::move(s).value();
}

// Loop M times: v += c (outer-scope initializer), scan output v each step.
onnx::ModelProto add_loop() {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("M", kI64, {}).input("x", kF, {1}).init_float("c", {1}, {2.0f}).output("y", kF, {1}).output("trace", kF, {-1, 1});
  auto* loop = g.node("Loop", {"M", "", "x"}, {"y", "trace"});
  auto body = GraphBuilder::subgraph(loop, "body", "body");
  body.input("i", kI64, {}).input("cond", kB, {}).input("v", kF, {1});
  body.node("Identity", {"cond"}, {"cond_out"});
  body.node("Add", {"v", "c"}, {"v_out"});
  body.node("Identity", {"v_out"}, {"scan"});
  body.output("cond_out", kB, {}).output("v_out", kF, {1}).output("scan", kF, {1});
  // The trace length is the trip count: a symbolic dimension.
  auto* dim = m.mutable_graph()->mutable_output(1)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0);
  dim->clear_dim_value();
  dim->set_dim_param("trips");
  return m;
}

TEST(Session, AddChain_ComputesSum) {
  auto m = testing::add_chain(10, 4);
  auto s = session_for(m);
  auto r = s->run({{"x", RuntimeValue(floats({4}, 0.5f))}});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  const Tensor& y = r->outputs[0].tensor();
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(y.data<float>()[i], 10.5f);
  EXPECT_EQ(r->stats.nodes_per_device[0], 10);
}

TEST(Session, DeadValuesAreFreed_PeakStaysSmall) {
  constexpr int64_t kElems = 1 << 18;  // 1 MiB per value
  auto m = testing::add_chain(50, kElems);
  auto s = session_for(m);
  Tensor x = floats({kElems}, 0.0f);
  HostAllocator& a = HostAllocator::host();
  const uint64_t before = a.bytes_in_use();
  auto r = s->run({{"x", RuntimeValue(x)}});
  ASSERT_TRUE(r.ok());
  // Without freeing, 50 MiB would be live; with it, only a few values are.
  EXPECT_LT(a.peak_bytes() - before, uint64_t{8} << 20);
  EXPECT_FLOAT_EQ(r->outputs[0].tensor().data<float>()[kElems - 1], 50.0f);
}

// RunStats' peak: what the device held at its kernels' completions, the
// live values of a chain (an Add's input and output, and the feed) but
// not the 50 that a run that never freed would hold.
TEST(Session, PeakMemoryPerDevice_IsWhatTheLiveValuesHold) {
  constexpr int64_t kElems = 1 << 18;  // 1 MiB per value
  auto m = testing::add_chain(50, kElems);
  auto s = session_for(m);
  auto r = s->run({{"x", RuntimeValue(floats({kElems}, 0.0f))}});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->stats.peak_bytes_per_device.size(), 1u);
  EXPECT_GE(r->stats.peak_bytes_per_device[0], uint64_t{3} << 20);
  EXPECT_LT(r->stats.peak_bytes_per_device[0], HostAllocator::host().bytes_in_use() + (uint64_t{8} << 20));
}

TEST(Session, Loop_CarriesValuesAndStacksScanOutputs) {
  auto m = add_loop();
  auto s = session_for(m);
  Tensor trips = *Tensor::host(DataType::kInt64, Dims{});
  *trips.data<int64_t>() = 5;
  auto r = s->run({{"M", RuntimeValue(trips)}, {"x", RuntimeValue(floats({1}, 1.0f))}});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_FLOAT_EQ(r->outputs[0].tensor().data<float>()[0], 11.0f);
  const Tensor& trace = r->outputs[1].tensor();
  ASSERT_EQ(trace.dims(), Dims({5, 1}));
  for (int i = 0; i < 5; ++i) EXPECT_FLOAT_EQ(trace.data<float>()[i], 3.0f + 2.0f * i);
  EXPECT_EQ(r->stats.loop_iterations, 5);
}

TEST(Session, Loop_ZeroTrips_ReturnsInitialValueAndEmptyScan) {
  auto m = add_loop();
  auto s = session_for(m);
  Tensor trips = *Tensor::host(DataType::kInt64, Dims{});
  *trips.data<int64_t>() = 0;
  auto r = s->run({{"M", RuntimeValue(trips)}, {"x", RuntimeValue(floats({1}, 7.0f))}});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_FLOAT_EQ(r->outputs[0].tensor().data<float>()[0], 7.0f);
  EXPECT_EQ(r->outputs[1].tensor().dims(), Dims({0, 1}));
}

// The same with the body's scan output declared without a shape, as
// exporters write bodies: the loader's shape inference gives it [1], so the
// empty trace is still [0, 1], not [0].
TEST(Session, Loop_ZeroTrips_UndeclaredBodyOutput_TakesTheInferredShape) {
  auto m = add_loop();
  auto* loop = m.mutable_graph()->mutable_node(0);
  loop->mutable_attribute(0)->mutable_g()->mutable_output(2)->mutable_type()->mutable_tensor_type()->clear_shape();
  auto s = session_for(m);
  Tensor trips = *Tensor::host(DataType::kInt64, Dims{});
  *trips.data<int64_t>() = 0;
  auto r = s->run({{"M", RuntimeValue(trips)}, {"x", RuntimeValue(floats({1}, 7.0f))}});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->outputs[1].tensor().dims(), Dims({0, 1}));
}

// Scan over xs [T, 3] with T = 0: no iteration runs, so the scan outputs
// take the body's declared item shape [3] (along output axis 0, and 1),
// not [0]; the state comes back as given.
TEST(Session, Scan_NoIterations_ScanOutputsKeepTheBodysItemShape) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("s0", kF, {3}).input("xs", kF, {0, 3}).output("s", kF, {3}).output("ys", kF, {0, 3}).output("zs", kF, {3, 0});
  auto* scan = g.node("Scan", {"s0", "xs"}, {"s", "ys", "zs"});
  auto* a = scan->add_attribute();
  a->set_name("num_scan_inputs");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(1);
  auto* axes = scan->add_attribute();
  axes->set_name("scan_output_axes");
  axes->set_type(onnx::AttributeProto::INTS);
  axes->add_ints(0);
  axes->add_ints(1);
  auto body = GraphBuilder::subgraph(scan, "body", "body");
  body.input("st", kF, {3}).input("x", kF, {3});
  body.node("Add", {"st", "x"}, {"st_out"});
  body.node("Mul", {"st", "x"}, {"y"});
  body.node("Identity", {"y"}, {"z"});
  body.output("st_out", kF, {3}).output("y", kF, {3}).output("z", kF, {3});
  auto s = session_for(m);
  auto r = s->run({{"s0", RuntimeValue(floats({3}, 4.0f))}, {"xs", RuntimeValue(floats({0, 3}, 0))}});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->outputs[0].tensor().dims(), Dims({3}));
  EXPECT_FLOAT_EQ(r->outputs[0].tensor().data<float>()[2], 4.0f);
  EXPECT_EQ(r->outputs[1].tensor().dims(), Dims({0, 3}));
  EXPECT_EQ(r->outputs[2].tensor().dims(), Dims({3, 0}));
}

// Scan over x [n, 0], each iteration an empty row copied out. An empty input
// can claim any number of iterations, and every iteration's scan output is
// kept until the last, so a claim of 2^40 fails before the first iteration
// instead of growing host memory for as long as the run lasts.
TEST(Session, Scan_EmptyInputClaimingTooManyIterations_IsResourceExhausted) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {1, 0}).output("y", kF, {1, 0});
  for (auto* v : {m.mutable_graph()->mutable_input(0), m.mutable_graph()->mutable_output(0)}) {
    auto* dim = v->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0);
    dim->clear_dim_value();
    dim->set_dim_param("n");
  }
  auto* scan = g.node("Scan", {"x"}, {"y"});
  auto* a = scan->add_attribute();
  a->set_name("num_scan_inputs");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(1);
  auto body = GraphBuilder::subgraph(scan, "body", "body");
  body.input("row", kF, {0}).node("Identity", {"row"}, {"out"});
  body.output("out", kF, {0});
  auto s = session_for(m);
  auto few = s->run({{"x", RuntimeValue(floats({3, 0}, 0))}});
  ASSERT_TRUE(few.ok()) << few.status().to_string();
  EXPECT_EQ(few->outputs[0].tensor().dims(), Dims({3, 0}));
  auto r = s->run({{"x", RuntimeValue(floats({int64_t{1} << 40, 0}, 0))}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted) << r.status().to_string();
}

// Counts place() calls, so the test can see that nodes inside a Loop body
// are placed once per iteration.
class CountingPolicy : public PlacementPolicy {
 public:
  std::string_view name() const override { return "counting"; }
  PlacementDecision place(const PlacementRequest& r) override {
    ++calls;
    if (r.depth > 0) ++nested_calls;
    return {0};
  }
  std::atomic<int> calls{0}, nested_calls{0};
};

TEST(Session, PlacementHook_CalledForEveryNodeInEveryIteration) {
  auto m = add_loop();
  SessionOptions opt;
  auto policy = std::make_shared<CountingPolicy>();
  opt.custom_policy = policy;
  auto s = session_for(m, opt);
  Tensor trips = *Tensor::host(DataType::kInt64, Dims{});
  *trips.data<int64_t>() = 4;
  auto r = s->run({{"M", RuntimeValue(trips)}, {"x", RuntimeValue(floats({1}, 0.0f))}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(policy->nested_calls.load(), 3 * 4);  // three body nodes, four iterations
  EXPECT_EQ(policy->calls.load(), 3 * 4);         // the Loop itself is run by the executor
}

class BadPolicy : public PlacementPolicy {
 public:
  std::string_view name() const override { return "bad"; }
  PlacementDecision place(const PlacementRequest&) override { return {7}; }
};

TEST(Session, PolicyChoosingMissingCandidate_IsAnError) {
  auto m = testing::add_chain(2, 1);
  SessionOptions opt;
  opt.custom_policy = std::make_shared<BadPolicy>();
  auto s = session_for(m, opt);
  auto r = s->run({{"x", RuntimeValue(floats({1}, 0.0f))}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("candidate 7"), std::string::npos);
}

TEST(Session, ConcurrentRuns_AllGetTheirOwnResults) {
  auto m = add_loop();
  auto s = session_for(m);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        Tensor trips = *Tensor::host(DataType::kInt64, Dims{});
        *trips.data<int64_t>() = t + i % 3;
        auto r = s->run({{"M", RuntimeValue(trips)}, {"x", RuntimeValue(floats({1}, 1.0f))}});
        if (!r.ok() || r->outputs[0].tensor().data<float>()[0] != 1.0f + 2.0f * static_cast<float>(t + i % 3)) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(Session, ValidateInputs_RejectsMissingUnknownWrongTypeAndShape) {
  auto m = testing::add_chain(1, 4);
  auto s = session_for(m);
  EXPECT_NE(s->validate_inputs({}).message().find("missing input 'x'"), std::string::npos);
  EXPECT_NE(s->validate_inputs({{"x", RuntimeValue(floats({4}, 0))}, {"z", RuntimeValue(floats({4}, 0))}})
                .message()
                .find("unknown input 'z'"),
            std::string::npos);
  Tensor ints = *Tensor::host(DataType::kInt32, Dims{4});
  EXPECT_NE(s->validate_inputs({{"x", RuntimeValue(ints)}}).message().find("int32"), std::string::npos);
  EXPECT_NE(s->validate_inputs({{"x", RuntimeValue(floats({5}, 0))}}).message().find("shape"), std::string::npos);
  EXPECT_TRUE(s->validate_inputs({{"x", RuntimeValue(floats({4}, 0))}}).ok());
}

TEST(Session, UnknownPolicyOrDevice_IsAnError) {
  auto m = testing::add_chain(1, 1);
  auto model = testing::load_model(m);
  ASSERT_TRUE(model.ok());
  std::shared_ptr<const Model> shared(std::move(model).value());
  SessionOptions opt;
  opt.policy = "nope";
  EXPECT_FALSE(Session::create(shared, opt).ok());
  opt.policy = "single";
  opt.devices = "tpu:0";
  EXPECT_FALSE(Session::create(shared, opt).ok());
}

// Loop M times: v += c, nothing stacked, so a huge M runs for ever in
// constant memory.
onnx::ModelProto endless_loop() {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("M", kI64, {}).input("x", kF, {1}).init_float("c", {1}, {1.0f}).output("y", kF, {1});
  auto* loop = g.node("Loop", {"M", "", "x"}, {"y"});
  auto body = GraphBuilder::subgraph(loop, "body", "body");
  body.input("i", kI64, {}).input("cond", kB, {}).input("v", kF, {1});
  body.node("Identity", {"cond"}, {"cond_out"});
  body.node("Add", {"v", "c"}, {"v_out"});
  body.output("cond_out", kB, {}).output("v_out", kF, {1});
  return m;
}

std::map<std::string, RuntimeValue> loop_inputs(int64_t trips) {
  Tensor m = *Tensor::host(DataType::kInt64, Dims{});
  *m.data<int64_t>() = trips;
  return {{"M", RuntimeValue(m)}, {"x", RuntimeValue(floats({1}, 0.0f))}};
}

TEST(Session, Timeout_StopsAnEndlessLoop_AndTheSessionRunsOnAfterwards) {
  auto m = endless_loop();
  auto s = session_for(m);
  RunOptions ro;
  ro.timeout_ms = 50;
  auto r = s->run(loop_inputs(int64_t{1} << 62), ro);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kDeadlineExceeded) << r.status().to_string();
  EXPECT_NE(r.status().message().find("50 ms"), std::string::npos) << r.status().message();
  // A run that fits in its limit is unaffected.
  ro.timeout_ms = 60'000;
  auto ok = s->run(loop_inputs(3), ro);
  ASSERT_TRUE(ok.ok()) << ok.status().to_string();
  EXPECT_FLOAT_EQ(ok->outputs[0].tensor().data<float>()[0], 3.0f);
}

TEST(Session, Cancel_FromAnotherThread_StopsTheRun) {
  auto m = endless_loop();
  SessionOptions opt;
  opt.devices = "cpu:0,cpu:1";  // device threads: the stop must also drain them
  opt.policy = "round-robin";
  auto s = session_for(m, opt);
  std::atomic<bool> cancel{false};
  RunOptions ro;
  ro.cancel = &cancel;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    cancel = true;
  });
  auto r = s->run(loop_inputs(int64_t{1} << 62), ro);
  stopper.join();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled) << r.status().to_string();
  // The flag is the caller's: still set, it stops the next run at once.
  EXPECT_EQ(s->run(loop_inputs(3), ro).status().code(), StatusCode::kCancelled);
  cancel = false;
  EXPECT_TRUE(s->run(loop_inputs(3), ro).ok());
}

TEST(Session, NegativeTimeout_IsAnError) {
  auto m = endless_loop();
  auto s = session_for(m);
  RunOptions ro;
  ro.timeout_ms = -1;
  EXPECT_EQ(s->run(loop_inputs(1), ro).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sy

namespace sy {
namespace {

// Runs model m twice as loaded with `first` (to `first_nodes` nodes) and
// twice with `second` (`second_nodes`) on x, round-robin over cpu:0 and
// cpu:1, and checks that the four outputs agree to 1e-4; returns the
// first, or nothing after a failure.
std::vector<float> run_two_loads(const onnx::ModelProto& m, const Tensor& x, const LoadOptions& first,
                                 size_t first_nodes, const LoadOptions& second, size_t second_nodes) {
  std::vector<std::vector<float>> results;
  for (const auto& [load, nodes] : {std::pair{first, first_nodes}, std::pair{second, second_nodes}}) {
    auto proto = m;
    auto model = OnnxLoader(load).load_proto(proto, "fusion", "");
    EXPECT_TRUE(model.ok()) << model.status().to_string();
    if (!model.ok()) return {};
    EXPECT_EQ((*model)->graph->nodes().size(), nodes);
    SessionOptions opt;
    opt.devices = "cpu:0,cpu:1";
    opt.policy = "round-robin";
    auto s = Session::create(std::shared_ptr<const Model>(std::move(model).value()), opt);
    EXPECT_TRUE(s.ok()) << s.status().to_string();
    if (!s.ok()) return {};
    for (int run = 0; run < 2; ++run) {
      auto r = (*s)->run({{"x", RuntimeValue(x)}});
      EXPECT_TRUE(r.ok()) << r.status().to_string();
      if (!r.ok()) return {};
      const Tensor& y = r->outputs[0].tensor();
      results.emplace_back(y.data<float>(), y.data<float>() + y.numel());
    }
  }
  for (size_t i = 0; i < results[0].size(); ++i)
    for (size_t k = 1; k < 4; ++k)
      if (std::abs(results[k][i] - results[0][i]) > 1e-4) {
        ADD_FAILURE() << "run " << k << " at " << i << ": " << results[k][i] << " against " << results[0][i];
        return {};
      }
  return results[0];
}

// run_two_loads as written (`written` nodes) and fused (`fused` nodes).
std::vector<float> run_written_and_fused(const onnx::ModelProto& m, const Tensor& x, size_t written, size_t fused) {
  LoadOptions as_written;
  as_written.fuse_ops = false;
  return run_two_loads(m, x, as_written, written, LoadOptions{}, fused);
}

// The loader's fusions (ir/op_fusion.h) change no result beyond rounding:
// Conv, BatchNormalization and Clip, run fused and as written, on devices
// that the policy switches between.
TEST(Session, FusedConvModel_MatchesTheModelAsWritten) {
  constexpr int kF = onnx::TensorProto::FLOAT;
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {1, 16, 10, 10}).output("y", kF, {1, 24, 10, 10});
  std::vector<float> w(24 * 16 * 9), stats(24);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int64_t>(i * 13 % 17) - 8) / 16;
  for (size_t i = 0; i < stats.size(); ++i) stats[i] = 0.5f + static_cast<float>(i) / 8;
  g.init_float("W", {24, 16, 3, 3}, w).init_float("scale", {24}, stats).init_float("bias", {24}, stats);
  g.init_float("mean", {24}, std::vector<float>(24, 0.25f)).init_float("var", {24}, stats);
  g.init_float("lo", {}, {-1}).init_float("hi", {}, {2});
  GraphBuilder::ints(g.node("Conv", {"x", "W"}, {"c"}), "pads", {1, 1, 1, 1});
  g.node("BatchNormalization", {"c", "scale", "bias", "mean", "var"}, {"bn"});
  g.node("Clip", {"bn", "lo", "hi"}, {"y"});
  Tensor x = floats({1, 16, 10, 10}, 0);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = static_cast<float>(i % 11) / 4 - 1;
  const std::vector<float> y = run_written_and_fused(m, x, 3, 1);
  ASSERT_FALSE(y.empty());
  int clamped = 0;
  for (float v : y) clamped += v == -1 || v == 2;
  EXPECT_GT(clamped, 0);
}

// The residual fusion (a Conv, an Add of a shortcut made after it, a Relu)
// changes no result, the shortcut on another device than the fused node
// under round-robin included. The Add's first operand is the shortcut's
// Conv, which has no bias: the fused node's bias input is empty.
TEST(Session, FusedResidualModel_MatchesTheModelAsWritten) {
  constexpr int kF = onnx::TensorProto::FLOAT;
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {1, 8, 9, 9}).output("y", kF, {1, 16, 9, 9});
  g.value("c", kF, {1, 16, 9, 9}).value("s", kF, {1, 16, 9, 9}).value("sum", kF, {1, 16, 9, 9});
  std::vector<float> w(16 * 8 * 9), v(16 * 8), b(16);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int64_t>(i * 13 % 17) - 8) / 16;
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(static_cast<int64_t>(i * 7 % 11) - 5) / 8;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i) / 8 - 1;
  g.init_float("W", {16, 8, 3, 3}, w).init_float("B", {16}, b).init_float("V", {16, 8, 1, 1}, v);
  GraphBuilder::ints(g.node("Conv", {"x", "W", "B"}, {"c"}), "pads", {1, 1, 1, 1});
  g.node("Conv", {"x", "V"}, {"s"});
  g.node("Add", {"s", "c"}, {"sum"});  // the shortcut's Conv, without a bias, takes the sum
  g.node("Relu", {"sum"}, {"y"});
  Tensor x = floats({1, 8, 9, 9}, 0);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = static_cast<float>(i % 11) / 4 - 1;
  const std::vector<float> y = run_written_and_fused(m, x, 4, 2);
  ASSERT_FALSE(y.empty());
  int zeros = 0;
  for (float v : y) zeros += v == 0;
  EXPECT_GT(zeros, 0) << "the Relu clamps some sums";
}

// A MobileNet-like block run channels-last (ir/channels_last.h), as CPU
// sessions load it, gives what it gives as written: a 3x3 Conv and Relu, a
// depthwise Conv and Clip, a squeeze-and-excitation (GlobalAveragePool, a
// 1x1 Conv, HardSigmoid, a broadcast Mul), a 1x1 projection adding the
// input back, then a MaxPool; round-robin over cpu:0 and cpu:1, so that
// the channels-last values cross between devices.
TEST(Session, ChannelsLastModel_MatchesTheModelAsWritten) {
  constexpr int kF = onnx::TensorProto::FLOAT;
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {2, 8, 9, 9}).output("y", kF, {2, 8, 4, 4});
  auto weights = [](int64_t n, int64_t mul) {
    std::vector<float> w(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) w[static_cast<size_t>(i)] = static_cast<float>(i * mul % 9 - 4) / 16;
    return w;
  };
  g.init_float("W1", {16, 8, 3, 3}, weights(16 * 8 * 9, 7)).init_float("B1", {16}, weights(16, 5));
  g.init_float("W2", {16, 1, 3, 3}, weights(16 * 9, 5)).init_float("W3", {8, 16, 1, 1}, weights(8 * 16, 3));
  g.init_float("lo", {}, {0.f}).init_float("hi", {}, {1.5f});
  GraphBuilder::ints(g.node("Conv", {"x", "W1", "B1"}, {"c1"}), "pads", {1, 1, 1, 1});
  g.node("Relu", {"c1"}, {"r1"});
  auto* dw = g.node("Conv", {"r1", "W2"}, {"c2"});
  GraphBuilder::ints(dw, "pads", {1, 1, 1, 1});
  auto* group = dw->add_attribute();
  group->set_name("group");
  group->set_type(onnx::AttributeProto::INT);
  group->set_i(16);
  g.node("Clip", {"c2", "lo", "hi"}, {"r2"});
  g.init_float("W4", {16, 16, 1, 1}, weights(16 * 16, 5));
  g.node("GlobalAveragePool", {"r2"}, {"g"});
  g.node("Conv", {"g", "W4"}, {"e"});
  g.node("HardSigmoid", {"e"}, {"k"});
  g.node("Mul", {"r2", "k"}, {"se"});
  g.node("Conv", {"se", "W3"}, {"c3"});
  g.node("Add", {"c3", "x"}, {"s"});
  auto* pool = g.node("MaxPool", {"s"}, {"y"});
  GraphBuilder::ints(pool, "kernel_shape", {2, 2});
  GraphBuilder::ints(pool, "strides", {2, 2});
  Tensor x = floats({2, 8, 9, 9}, 0);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = static_cast<float>(i % 13) / 4 - 1.5f;
  // Fused: 8 nodes; channels-last, the same 8 and two Transposes.
  LoadOptions channels_last;
  channels_last.channels_last = true;
  const std::vector<float> y = run_two_loads(m, x, LoadOptions{}, 8, channels_last, 10);
  EXPECT_EQ(y.size(), 2u * 8 * 4 * 4);
}

// Runs `m`, a Gelu written out in `written` nodes on t = -x (x [4, 301]
// from -6 in steps of 0.01), as written and fused into two nodes (Neg,
// Gelu), and checks the results against `gelu(t)`.
void expect_gelu_of_negated_ramp(const onnx::ModelProto& m, size_t written, double (*gelu)(double)) {
  Tensor x = floats({4, 301}, 0);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = static_cast<float>(i) / 100 - 6;
  const std::vector<float> y = run_written_and_fused(m, x, written, 2);
  ASSERT_EQ(y.size(), 1204u);
  for (size_t i = 0; i < y.size(); ++i) {
    const double t = -x.data<float>()[i];
    EXPECT_NEAR(y[i], gelu(t), 1e-5) << t;
  }
}

// A Gelu written out (Mul by 1/sqrt 2, Erf, Add 1, Mul by x, Mul by 1/2)
// after a Neg, so that its x is typed only by the loader's inference, runs
// as one Gelu and gives the same values, which are the formula's.
TEST(Session, FusedGeluModel_MatchesTheModelAsWritten) {
  constexpr int kF = onnx::TensorProto::FLOAT;
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {4, 301}).output("y", kF, {4, 301});
  g.init_float("k", {}, {0.70710678f}).init_float("one", {}, {1.f}).init_float("half", {}, {0.5f});
  g.node("Neg", {"x"}, {"t"});
  g.node("Mul", {"t", "k"}, {"s"});
  g.node("Erf", {"s"}, {"e"});
  g.node("Add", {"e", "one"}, {"a"});
  g.node("Mul", {"t", "a"}, {"p"});
  g.node("Mul", {"p", "half"}, {"y"});
  expect_gelu_of_negated_ramp(m, 6, [](double t) { return 0.5 * t * (1 + std::erf(t / std::sqrt(2.0))); });
}

// Gelu's tanh form written out as GPT-2 exports it (Pow 3, Mul 0.044715,
// Add x, Mul sqrt(2/pi), Tanh, Add 1, Mul x, Mul 1/2) runs as one tanh
// Gelu and gives the formula's values.
TEST(Session, FusedTanhGeluModel_MatchesTheModelAsWritten) {
  constexpr int kF = onnx::TensorProto::FLOAT;
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {4, 301}).output("y", kF, {4, 301});
  g.init_float("three", {}, {3.f}).init_float("c", {}, {0.044715f}).init_float("k", {}, {0.7978845608f});
  g.init_float("one", {}, {1.f}).init_float("half", {}, {0.5f});
  g.node("Neg", {"x"}, {"t"});
  g.node("Pow", {"t", "three"}, {"t3"});
  g.node("Mul", {"c", "t3"}, {"w"});
  g.node("Add", {"t", "w"}, {"v"});
  g.node("Mul", {"k", "v"}, {"u"});
  g.node("Tanh", {"u"}, {"th"});
  g.node("Add", {"one", "th"}, {"a"});
  g.node("Mul", {"half", "t"}, {"h"});
  g.node("Mul", {"h", "a"}, {"y"});
  expect_gelu_of_negated_ramp(
      m, 9, [](double t) { return 0.5 * t * (1 + std::tanh(0.7978845608 * (t + 0.044715 * t * t * t))); });
}

// A LayerNormalization written out as PyTorch exports it at opset 13
// (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add), after a Neg
// so that its input's shape comes from the loader's inference, runs as one
// node and gives the same values, which are the formula's.
TEST(Session, FusedLayerNormModel_MatchesTheModelAsWritten) {
  constexpr int kF = onnx::TensorProto::FLOAT;
  auto m = testing::new_model(13);
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {3, 50}).output("y", kF, {3, 50});
  std::vector<float> gamma(50), beta(50);
  for (int i = 0; i < 50; ++i) gamma[i] = 1.f + static_cast<float>(i % 5) / 4, beta[i] = static_cast<float>(i % 3) - 1;
  g.init_float("gamma", {50}, gamma).init_float("beta", {50}, beta);
  g.init_float("two", {}, {2.f}).init_float("eps", {}, {1e-5f});
  g.node("Neg", {"x"}, {"t"});
  GraphBuilder::ints(g.node("ReduceMean", {"t"}, {"m"}), "axes", {-1});
  g.node("Sub", {"t", "m"}, {"d"});
  g.node("Pow", {"d", "two"}, {"p"});
  GraphBuilder::ints(g.node("ReduceMean", {"p"}, {"v"}), "axes", {-1});
  g.node("Add", {"v", "eps"}, {"e"});
  g.node("Sqrt", {"e"}, {"s"});
  g.node("Div", {"d", "s"}, {"n"});
  g.node("Mul", {"n", "gamma"}, {"gn"});
  g.node("Add", {"gn", "beta"}, {"y"});
  Tensor x = floats({3, 50}, 0);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = static_cast<float>(i * 7 % 23) / 4 - 2;
  const std::vector<float> y = run_written_and_fused(m, x, 10, 2);
  ASSERT_EQ(y.size(), 150u);
  for (int r = 0; r < 3; ++r) {
    double mean = 0, var = 0;
    for (int c = 0; c < 50; ++c) mean -= x.data<float>()[r * 50 + c] / 50.0;
    for (int c = 0; c < 50; ++c) var += std::pow(-x.data<float>()[r * 50 + c] - mean, 2) / 50;
    for (int c = 0; c < 50; ++c) {
      const double want = (-x.data<float>()[r * 50 + c] - mean) / std::sqrt(var + 1e-5) * gamma[c] + beta[c];
      EXPECT_NEAR(y[r * 50 + c], want, 1e-5) << r << "," << c;
    }
  }
}

}  // namespace
}  // namespace sy

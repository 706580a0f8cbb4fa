// Residency and transfers across devices with separate memory spaces
// (cpu:0,cpu:1): every crossing is a real copy, made once per value and
// space, and results match the single-device run.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <thread>

#include "executor/session.h"
#include "executor/trace_writer.h"
#include "tests/executor/model_builder.h"

namespace sy {
namespace {

using testing::GraphBuilder;

constexpr int kF = onnx::TensorProto::FLOAT;
constexpr int kI64 = onnx::TensorProto::INT64;
constexpr int kB = onnx::TensorProto::BOOL;

Tensor floats(Dims d, float start) {
  Tensor t = *Tensor::host(DataType::kFloat, d);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = start + static_cast<float>(i);
  return t;
}

// Places nodes whose name ends in "@1" on device 1, everything else on 0.
class ByNamePolicy : public PlacementPolicy {
 public:
  std::string_view name() const override { return "by-name"; }
  bool uses_costs() const override { return false; }
  PlacementDecision place(const PlacementRequest& r) override {
    const std::string& n = r.node->name;
    const int want = n.size() > 2 && n.compare(n.size() - 2, 2, "@1") == 0 ? 1 : 0;
    for (size_t c = 0; c < r.candidates.size(); ++c)
      if (r.candidates[c].device_index == want) return {static_cast<int>(c)};
    return {0};
  }
};

std::unique_ptr<Session> make_session(onnx::ModelProto& m, const std::string& devices,
                                      std::shared_ptr<PlacementPolicy> policy = std::make_shared<ByNamePolicy>()) {
  auto model = testing::load_model(m);
  EXPECT_TRUE(model.ok()) << model.status().to_string();
  SessionOptions opt;
  opt.devices = devices;
  opt.custom_policy = std::move(policy);
  auto s = Session::create(std::shared_ptr<const Model>(std::move(model).value()), opt);
  EXPECT_TRUE(s.ok()) << s.status().to_string();
  return std::move(s).value();
}

// Copies per value name in a trace.
std::map<std::string, int> copies_by_value(const TraceWriter& t) {
  std::map<std::string, int> out;
  const nlohmann::json j = t.to_json();
  for (const auto& e : j["traceEvents"])
    if (e.value("cat", "") == "copy") out[e["args"]["value"].get<std::string>()]++;
  return out;
}

// a = Relu(x) on cpu:0 feeds one consumer on cpu:0 and three on cpu:1.
onnx::ModelProto fan_out() {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {4}).output("y", kF, {4});
  g.node("Relu", {"x"}, {"a"})->set_name("relu");
  g.node("Add", {"a", "a"}, {"b0"})->set_name("add");
  g.node("Neg", {"a"}, {"b1"})->set_name("neg@1");
  g.node("Abs", {"a"}, {"b2"})->set_name("abs@1");
  g.node("Mul", {"a", "b1"}, {"b3"})->set_name("mul@1");
  g.node("Sum", {"b0", "b1", "b2", "b3"}, {"y"})->set_name("sum");
  return m;
}

TEST(Residency, ValueWithConsumersOnBothDevices_CopiedOncePerSpace) {
  auto m = fan_out();
  auto s = make_session(m, "cpu:0,cpu:1");
  TraceWriter trace({"cpu:0", "cpu:1"});
  RunOptions ro;
  ro.observer = &trace;
  auto r = s->run({{"x", RuntimeValue(floats({4}, -1))}}, ro);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  auto copies = copies_by_value(trace);
  EXPECT_EQ(copies["a"], 1);   // to cpu:1, shared by neg, abs and mul
  EXPECT_EQ(copies["b1"], 1);  // back to cpu:0 for sum (mul reads it on cpu:1)
  EXPECT_EQ(copies["b2"], 1);
  EXPECT_EQ(copies["b3"], 1);
  EXPECT_EQ(copies.count("x"), 0u);  // x is host memory, read on cpu:0
  EXPECT_EQ(r->stats.copies, 4 + 0);  // y is produced on cpu:0 = host space
  EXPECT_EQ(r->stats.nodes_per_device[1], 3);
  // y = 2a - a + |a| - a^2 = 2a - a^2 with a = relu(x), x = -1, 0, 1, 2.
  const float* y = r->outputs[0].tensor().data<float>();
  const float want[] = {0, 0, 1, 0};
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(y[i], want[i]) << i;
}

TEST(Residency, ShapeOfValueOnOtherDevice_ReadsDimsWithoutCopy) {
  // a lives on cpu:1; Shape and Size on cpu:0 need only its dims.
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {2, 3}).output("s", kI64, {2}).output("n", kI64, {});
  g.node("Relu", {"x"}, {"a"})->set_name("relu@1");
  g.node("Shape", {"a"}, {"s"})->set_name("shape");
  g.node("Size", {"a"}, {"n"})->set_name("size");
  auto s = make_session(m, "cpu:0,cpu:1");
  TraceWriter trace({"cpu:0", "cpu:1"});
  RunOptions ro;
  ro.observer = &trace;
  auto r = s->run({{"x", RuntimeValue(floats({2, 3}, -1))}}, ro);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(copies_by_value(trace).count("a"), 0u);
  EXPECT_EQ(r->stats.nodes_per_device, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(r->outputs[0].tensor().data<int64_t>()[0], 2);
  EXPECT_EQ(r->outputs[0].tensor().data<int64_t>()[1], 3);
  EXPECT_EQ(r->outputs[1].tensor().data<int64_t>()[0], 6);
}

TEST(Residency, OutputOnSecondDevice_ComesBackToHost) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {3}).output("y", kF, {3});
  g.node("Neg", {"x"}, {"y"})->set_name("neg@1");
  auto s = make_session(m, "cpu:0,cpu:1");
  auto r = s->run({{"x", RuntimeValue(floats({3}, 1))}});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  const Tensor& y = r->outputs[0].tensor();
  EXPECT_EQ(y.space(), kHostSpace);
  EXPECT_FLOAT_EQ(y.data<float>()[2], -3);
  EXPECT_EQ(r->stats.copies, 2);  // x in, y out
}

// Loop M times on cpu:1: v = v * w (w an outer initializer) + c (a body
// initializer). The weights cross once per session, not per iteration.
onnx::ModelProto weighted_loop() {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("M", kI64, {}).input("x", kF, {2}).init_float("w", {2}, {2.0f, 3.0f}).output("y", kF, {2});
  auto* loop = g.node("Loop", {"M", "", "x"}, {"y"});
  auto body = GraphBuilder::subgraph(loop, "body", "body");
  body.input("i", kI64, {}).input("cond", kB, {}).input("v", kF, {2}).init_float("c", {2}, {1.0f, 1.0f});
  body.node("Identity", {"cond"}, {"cond_out"})->set_name("id");
  body.node("Mul", {"v", "w"}, {"t"})->set_name("mul@1");
  body.node("Add", {"t", "c"}, {"v_out"})->set_name("add@1");
  body.output("cond_out", kB, {}).output("v_out", kF, {2});
  return m;
}

TEST(Residency, LoopReadingWeights_CopiesThemOnce) {
  auto m = weighted_loop();
  auto s = make_session(m, "cpu:0,cpu:1");
  Tensor trips = *Tensor::host(DataType::kInt64, Dims{});
  *trips.data<int64_t>() = 5;
  TraceWriter trace({"cpu:0", "cpu:1"});
  RunOptions ro;
  ro.observer = &trace;
  auto r = s->run({{"M", RuntimeValue(trips)}, {"x", RuntimeValue(floats({2}, 0))}}, ro);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  auto copies = copies_by_value(trace);
  EXPECT_EQ(copies["w"], 1);  // outer value: copied into the frame that owns it
  EXPECT_EQ(copies["c"], 1);  // body initializer: cached for the session
  EXPECT_EQ(copies["v"], 1);  // x, as the first iteration's v; later v's stay on cpu:1
  // v: 0 -> 1 -> 3 -> 7 -> 15 -> 31 (w=2); 1 -> 4 -> 13 -> 40 -> 121 -> 364 (w=3).
  EXPECT_FLOAT_EQ(r->outputs[0].tensor().data<float>()[0], 31);
  EXPECT_FLOAT_EQ(r->outputs[0].tensor().data<float>()[1], 364);

  // A second run copies neither weight again: initializer copies are kept
  // for the session.
  TraceWriter again({"cpu:0", "cpu:1"});
  ro.observer = &again;
  auto r2 = s->run({{"M", RuntimeValue(trips)}, {"x", RuntimeValue(floats({2}, 0))}}, ro);
  ASSERT_TRUE(r2.ok());
  auto copies2 = copies_by_value(again);
  EXPECT_EQ(copies2.count("c"), 0u);
  EXPECT_EQ(copies2.count("w"), 0u);
  EXPECT_EQ(copies2["v"], 1);
}

// An initializer that is also a graph input is only the input's default:
// what the caller feeds must reach the other device, run after run, never
// a copy kept from an earlier run.
TEST(Residency, FedInputWithDefault_IsNotServedFromTheConstantCache) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {2}).input("w", kF, {2}).init_float("w", {2}, {1, 1}).output("y", kF, {2});
  g.node("Mul", {"x", "w"}, {"y"})->set_name("mul@1");
  auto s = make_session(m, "cpu:0,cpu:1");
  for (float w : {1.f, 2.f, 3.f}) {
    SCOPED_TRACE(w);
    Tensor wt = floats({2}, w);  // w, w + 1
    auto r = s->run({{"x", RuntimeValue(floats({2}, 1))}, {"w", RuntimeValue(wt)}});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_FLOAT_EQ(r->outputs[0].tensor().data<float>()[0], 1 * w);
    EXPECT_FLOAT_EQ(r->outputs[0].tensor().data<float>()[1], 2 * (w + 1));
  }
  auto r = s->run({{"x", RuntimeValue(floats({2}, 1))}});  // the default
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_FLOAT_EQ(r->outputs[0].tensor().data<float>()[1], 2);
}

// A Constant node makes the same tensor every run: a consumer on another
// device gets it copied once for the session, like an initializer.
TEST(Residency, ConstantNodeOutput_CopiedOncePerSession) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {2}).output("y", kF, {2});
  auto* k = g.node("Constant", {}, {"k"});
  k->set_name("k");
  auto* a = k->add_attribute();
  a->set_name("value_floats");
  a->set_type(onnx::AttributeProto::FLOATS);
  a->add_floats(2);
  a->add_floats(3);
  g.node("Mul", {"x", "k"}, {"y"})->set_name("mul@1");
  auto s = make_session(m, "cpu:0,cpu:1");
  for (int run = 0; run < 3; ++run) {
    SCOPED_TRACE(run);
    TraceWriter trace({"cpu:0", "cpu:1"});
    RunOptions ro;
    ro.observer = &trace;
    auto r = s->run({{"x", RuntimeValue(floats({2}, 1))}}, ro);
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_FLOAT_EQ(r->outputs[0].tensor().data<float>()[0], 2);
    EXPECT_FLOAT_EQ(r->outputs[0].tensor().data<float>()[1], 6);
    EXPECT_EQ(copies_by_value(trace)["k"], run == 0 ? 1 : 0);
  }
}

TEST(Residency, SequenceCrossingDevices_IsCopiedItemByItem) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {2}).output("y", kF, {2});
  g.node("Neg", {"x"}, {"n"})->set_name("neg");
  g.node("SequenceConstruct", {"x", "n"}, {"seq"})->set_name("construct");
  g.node("Constant", {}, {"one"})->set_name("const@1");
  {
    auto* attr = m.mutable_graph()->mutable_node(2)->add_attribute();
    attr->set_name("value");
    attr->set_type(onnx::AttributeProto::TENSOR);
    attr->mutable_t()->set_data_type(onnx::TensorProto::INT64);
    attr->mutable_t()->add_int64_data(1);
  }
  g.node("SequenceAt", {"seq", "one"}, {"y"})->set_name("at@1");
  auto s = make_session(m, "cpu:0,cpu:1");
  TraceWriter trace({"cpu:0", "cpu:1"});
  RunOptions ro;
  ro.observer = &trace;
  auto r = s->run({{"x", RuntimeValue(floats({2}, 1))}}, ro);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(copies_by_value(trace)["seq"], 1);
  EXPECT_FLOAT_EQ(r->outputs[0].tensor().data<float>()[1], -2);
  EXPECT_EQ(r->outputs[0].tensor().space(), kHostSpace);
}

TEST(Residency, DevicesWithoutHost_InputsAndOutputsStillCross) {
  auto m = fan_out();
  auto s = make_session(m, "cpu:1,cpu:2");
  auto r = s->run({{"x", RuntimeValue(floats({4}, -1))}});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->outputs[0].tensor().space(), kHostSpace);
  EXPECT_FLOAT_EQ(r->outputs[0].tensor().data<float>()[2], 1);
}

TEST(Residency, ConcurrentRunsOnSharedDevices_AllCorrect) {
  auto m = weighted_loop();
  auto model = testing::load_model(m);
  ASSERT_TRUE(model.ok());
  SessionOptions opt;
  opt.devices = "cpu:0,cpu:1";
  opt.policy = "random";
  opt.policy_options.seed = 7;
  auto s = Session::create(std::shared_ptr<const Model>(std::move(model).value()), opt);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  std::vector<std::thread> threads;
  std::atomic<int> good{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        Tensor trips = *Tensor::host(DataType::kInt64, Dims{});
        *trips.data<int64_t>() = 1 + (t + i) % 5;
        auto r = (*s)->run({{"M", RuntimeValue(trips)}, {"x", RuntimeValue(floats({2}, 0))}});
        if (!r.ok()) continue;
        // v_k = 2 v_{k-1} + 1 from 0: 2^k - 1.
        const float want = static_cast<float>((1 << (1 + (t + i) % 5)) - 1);
        if (r->outputs[0].tensor().data<float>()[0] == want) good++;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(good.load(), 80);
}

}  // namespace
}  // namespace sy

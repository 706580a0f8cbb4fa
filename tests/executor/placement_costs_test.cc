// The costs the run loop puts in front of a placement policy beyond the
// kernel's own time: the host time issuing work to each device takes
// (learned from the runs), and what a choice costs its consumers (copies to
// where they ran last, or to where they run fastest). Runs on a simulated
// machine, so every figure is exact.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "executor/session.h"
#include "tests/executor/model_builder.h"

namespace sy {
namespace {

using testing::GraphBuilder;

constexpr int kF = onnx::TensorProto::FLOAT;

// Every device runs every op in the same time and issues for free: no
// consumer gains by running elsewhere, so only where nodes ran (and where
// outputs are read) prices a choice.
constexpr const char* kFlatProfile = R"({
  "format": "switchyard-sim-profile",
  "version": 1,
  "name": "placement costs test, flat",
  "devices": [
    {"class": "host", "kind": "cpu", "memory_gb": 16, "launch_us": 0},
    {"class": "gpu", "kind": "cuda", "count": 2, "memory_gb": 16, "launch_us": 0}
  ],
  "costs": [
    {"class": "host", "op": "*", "base_us": 5, "us_per_work": 0},
    {"class": "gpu", "op": "*", "base_us": 5, "us_per_work": 0}
  ],
  "links": [
    {"from": "*", "to": "*", "latency_us": 3, "bandwidth_gbps": 20}
  ]
})";

// The host plus two GPUs, each with its own memory; issuing takes 2 us on
// the host and 4 us on a GPU. Tanh runs in 5 us on the host, 2 us on a GPU;
// every other op in 20 us and 1 us, plus its size.
constexpr const char* kProfile = R"({
  "format": "switchyard-sim-profile",
  "version": 1,
  "name": "placement costs test",
  "devices": [
    {"class": "host", "kind": "cpu", "memory_gb": 16, "launch_us": 2},
    {"class": "gpu", "kind": "cuda", "count": 2, "memory_gb": 16, "launch_us": 4}
  ],
  "costs": [
    {"class": "host", "op": "Tanh", "base_us": 5, "us_per_work": 0},
    {"class": "gpu", "op": "Tanh", "base_us": 2, "us_per_work": 0},
    {"class": "host", "op": "*", "base_us": 20, "us_per_work": 0.05},
    {"class": "gpu", "op": "*", "base_us": 1, "us_per_work": 0.001}
  ],
  "links": [
    {"from": "*", "to": "*", "latency_us": 3, "bandwidth_gbps": 20}
  ]
})";

// Runs every node on the session device `target` (the CPU if that device
// has no kernel), and keeps the last request for each node name.
class PinPolicy final : public PlacementPolicy {
 public:
  std::string_view name() const override { return "pin"; }
  PlacementDecision place(const PlacementRequest& r) override {
    int pick = 0;
    for (size_t i = 0; i < r.candidates.size(); ++i)
      if (r.candidates[i].device_index == target) pick = static_cast<int>(i);
    std::lock_guard<std::mutex> lock(mu);
    seen[r.node->name].assign(r.candidates.begin(), r.candidates.end());
    return {pick, "pinned"};
  }
  // The candidates last offered for `node`, indexed by session device.
  std::map<int, Candidate> last(const std::string& node) {
    std::lock_guard<std::mutex> lock(mu);
    std::map<int, Candidate> out;
    for (const Candidate& c : seen[node]) out[c.device_index] = c;
    return out;
  }
  int target = 0;
  std::mutex mu;
  std::map<std::string, std::vector<Candidate>> seen;
};

constexpr int kCpu = 0, kGpu0 = 1, kGpu1 = 2;

class PlacementCosts : public ::testing::Test {
 protected:
  void open(onnx::ModelProto& m, const testing::TempFile& profile) {
    auto model = testing::load_model(m);
    ASSERT_TRUE(model.ok()) << model.status().to_string();
    SessionOptions opt;
    opt.simulate = profile.path();
    opt.custom_policy = policy_;
    auto s = Session::create(std::shared_ptr<const Model>(std::move(model).value()), opt);
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    session_ = std::move(s).value();
  }
  void run_on(int device, std::map<std::string, RuntimeValue> inputs) {
    policy_->target = device;
    auto r = session_->run(inputs);
    ASSERT_TRUE(r.ok()) << r.status().to_string();
  }

  testing::TempFile profile_{kProfile};
  testing::TempFile flat_{kFlatProfile};
  std::shared_ptr<PinPolicy> policy_ = std::make_shared<PinPolicy>();
  std::unique_ptr<Session> session_;
};

// x[16,16] -> Relu -> Tanh -> Sigmoid -> y
onnx::ModelProto chain() {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {16, 16}).output("y", kF, {16, 16});
  g.node("Relu", {"x"}, {"r"});
  g.node("Tanh", {"r"}, {"t"});
  g.node("Sigmoid", {"t"}, {"y"});
  return m;
}

RuntimeValue square() { return RuntimeValue(*Tensor::host(DataType::kFloat, Dims{16, 16})); }

TEST_F(PlacementCosts, IssueTime_IsLearnedPerDevice_AndCopiesCarryTheirs) {
  auto m = chain();
  ASSERT_NO_FATAL_FAILURE(open(m, profile_));
  ASSERT_NO_FATAL_FAILURE(run_on(kGpu0, {{"x", square()}}));  // kernels and a copy on cuda:0
  ASSERT_NO_FATAL_FAILURE(run_on(kCpu, {{"x", square()}}));   // kernels on the host
  ASSERT_NO_FATAL_FAILURE(run_on(kCpu, {{"x", square()}}));
  auto relu = policy_->last("Relu_1");
  ASSERT_EQ(relu.size(), 3u);
  EXPECT_DOUBLE_EQ(relu[kCpu].issue_us, 2);
  EXPECT_DOUBLE_EQ(relu[kGpu0].issue_us, 4);
  EXPECT_DOUBLE_EQ(relu[kGpu1].issue_us, 0) << "cuda:1 has issued nothing yet";
  // x is on the host: the GPU candidates need it copied, and the copy is
  // issued (4 us, by cuda:0, which the copy was measured on) before its
  // link time (3 us of latency plus 1 KiB at 20 GB/s).
  EXPECT_DOUBLE_EQ(relu[kCpu].predicted_transfer_us, 0);
  EXPECT_GT(relu[kGpu0].predicted_transfer_us, 4 + 3);
  EXPECT_LT(relu[kGpu0].predicted_transfer_us, 4 + 3 + 0.1);
}

// A weight copied to a GPU in an earlier run is kept for the session, so
// the next runs predict no transfer for it; the fed input still crosses.
TEST_F(PlacementCosts, Transfer_OfAWeightKeptFromAnEarlierRun_IsNotCharged) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {16, 16}).init_float("w", {16, 16}, std::vector<float>(256, 0.5f)).output("y", kF, {16, 16});
  g.node("Mul", {"x", "w"}, {"y"});
  ASSERT_NO_FATAL_FAILURE(open(m, profile_));
  ASSERT_NO_FATAL_FAILURE(run_on(kGpu0, {{"x", square()}}));  // x and w copied to cuda:0
  ASSERT_NO_FATAL_FAILURE(run_on(kGpu0, {{"x", square()}}));
  auto mul = policy_->last("Mul_1");
  ASSERT_EQ(mul.size(), 3u);
  // x alone: 4 us to issue, 3 us of latency, 1 KiB at 20 GB/s.
  EXPECT_GT(mul[kGpu0].predicted_transfer_us, 4 + 3);
  EXPECT_LT(mul[kGpu0].predicted_transfer_us, 4 + 3 + 0.1);
  // cuda:1 never got w: both cross (its issue time is not learned yet).
  EXPECT_GT(mul[kGpu1].predicted_transfer_us, 2 * 3);
}

// An input that several nodes read crosses once for all that run where it
// went: each reader still to finish is charged its share of the copy.
TEST_F(PlacementCosts, Transfer_OfAnInputSeveralNodesRead_IsSharedAmongThem) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {16, 16}).output("a", kF, {16, 16}).output("b", kF, {16, 16}).output("c", kF, {16, 16});
  g.node("Relu", {"x"}, {"a"});
  g.node("Tanh", {"x"}, {"b"});
  g.node("Sigmoid", {"x"}, {"c"});
  ASSERT_NO_FATAL_FAILURE(open(m, profile_));
  ASSERT_NO_FATAL_FAILURE(run_on(kCpu, {{"x", square()}}));  // in graph order, each done before the next
  auto relu = policy_->last("Relu_1"), tanh = policy_->last("Tanh_2"), sigmoid = policy_->last("Sigmoid_3");
  // The last reader pays the whole copy: 3 us of latency, 1 KiB at 20 GB/s
  // (no copy has been issued yet to learn its issue time from).
  const double copy = sigmoid[kGpu0].predicted_transfer_us;
  EXPECT_GT(copy, 3);
  EXPECT_LT(copy, 3 + 0.1);
  EXPECT_DOUBLE_EQ(tanh[kGpu0].predicted_transfer_us, copy / 2);
  EXPECT_DOUBLE_EQ(relu[kGpu0].predicted_transfer_us, copy / 3);
  EXPECT_DOUBLE_EQ(relu[kCpu].predicted_transfer_us, 0);
}

TEST_F(PlacementCosts, OutputTransfer_ChargesAnExcursionAwayFromTheInputs) {
  auto m = chain();
  ASSERT_NO_FATAL_FAILURE(open(m, flat_));
  ASSERT_NO_FATAL_FAILURE(run_on(kGpu0, {{"x", square()}}));
  ASSERT_NO_FATAL_FAILURE(run_on(kCpu, {{"x", square()}}));
  ASSERT_NO_FATAL_FAILURE(run_on(kCpu, {{"x", square()}}));
  // Tanh ran on the host, next to Relu's input: running Relu on a GPU
  // means copying r back, which costs what copying x over does (same size,
  // same link both ways; the way over as measured, to the nanosecond).
  auto relu = policy_->last("Relu_1");
  EXPECT_DOUBLE_EQ(relu[kCpu].output_transfer_us, 0);
  EXPECT_GT(relu[kGpu0].output_transfer_us, 0);
  EXPECT_NEAR(relu[kGpu0].output_transfer_us, relu[kGpu0].predicted_transfer_us, 1e-3);
  // cuda:1 would copy it too.
  EXPECT_DOUBLE_EQ(relu[kGpu1].output_transfer_us, relu[kGpu0].output_transfer_us);
  EXPECT_DOUBLE_EQ(relu[kCpu].finish_us(), relu[kCpu].backlog_us + relu[kCpu].issue_us + relu[kCpu].predicted_compute_us);
  EXPECT_DOUBLE_EQ(relu[kGpu0].finish_us(), relu[kGpu0].backlog_us + relu[kGpu0].predicted_transfer_us + relu[kGpu0].issue_us +
                                                relu[kGpu0].predicted_compute_us + relu[kGpu0].output_transfer_us);
}

TEST_F(PlacementCosts, OutputTransfer_DoesNotHoldNodesWhereTheirConsumersWere) {
  auto m = chain();
  ASSERT_NO_FATAL_FAILURE(open(m, flat_));
  ASSERT_NO_FATAL_FAILURE(run_on(kGpu0, {{"x", square()}}));
  ASSERT_NO_FATAL_FAILURE(run_on(kCpu, {{"x", square()}}));
  // In the second run Tanh had last run on cuda:0, away from Relu's input
  // on the host: it follows its input, so staying on the host costs Relu
  // nothing, and neither does cuda:1.
  auto relu = policy_->last("Relu_1");
  for (int d : {kCpu, kGpu0, kGpu1}) EXPECT_DOUBLE_EQ(relu[d].output_transfer_us, 0) << "device " << d;
  // The run's caller reads y on the host whatever ran before: Sigmoid on a
  // GPU is charged the copy back.
  auto sigmoid = policy_->last("Sigmoid_3");
  EXPECT_DOUBLE_EQ(sigmoid[kCpu].output_transfer_us, 0);
  EXPECT_GT(sigmoid[kGpu0].output_transfer_us, 3);
  EXPECT_GT(sigmoid[kGpu1].output_transfer_us, 3);
}

// One step of lookahead: a consumer that runs faster on another device
// either pays the copy of its input there or runs slower here, and the
// producer is charged the smaller, so that a cheap node does not keep a
// heavy consumer away from its device. Costs are the consumers' own issue
// and compute times, from their last predictions.
TEST_F(PlacementCosts, OutputTransfer_LooksAhead_ToWhereAConsumerRunsFastest) {
  auto m = chain();
  ASSERT_NO_FATAL_FAILURE(open(m, profile_));
  // A first run predicts nothing about the consumers yet.
  ASSERT_NO_FATAL_FAILURE(run_on(kCpu, {{"x", square()}}));
  for (int d : {kCpu, kGpu0, kGpu1})
    EXPECT_DOUBLE_EQ(policy_->last("Relu_1")[d].output_transfer_us, 0) << "device " << d;
  // Every device issues once, so that issue times are known everywhere.
  for (int d : {kGpu1, kGpu0, kCpu, kCpu}) ASSERT_NO_FATAL_FAILURE(run_on(d, {{"x", square()}}));
  auto relu = policy_->last("Relu_1");
  auto tanh = policy_->last("Tanh_2");
  // Sigmoid takes 22 us here (issue and compute), 5 us on a GPU: Tanh on
  // the host is charged the copy of t to a GPU, which costs what copying x
  // to cuda:0 costs Relu (same size, same link).
  EXPECT_DOUBLE_EQ(tanh[kCpu].output_transfer_us, relu[kGpu0].predicted_transfer_us);
  // Tanh takes 7 us here, 6 us on a GPU: the 1 us it would lose is less
  // than the copy, so Relu on the host is charged that.
  EXPECT_DOUBLE_EQ(relu[kCpu].output_transfer_us, 1);
  // On a GPU Relu leaves Tanh where it runs fastest, but Tanh last ran on
  // the host next to x: the excursion's copy back is charged.
  EXPECT_NEAR(relu[kGpu0].output_transfer_us, relu[kGpu0].predicted_transfer_us, 1e-3);

  // Once the chain has run on cuda:0, nothing is charged there, and the
  // host still pays for its consumers' loss.
  for (int i = 0; i < 2; ++i) ASSERT_NO_FATAL_FAILURE(run_on(kGpu0, {{"x", square()}}));
  relu = policy_->last("Relu_1");
  tanh = policy_->last("Tanh_2");
  EXPECT_DOUBLE_EQ(relu[kGpu0].output_transfer_us, 0);
  EXPECT_DOUBLE_EQ(tanh[kGpu0].output_transfer_us, 0);
  EXPECT_DOUBLE_EQ(relu[kCpu].output_transfer_us, 1);
  EXPECT_DOUBLE_EQ(tanh[kCpu].output_transfer_us, relu[kGpu0].predicted_transfer_us);
}

// Loop M times: v = Neg(v); scan output v (before negation) each step.
// Nothing in the body reads Neg's output: only the next iteration does.
onnx::ModelProto neg_loop() {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("M", onnx::TensorProto::INT64, {}).input("x", kF, {4});
  g.output("y", kF, {4}).output("trace", kF, {3, 4});
  auto* loop = g.node("Loop", {"M", "", "x"}, {"y", "trace"});
  auto body = GraphBuilder::subgraph(loop, "body", "body");
  body.input("i", onnx::TensorProto::INT64, {}).input("cond", onnx::TensorProto::BOOL, {}).input("v", kF, {4});
  body.node("Identity", {"cond"}, {"cond_out"});
  body.node("Neg", {"v"}, {"v_out"});
  body.node("Identity", {"v"}, {"scan"});
  body.output("cond_out", onnx::TensorProto::BOOL, {}).output("v_out", kF, {4}).output("scan", kF, {4});
  return m;
}

std::map<std::string, RuntimeValue> loop_inputs() {
  Tensor trips = *Tensor::host(DataType::kInt64, Dims{});
  *trips.data<int64_t>() = 3;
  return {{"M", RuntimeValue(trips)}, {"x", RuntimeValue(*Tensor::host(DataType::kFloat, Dims{4}))}};
}

TEST_F(PlacementCosts, OutputTransfer_InLoopBodies_ReadsOnTheHostCount) {
  auto m = neg_loop();
  ASSERT_NO_FATAL_FAILURE(open(m, flat_));
  ASSERT_NO_FATAL_FAILURE(run_on(kCpu, loop_inputs()));
  ASSERT_NO_FATAL_FAILURE(run_on(kCpu, loop_inputs()));
  // v_out becomes v in the next iteration, which Neg and Identity_3 read on
  // the host.
  auto neg = policy_->last("Neg_2");
  EXPECT_DOUBLE_EQ(neg[kCpu].output_transfer_us, 0);
  EXPECT_GT(neg[kGpu0].output_transfer_us, 3);
  // The Loop reads the condition and stacks the scan outputs on the host.
  for (const char* node : {"Identity_1", "Identity_3"}) {
    auto id = policy_->last(node);
    EXPECT_DOUBLE_EQ(id[kCpu].output_transfer_us, 0) << node;
    EXPECT_GT(id[kGpu1].output_transfer_us, 3) << node;
  }
}

TEST_F(PlacementCosts, OutputTransfer_LoopCarriedValue_GoesToTheNextIterationsReaders) {
  auto m = neg_loop();
  ASSERT_NO_FATAL_FAILURE(open(m, flat_));
  ASSERT_NO_FATAL_FAILURE(run_on(kGpu0, loop_inputs()));
  ASSERT_NO_FATAL_FAILURE(run_on(kGpu0, loop_inputs()));
  // From the second iteration on, v lives on cuda:0, and the nodes reading
  // it ran there: the carried value stays put on cuda:0 and must move if
  // Neg runs on the host. (Unlike the condition, the Loop does not read it
  // on the host.)
  auto neg = policy_->last("Neg_2");
  EXPECT_DOUBLE_EQ(neg[kGpu0].output_transfer_us, 0);
  EXPECT_GT(neg[kCpu].output_transfer_us, 3);
}

}  // namespace
}  // namespace sy

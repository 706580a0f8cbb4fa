#include "executor/execution_plan.h"

#include <gtest/gtest.h>

#include "devices/cpu/cpu_device.h"
#include "devices/kernel_registry.h"
#include "tests/executor/model_builder.h"

namespace sy {
namespace {

using testing::GraphBuilder;

// A kernel that is never run: the plan only creates and initialises it.
class NoopKernel final : public Kernel {
 public:
  Status compute(KernelContext&) const override { return Unimplemented("not run in these tests"); }
};

// An accelerator as the plan sees it: its id, memory space and kernel kind.
class FakeGpu final : public Device {
 public:
  FakeGpu() { info_.name = "cuda:0", info_.kernel_kind = DeviceKind::kCuda; }
  DeviceId id() const override { return {DeviceKind::kCuda, 0}; }
  MemorySpace memory_space() const override { return {DeviceKind::kCuda, 0}; }
  const DeviceInfo& info() const override { return info_; }
  StatusOr<Tensor> allocate(DataType, const Dims&) override { return Unimplemented("fake device"); }
  void enqueue(DeviceTask*, CompletionSink*) override {}
  StatusOr<Tensor> copy(const Tensor&, MemorySpace) override { return Unimplemented("fake device"); }
  uint64_t bytes_in_use() const override { return 0; }
  bool runs_inline() const override { return false; }
  int64_t now_ns() const override { return 0; }

 private:
  DeviceInfo info_;
};

KernelRegistry cpu_and_gpu(std::initializer_list<const char*> ops) {
  KernelRegistry r;
  for (const char* op : ops)
    for (DeviceKind kind : {DeviceKind::kCpu, DeviceKind::kCuda}) {
      KernelDef d;
      d.op = op;
      d.device = kind;
      d.factory = make_kernel<NoopKernel>;
      r.add(std::move(d));
    }
  return r;
}

std::vector<DeviceKind> candidate_kinds(const ExecutionPlan& plan, NodeId n) {
  std::vector<DeviceKind> kinds;
  for (const Candidate& c : plan.node(n).candidates) kinds.push_back(c.device.kind);
  return kinds;
}

TEST(ExecutionPlan, StringTensorAnywhere_KeepsTheNodeOffAccelerators) {
  // CastLike(float, like=string): the registry matches on the float input,
  // but the GPU cannot hold the string tensor, nor the string output.
  auto m = testing::new_model(17);
  GraphBuilder g(m.mutable_graph());
  g.input("x", onnx::TensorProto::FLOAT, {2}).input("like", onnx::TensorProto::STRING, {1});
  g.output("s", onnx::TensorProto::STRING, {2}).output("y", onnx::TensorProto::FLOAT, {2});
  g.node("CastLike", {"x", "like"}, {"s"});
  g.node("CastLike", {"x", "x"}, {"y"});
  auto model = testing::load_model(m);
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  CpuDevice cpu;
  FakeGpu gpu;
  KernelRegistry registry = cpu_and_gpu({"CastLike"});
  auto plan = ExecutionPlan::build(*(*model)->graph, {&gpu, &cpu}, registry);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_EQ(candidate_kinds(**plan, 0), std::vector<DeviceKind>{DeviceKind::kCpu});
  EXPECT_EQ(candidate_kinds(**plan, 1), (std::vector<DeviceKind>{DeviceKind::kCuda, DeviceKind::kCpu}));
}

TEST(ExecutionPlan, KernelHostInputs_ReachTheCandidates) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", onnx::TensorProto::FLOAT, {2}).input("shape", onnx::TensorProto::INT64, {1});
  g.output("y", onnx::TensorProto::FLOAT, {2});
  g.node("Reshape", {"x", "shape"}, {"y"});
  auto model = testing::load_model(m);
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  KernelRegistry registry;
  KernelDef d;
  d.op = "Reshape";
  d.host_inputs = 2;
  d.factory = make_kernel<NoopKernel>;
  registry.add(d);
  CpuDevice cpu;
  auto plan = ExecutionPlan::build(*(*model)->graph, {&cpu}, registry);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  ASSERT_EQ((*plan)->node(0).candidates.size(), 1u);
  EXPECT_EQ((*plan)->node(0).candidates[0].host_inputs, 2u);
}

TEST(ExecutionPlan, LoopAndScanBodies_KnowWhichOutputsAreCarriedToWhichInputs) {
  constexpr int kF = onnx::TensorProto::FLOAT;
  constexpr int kB = onnx::TensorProto::BOOL;
  constexpr int kI64 = onnx::TensorProto::INT64;
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("M", kI64, {}).input("x", kF, {2}).input("seq", kF, {3, 2}).input("c", kB, {});
  g.output("y", kF, {2}).output("ys", kF, {-1, 2}).output("s", kF, {2}).output("ss", kF, {3, 2}).output("z", kF, {2});
  auto* loop = g.node("Loop", {"M", "", "x"}, {"y", "ys"});
  auto lb = GraphBuilder::subgraph(loop, "body", "loop_body");
  lb.input("i", kI64, {}).input("cond", kB, {}).input("v", kF, {2});
  lb.node("Identity", {"cond"}, {"cond_out"});
  lb.node("Relu", {"v"}, {"v_out"});
  lb.node("Identity", {"v_out"}, {"scan_out"});
  lb.output("cond_out", kB, {}).output("v_out", kF, {2}).output("scan_out", kF, {2});
  auto* scan = g.node("Scan", {"x", "seq"}, {"s", "ss"});
  auto* scans = scan->add_attribute();
  scans->set_name("num_scan_inputs");
  scans->set_type(onnx::AttributeProto::INT);
  scans->set_i(1);
  auto sb = GraphBuilder::subgraph(scan, "body", "scan_body");
  sb.input("st", kF, {2}).input("e", kF, {2});
  sb.node("Add", {"st", "e"}, {"st_out"});
  sb.node("Identity", {"st_out"}, {"elem_out"});
  sb.output("st_out", kF, {2}).output("elem_out", kF, {2});
  auto* iff = g.node("If", {"c"}, {"z"});
  auto tb = GraphBuilder::subgraph(iff, "then_branch", "then");
  tb.node("Relu", {"x"}, {"t_out"});
  tb.output("t_out", kF, {2});
  auto eb = GraphBuilder::subgraph(iff, "else_branch", "else");
  eb.node("Neg", {"x"}, {"e_out"});
  eb.output("e_out", kF, {2});
  auto model = testing::load_model(m);
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  CpuDevice cpu;
  auto plan = ExecutionPlan::build(*(*model)->graph, {&cpu}, KernelRegistry::builtin());
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  auto id = [](const ExecutionPlan& p, const char* name) {
    const Graph& gr = p.graph();
    for (ValueId v = 0; v < static_cast<ValueId>(gr.num_values()); ++v)
      if (gr.value(v).name == name) return v;
    ADD_FAILURE() << "no value " << name << " in " << gr.name();
    return kNoValue;
  };
  EXPECT_TRUE((*plan)->outputs_read_on_host());  // the caller's
  ASSERT_EQ((*plan)->node(0).subplans.size(), 1u);
  const ExecutionPlan& body = *(*plan)->node(0).subplans[0];
  EXPECT_TRUE(body.outputs_read_on_host());  // the Loop reads the condition and stacks scan outputs there
  EXPECT_EQ(body.carried_to(id(body, "v_out")), id(body, "v"));
  EXPECT_EQ(body.carried_to(id(body, "cond_out")), kNoValue);
  EXPECT_EQ(body.carried_to(id(body, "scan_out")), kNoValue);
  const ExecutionPlan& sbody = *(*plan)->node(1).subplans[0];
  EXPECT_TRUE(sbody.outputs_read_on_host());
  EXPECT_EQ(sbody.carried_to(id(sbody, "st_out")), id(sbody, "st"));
  EXPECT_EQ(sbody.carried_to(id(sbody, "elem_out")), kNoValue);
  ASSERT_EQ((*plan)->node(2).subplans.size(), 2u);
  for (const ExecutionPlan* branch : (*plan)->node(2).subplans) {
    EXPECT_FALSE(branch->outputs_read_on_host()) << branch->graph().name();  // they become the If's outputs in place
    EXPECT_EQ(branch->carried_to(branch->graph().outputs()[0]), kNoValue);
  }
}

}  // namespace
}  // namespace sy

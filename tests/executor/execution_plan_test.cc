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

}  // namespace
}  // namespace sy

#include "executor/frame.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <new>
#include <stdexcept>
#include <type_traits>

#include "devices/kernel_registry.h"
#include "executor/session.h"
#include "tests/executor/model_builder.h"

namespace sy {
namespace {

using testing::GraphBuilder;
constexpr int kF = onnx::TensorProto::FLOAT;

// Sum that records which of its inputs the run loop calls constant, and
// copies its first input out.
std::atomic<uint32_t> g_constant_mask{0};
class ConstantProbe final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    uint32_t mask = 0;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) mask |= ctx.input_constant(i) ? 1u << i : 0u;
    g_constant_mask = mask;
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), x.dims()));
    std::memcpy(y->raw(), x.raw(), x.nbytes());
    return OkStatus();
  }
};

// A session of m on `devices` with the kernels of `registry`, each node
// placed on the next device in turn.
std::unique_ptr<Session> round_robin_session(onnx::ModelProto& m, const KernelRegistry& registry, const char* devices) {
  auto model = testing::load_model(m);
  EXPECT_TRUE(model.ok()) << model.status().to_string();
  if (!model.ok()) return nullptr;
  SessionOptions opt;
  opt.registry = &registry;
  opt.devices = devices;
  opt.policy = "round-robin";
  auto s = Session::create(std::shared_ptr<const Model>(std::move(model).value()), opt);
  EXPECT_TRUE(s.ok()) << s.status().to_string();
  return s.ok() ? std::move(s).value() : nullptr;
}

// Kernels may keep what they derive from a constant input (reordered
// weights), so only values that hold the same tensor every run may be
// called constant: an initializer, unless it is also a graph input (a
// default the caller may override), and a Constant node's output.
TEST(Frame, KernelContext_MarksInitializersAndConstantNodesConstant) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {2}).input("fed", kF, {2}).output("y", kF, {2});
  g.init_float("w", {2}, {1, 2}).init_float("fed", {2}, {3, 4});
  auto* k = g.node("Constant", {}, {"k"});
  auto* a = k->add_attribute();
  a->set_name("value_floats");
  a->set_type(onnx::AttributeProto::FLOATS);
  a->add_floats(5);
  a->add_floats(6);
  g.node("Relu", {"x"}, {"r"});
  g.node("Sum", {"x", "w", "fed", "k", "r"}, {"y"});
  KernelRegistry registry;
  registry.add(*KernelRegistry::builtin().find("", "Relu", 17, DeviceKind::kCpu));
  registry.add(*KernelRegistry::builtin().find("", "Constant", 17, DeviceKind::kCpu));
  KernelDef probe;
  probe.op = "Sum";
  probe.factory = make_kernel<ConstantProbe>;
  registry.add(probe);
  // One memory space, and two, where the kernel sees staged copies.
  for (const char* devices : {"cpu", "cpu:0,cpu:1"}) {
    SCOPED_TRACE(devices);
    auto s = round_robin_session(m, registry, devices);
    ASSERT_NE(s, nullptr);
    for (int run = 0; run < 2; ++run) {
      g_constant_mask = 0xffff;
      Tensor x = *Tensor::host(DataType::kFloat, Dims{2});
      x.data<float>()[0] = x.data<float>()[1] = 1;
      auto r = s->run({{"x", RuntimeValue(x)}});
      ASSERT_TRUE(r.ok()) << r.status().to_string();
      EXPECT_EQ(g_constant_mask.load(), 0b01010u) << "bits: x, w, fed, k, r";
    }
  }
}

// Throws what a std::vector throws when a kernel sizes it from shapes the
// host cannot meet.
template <typename E>
class ThrowsOnCompute final : public Kernel {
 public:
  Status compute(KernelContext&) const override {
    if constexpr (std::is_same_v<E, std::bad_alloc>)
      throw E();
    else
      throw E("cannot create std::vector larger than max_size()");
  }
};

// The net under kernels that size working memory from claimed shapes: the
// exception fails the node with ResourceExhausted, and does not leave the
// run. Each run on one device and on two, where the copies are in flight.
TEST(Frame, KernelWhoseMemoryCannotBeHad_FailsTheRunWithResourceExhausted) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", kF, {2}).output("y", kF, {2});
  g.node("Relu", {"x"}, {"r"});
  g.node("Sigmoid", {"r"}, {"y"});
  for (KernelFactory factory :
       {&make_kernel<ThrowsOnCompute<std::bad_alloc>>, &make_kernel<ThrowsOnCompute<std::length_error>>}) {
    KernelRegistry registry;
    registry.add(*KernelRegistry::builtin().find("", "Relu", 17, DeviceKind::kCpu));
    KernelDef thrower;
    thrower.op = "Sigmoid";
    thrower.factory = factory;
    registry.add(thrower);
    for (const char* devices : {"cpu", "cpu:0,cpu:1"}) {
      SCOPED_TRACE(devices);
      auto s = round_robin_session(m, registry, devices);
      ASSERT_NE(s, nullptr);
      auto r = s->run({{"x", RuntimeValue(*Tensor::host(DataType::kFloat, Dims{2}))}});
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted) << r.status().to_string();
    }
  }
}

}  // namespace
}  // namespace sy

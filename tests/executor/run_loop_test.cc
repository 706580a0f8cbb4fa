// RunLoop behaviour that needs an accelerator: a fake one that shares host
// memory and runs its kernels inline, so no GPU is needed.
#include "executor/run_loop.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <string>
#include <vector>

#include "devices/cpu/cpu_device.h"
#include "devices/host_allocator.h"
#include "executor/session.h"
#include "tests/executor/model_builder.h"

namespace sy {
namespace {

using testing::GraphBuilder;

// An accelerator whose memory is the host's: kernels of kind kCuda run
// inline on the calling thread.
class FakeAccelerator final : public Device {
 public:
  FakeAccelerator() { info_.name = "cuda:0", info_.kernel_kind = DeviceKind::kCuda; }
  DeviceId id() const override { return {DeviceKind::kCuda, 0}; }
  MemorySpace memory_space() const override { return kHostSpace; }
  const DeviceInfo& info() const override { return info_; }
  StatusOr<Tensor> allocate(DataType dtype, const Dims& dims) override { return Tensor::host(dtype, dims); }
  void enqueue(DeviceTask* task, CompletionSink* sink) override {
    task->start_ns = now_ns();
    task->status = task->execute(*this);
    task->end_ns = now_ns();
    sink->on_complete(task);
  }
  StatusOr<Tensor> copy(const Tensor& src, MemorySpace) override { return src.clone_to_host(); }
  uint64_t bytes_in_use() const override { return 0; }
  bool runs_inline() const override { return true; }
  int64_t now_ns() const override { return 0; }

 private:
  DeviceInfo info_;
};

// Relu that, like a real GPU kernel past its rank limit, declines inputs
// of rank above 2 only when it sees them.
class RankLimitedRelu final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() > 2) return Unimplemented("rank ", x.rank(), " > 2");
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), x.dims()));
    for (int64_t i = 0; i < x.numel(); ++i) y->data<float>()[i] = std::max(0.0f, x.data<float>()[i]);
    return OkStatus();
  }
};

// The built-in CPU Relu plus `accelerated` as the only kCuda kernel (the
// built-in registry of a CUDA build has real ones).
KernelRegistry relu_registry(KernelFactory accelerated) {
  KernelRegistry r;
  r.add(*KernelRegistry::builtin().find("", "Relu", 17, DeviceKind::kCpu));
  KernelDef relu;
  relu.op = "Relu";
  relu.device = DeviceKind::kCuda;
  relu.factory = accelerated;
  r.add(relu);
  return r;
}

// A session over cpu:0 and the fake accelerator, under the gpu policy.
StatusOr<std::unique_ptr<Session>> gpu_session(std::unique_ptr<Model> model, const KernelRegistry& registry) {
  SessionOptions opt;
  opt.policy = "gpu";
  opt.registry = &registry;
  opt.device_factory = [] {
    std::vector<std::unique_ptr<Device>> d;
    d.push_back(std::make_unique<CpuDevice>());
    d.push_back(std::make_unique<FakeAccelerator>());
    return StatusOr<std::vector<std::unique_ptr<Device>>>(std::move(d));
  };
  return Session::create(std::shared_ptr<const Model>(std::move(model)), opt);
}

Tensor ramp(Dims d) {
  Tensor t = *Tensor::host(DataType::kFloat, d);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = static_cast<float>(i % 3) - 1.0f;
  return t;
}

TEST(RunLoop, AcceleratorKernelDecliningShapes_FallsBackToCpu) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("small", onnx::TensorProto::FLOAT, {2, 3}).input("big", onnx::TensorProto::FLOAT, {2, 3, 4});
  g.output("a", onnx::TensorProto::FLOAT, {2, 3}).output("b", onnx::TensorProto::FLOAT, {2, 3, 4});
  g.node("Relu", {"small"}, {"a"});
  g.node("Relu", {"big"}, {"b"});
  auto model = testing::load_model(m);
  ASSERT_TRUE(model.ok()) << model.status().to_string();

  KernelRegistry registry = relu_registry(make_kernel<RankLimitedRelu>);
  auto s = gpu_session(std::move(model).value(), registry);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  auto r = (*s)->run({{"small", ramp({2, 3})}, {"big", ramp({2, 3, 4})}});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->stats.cpu_fallbacks, 1);
  EXPECT_EQ(r->stats.nodes_per_device, (std::vector<int64_t>{1, 1}));  // b on the CPU, a on the accelerator
  for (const RuntimeValue& out : r->outputs) {
    const Tensor& t = out.tensor();
    for (int64_t i = 0; i < t.numel(); ++i) EXPECT_EQ(t.data<float>()[i], i % 3 == 2 ? 1.0f : 0.0f) << i;
  }
}

// Relu that declines more than 10 elements, counting its refusals.
std::atomic<int> g_declines{0};
class SizeLimitedRelu final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.numel() > 10) {
      ++g_declines;
      return Unimplemented(x.numel(), " elements > 10");
    }
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), x.dims()));
    for (int64_t i = 0; i < x.numel(); ++i) y->data<float>()[i] = std::max(0.0f, x.data<float>()[i]);
    return OkStatus();
  }
};

TEST(RunLoop, DeclinedShapes_GoStraightToCpu_OnLaterRuns) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", onnx::TensorProto::FLOAT, {3, 4}).output("y", onnx::TensorProto::FLOAT, {3, 4});
  g.node("Relu", {"x"}, {"y"});
  for (onnx::ValueInfoProto* v : {m.mutable_graph()->mutable_input(0), m.mutable_graph()->mutable_output(0)})
    v->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("n");
  auto model = testing::load_model(m);
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  KernelRegistry registry = relu_registry(make_kernel<SizeLimitedRelu>);
  auto s = gpu_session(std::move(model).value(), registry);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  g_declines = 0;
  for (int run = 0; run < 3; ++run) {
    SCOPED_TRACE(run);
    auto r = (*s)->run({{"x", ramp({3, 4})}});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_EQ(r->stats.cpu_fallbacks, 1);
    EXPECT_EQ(r->stats.nodes_per_device, (std::vector<int64_t>{1, 0}));
    EXPECT_EQ(r->outputs[0].tensor().data<float>()[2], 1.0f);
  }
  EXPECT_EQ(g_declines, 1) << "the same shapes were offered to the accelerator again";
  // Other shapes are the accelerator's again.
  auto r = (*s)->run({{"x", ramp({2, 4})}});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->stats.cpu_fallbacks, 0);
  EXPECT_EQ(r->stats.nodes_per_device, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(g_declines, 1);
}

TEST(RunLoop, OtherAcceleratorFailures_StillFailTheRun) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", onnx::TensorProto::FLOAT, {2}).output("y", onnx::TensorProto::FLOAT, {2});
  g.node("Relu", {"x"}, {"y"});
  auto model = testing::load_model(m);
  ASSERT_TRUE(model.ok());
  class Failing final : public Kernel {
   public:
    Status compute(KernelContext&) const override { return RuntimeError("device fault"); }
  };
  KernelRegistry registry = relu_registry(make_kernel<Failing>);
  auto s = gpu_session(std::move(model).value(), registry);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  auto r = (*s)->run({{"x", ramp({2})}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("device fault"), std::string::npos) << r.status().message();
}

// NonZero of a 1-D float as an asynchronous device runs it: the first
// launch leaves the count in a carried host tensor, the second sizes and
// fills the output from it. Counts its launches.
std::atomic<int> g_launches{0};
class TwoStepNonZero final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    ++g_launches;
    const Tensor& x = ctx.input(0);
    if (!ctx.resumed()) {
      ASSIGN_OR_RETURN(Tensor count, Tensor::host(DataType::kInt64, Dims{1}));
      count.data<int64_t>()[0] =
          std::count_if(x.data<float>(), x.data<float>() + x.numel(), [](float v) { return v != 0; });
      return ctx.resume_after({std::move(count)});
    }
    const int64_t n = ctx.carried().at(0).data<int64_t>()[0];
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, DataType::kInt64, Dims{1, n}));
    int64_t at = 0;
    for (int64_t i = 0; i < x.numel(); ++i)
      if (x.data<float>()[i] != 0) y->data<int64_t>()[at++] = i;
    return OkStatus();
  }
};

KernelRegistry nonzero_registry() {
  KernelRegistry r;
  for (const char* op : {"NonZero", "Identity"}) r.add(*KernelRegistry::builtin().find("", op, 17, DeviceKind::kCpu));
  KernelDef nz;
  nz.op = "NonZero";
  nz.since_version = 9;
  nz.device = DeviceKind::kCuda;
  nz.data_dependent_shape = true;
  nz.factory = make_kernel<TwoStepNonZero>;
  r.add(nz);
  return r;
}

// ramp({n}) is zero where i % 3 == 1.
void expect_nonzero_of_ramp(const Tensor& t, int64_t n) {
  std::vector<int64_t> want;
  for (int64_t i = 0; i < n; ++i)
    if (i % 3 != 1) want.push_back(i);
  ASSERT_EQ(t.dims(), (Dims{1, static_cast<int64_t>(want.size())}));
  EXPECT_EQ(std::vector<int64_t>(t.data<int64_t>(), t.data<int64_t>() + t.numel()), want);
}

TEST(RunLoop, DataDependentKernel_IsResumedOnceItsSizesAreKnown) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", onnx::TensorProto::FLOAT, {7}).output("y", onnx::TensorProto::INT64, {1, -1});
  g.node("NonZero", {"x"}, {"y"});
  auto model = testing::load_model(m);
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  KernelRegistry registry = nonzero_registry();
  auto s = gpu_session(std::move(model).value(), registry);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  for (int run = 0; run < 2; ++run) {
    g_launches = 0;
    auto r = (*s)->run({{"x", ramp({7})}});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_EQ(g_launches, 2);
    EXPECT_EQ(r->stats.nodes_per_device, (std::vector<int64_t>{0, 1}));  // one node, launched twice
    expect_nonzero_of_ramp(r->outputs[0].tensor(), 7);
  }
}

// In a Loop body the node's task is reused every iteration: each one
// starts from the first launch again.
TEST(RunLoop, DataDependentKernel_ResumesInEveryLoopIteration) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("M", onnx::TensorProto::INT64, {}).input("x", onnx::TensorProto::FLOAT, {5});
  g.input("z", onnx::TensorProto::INT64, {1, -1}).output("z_final", onnx::TensorProto::INT64, {1, -1});
  auto* loop = g.node("Loop", {"M", "", "z"}, {"z_final"});
  auto body = GraphBuilder::subgraph(loop, "body", "body");
  body.input("i", onnx::TensorProto::INT64, {}).input("cond", onnx::TensorProto::BOOL, {});
  body.input("z_in", onnx::TensorProto::INT64, {1, -1});
  body.node("Identity", {"cond"}, {"cond_out"});
  body.node("NonZero", {"x"}, {"z_out"});
  body.output("cond_out", onnx::TensorProto::BOOL, {}).output("z_out", onnx::TensorProto::INT64, {1, -1});
  auto model = testing::load_model(m);
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  KernelRegistry registry = nonzero_registry();
  auto s = gpu_session(std::move(model).value(), registry);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  Tensor trips = *Tensor::host(DataType::kInt64, Dims{});
  trips.data<int64_t>()[0] = 4;
  g_launches = 0;
  auto r = (*s)->run({{"M", trips}, {"x", ramp({5})}, {"z", *Tensor::host(DataType::kInt64, Dims{1, 0})}});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(g_launches, 8);
  expect_nonzero_of_ramp(r->outputs[0].tensor(), 5);
}

// Relu that writes over its input where it is donated, noting per node
// whether it was, and the order the nodes ran in.
std::map<std::string, bool> g_donated;
std::vector<std::string> g_order;
class DonationProbeRelu final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    g_donated[ctx.node().name] = ctx.input_donated(0);
    g_order.push_back(ctx.node().name);
    const float* in = x.data<float>();
    ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_over(0, 0, x.dtype(), x.dims()));
    EXPECT_EQ(y->raw() == x.raw(), ctx.input_donated(0)) << ctx.node().name;
    for (int64_t i = 0; i < x.numel(); ++i) y->data<float>()[i] = std::max(0.0f, in[i]) + 1.0f;
    return OkStatus();
  }
};

// A value is given up to the node that reads it last, and only where no
// one else can see its buffer: not a graph input or output, not a value a
// later node or another value (an Identity's view) still holds. Of a value
// and its view, the reader that runs last gets the buffer.
TEST(RunLoop, DonatesAnInputOnlyToItsLastReader_WhenNothingElseHoldsItsBuffer) {
  auto m = testing::new_model();
  GraphBuilder g(m.mutable_graph());
  g.input("x", onnx::TensorProto::FLOAT, {2, 3});
  for (const char* out : {"c", "e", "g", "h"}) g.output(out, onnx::TensorProto::FLOAT, {2, 3});
  auto relu = [&](const char* name, const char* in, const char* out) { g.node("Relu", {in}, {out})->set_name(name); };
  relu("graph_input", "x", "a");
  relu("only_reader", "a", "b");
  relu("first_of_two", "b", "c");  // c: a graph output
  relu("second_of_two", "b", "d");
  relu("reads_an_output", "c", "e");
  g.node("Identity", {"d"}, {"f"})->set_name("view");
  relu("reads_d", "d", "g");
  relu("reads_f", "f", "h");
  auto model = testing::load_model(m);
  ASSERT_TRUE(model.ok()) << model.status().to_string();

  KernelRegistry registry;
  registry.add(*KernelRegistry::builtin().find("", "Identity", 17, DeviceKind::kCpu));
  KernelDef probe;
  probe.op = "Relu";
  probe.factory = make_kernel<DonationProbeRelu>;
  registry.add(probe);
  SessionOptions opt;
  opt.policy = "single";
  opt.registry = &registry;
  auto s = Session::create(std::shared_ptr<const Model>(std::move(model).value()), opt);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  const Tensor x = ramp({2, 3});
  for (int run = 0; run < 2; ++run) {
    g_donated.clear();
    g_order.clear();
    auto r = (*s)->run({{"x", x}});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    const bool f_last =
        std::find(g_order.begin(), g_order.end(), "reads_f") > std::find(g_order.begin(), g_order.end(), "reads_d");
    EXPECT_EQ(g_donated, (std::map<std::string, bool>{{"graph_input", false},
                                                      {"only_reader", true},
                                                      {"first_of_two", false},
                                                      {"second_of_two", true},
                                                      {"reads_an_output", false},
                                                      {"reads_d", !f_last},
                                                      {"reads_f", f_last}}));
    // x: -1, 0, 1, ...; each Relu here adds 1. a = 1, 1, 2; b = 2, 2, 3.
    const std::vector<std::vector<float>> want = {{3, 3, 4}, {4, 4, 5}, {4, 4, 5}, {4, 4, 5}};
    for (size_t o = 0; o < 4; ++o)
      for (int64_t i = 0; i < 6; ++i)
        EXPECT_EQ(r->outputs[o].tensor().data<float>()[i], want[o][i % 3]) << o << " " << i;
    for (int64_t i = 0; i < 6; ++i)
      EXPECT_EQ(x.data<float>()[i], static_cast<float>(i % 3) - 1.0f);  // the feed untouched
  }
}

}  // namespace
}  // namespace sy

#include "devices/sim/sim_machine.h"

#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "devices/sim/sim_device.h"

namespace sy {
namespace {

// cpu:0 "host": 1 queue, 1 us launch, no hand-off delay; Add 3 us, anything
//   else 10 us. Beside the GPUs it has its own thread, as a real one does.
// cuda:0 "small": 1 queue, no launch cost, ~1000 bytes of memory, 100 us + 1 us per work.
// cuda:1 "wide": 2 queues, no launch cost; 100 us, MatMul 50 us + 1 us per work,
//   com.example::Fused 7 us.
// Links: 5 us + 1 GB/s everywhere, except host -> wide: 2 us + 4 GB/s.
constexpr const char* kProfile = R"({
  "format": "switchyard-sim-profile",
  "version": 1,
  "name": "machine test",
  "devices": [
    {"class": "host", "kind": "cpu", "memory_gb": 1, "launch_us": 1, "handoff_us": 0},
    {"class": "small", "kind": "cuda", "memory_gb": 1e-6},
    {"class": "wide", "kind": "cuda", "memory_gb": 1, "queues": 2}
  ],
  "costs": [
    {"class": "host", "op": "*", "base_us": 10, "us_per_work": 0},
    {"class": "host", "op": "Add", "base_us": 3, "us_per_work": 0},
    {"class": "small", "op": "*", "base_us": 100, "us_per_work": 1},
    {"class": "wide", "op": "*", "base_us": 100, "us_per_work": 0},
    {"class": "wide", "op": "MatMul", "base_us": 50, "us_per_work": 1},
    {"class": "wide", "op": "com.example::Fused", "base_us": 7, "us_per_work": 0}
  ],
  "links": [
    {"from": "*", "to": "*", "latency_us": 5, "bandwidth_gbps": 1},
    {"from": "host", "to": "wide", "latency_us": 2, "bandwidth_gbps": 4}
  ]
})";

constexpr int kHost = 0, kSmall = 1, kWide = 2;
constexpr MemorySpace kSmallSpace{DeviceKind::kCuda, 0};
constexpr MemorySpace kWideSpace{DeviceKind::kCuda, 1};

SimProfile profile_from(const std::string& text) {
  auto p = parse_sim_profile(text, "machine_test.json");
  EXPECT_TRUE(p.ok()) << p.status().to_string();
  return std::move(p).value();
}

// A task that does nothing but count (or run a given body).
class FakeTask : public DeviceTask {
 public:
  Status execute(Device& device) override {
    ++runs;
    return body ? body(device) : OkStatus();
  }
  std::function<Status(Device&)> body;
  int runs = 0;
};

// Records completions in order, with the virtual time each arrived at.
class Recorder : public CompletionSink {
 public:
  explicit Recorder(const SimMachine& m) : m_(m) {}
  void on_complete(DeviceTask* task) override {
    order.push_back(task);
    at_ns.push_back(m_.now_ns());
  }
  std::vector<DeviceTask*> order;
  std::vector<int64_t> at_ns;

 private:
  const SimMachine& m_;
};

class SimMachineTest : public ::testing::Test {
 protected:
  SimMachineTest() : machine_(profile_from(kProfile), /*seed=*/1), devices_(machine_.take_devices()), sink_(machine_) {}

  // A kernel of `op` (optionally in `domain`) at `work`, issued on device d:
  // handed to the device's own thread unless `may_run_inline`.
  FakeTask* kernel(int d, const std::string& op, double work = 0, const std::string& domain = "",
                   bool may_run_inline = false) {
    Node& n = nodes_.emplace_back();
    n.op_type = op;
    n.domain = domain;
    n.name = op + std::to_string(nodes_.size());
    FakeTask& t = tasks_.emplace_back();
    t.op = &n;
    t.work = work;
    t.may_run_inline = may_run_inline;
    devices_[static_cast<size_t>(d)]->enqueue(&t, &sink_);
    return &t;
  }
  FakeTask* copy(int d, MemorySpace from, MemorySpace to, uint64_t bytes) {
    FakeTask& t = tasks_.emplace_back();
    t.queue = DeviceTask::Queue::kCopy;
    t.from_space = from;
    t.to_space = to;
    t.bytes = bytes;
    devices_[static_cast<size_t>(d)]->enqueue(&t, &sink_);
    return &t;
  }
  // Delivers with wait=true and returns what arrived in this call.
  std::vector<DeviceTask*> deliver_batch() {
    const size_t before = sink_.order.size();
    const bool any = machine_.deliver(/*wait=*/true);
    std::vector<DeviceTask*> out(sink_.order.begin() + static_cast<ptrdiff_t>(before), sink_.order.end());
    EXPECT_EQ(any, !out.empty());
    return out;
  }

  SimMachine machine_;
  std::vector<std::unique_ptr<Device>> devices_;
  Recorder sink_;
  std::deque<Node> nodes_;
  std::deque<FakeTask> tasks_;
};

using Batch = std::vector<DeviceTask*>;

// --- devices -----------------------------------------------------------------

TEST_F(SimMachineTest, Devices_HaveProfileIdsAndMemorySpaces) {
  ASSERT_EQ(machine_.num_devices(), 3);
  ASSERT_EQ(devices_.size(), 3u);
  EXPECT_EQ(devices_[kHost]->id(), (DeviceId{DeviceKind::kCpu, 0}));
  EXPECT_EQ(devices_[kSmall]->id(), (DeviceId{DeviceKind::kCuda, 0}));
  EXPECT_EQ(devices_[kWide]->id(), (DeviceId{DeviceKind::kCuda, 1}));
  // cpu:0 is the host: inputs and outputs live in its space.
  EXPECT_EQ(devices_[kHost]->memory_space(), kHostSpace);
  EXPECT_EQ(devices_[kSmall]->memory_space(), kSmallSpace);
  EXPECT_EQ(devices_[kWide]->memory_space(), kWideSpace);
  EXPECT_EQ(machine_.device_of_space(kHostSpace), kHost);
  EXPECT_EQ(machine_.device_of_space(kSmallSpace), kSmall);
  EXPECT_EQ(machine_.device_of_space(kWideSpace), kWide);
  EXPECT_EQ(machine_.device_of_space(MemorySpace{DeviceKind::kCpu, 1}), -1);
  EXPECT_EQ(machine_.device_of_space(MemorySpace{DeviceKind::kCuda, 2}), -1);
}

TEST_F(SimMachineTest, Devices_DescribeThemselvesAndRunCpuKernels) {
  for (const auto& d : devices_) {
    EXPECT_EQ(d->info().name, d->id().to_string());
    EXPECT_EQ(d->info().kernel_kind, DeviceKind::kCpu) << d->info().name;
    // The GPUs, and the host beside them, have threads of their own.
    EXPECT_FALSE(d->runs_inline()) << d->info().name;
    EXPECT_EQ(d->bytes_in_use(), 0u);
  }
  EXPECT_NE(devices_[kSmall]->info().description.find("small"), std::string::npos)
      << devices_[kSmall]->info().description;
  EXPECT_EQ(devices_[kHost]->info().memory_bytes, uint64_t{1'000'000'000});
  EXPECT_EQ(machine_.profile().name, "machine test");
  EXPECT_EQ(machine_.queues(kWide), 2);
  EXPECT_DOUBLE_EQ(machine_.launch_us(kHost), 1.0);
}

TEST_F(SimMachineTest, Clock_StartsAtZeroAndDevicesShareIt) {
  EXPECT_EQ(machine_.now_ns(), 0);
  kernel(kHost, "Add");
  EXPECT_EQ(machine_.now_ns(), 1000);
  for (const auto& d : devices_) EXPECT_EQ(d->now_ns(), 1000) << d->info().name;
}

// --- kernels -----------------------------------------------------------------

TEST_F(SimMachineTest, Kernel_RunsAtSubmitAndIsTimedFromTheProfile) {
  FakeTask* t = kernel(kHost, "Add");
  EXPECT_EQ(t->runs, 1);  // computed on the host right away
  EXPECT_TRUE(t->status.ok());
  EXPECT_EQ(t->start_ns, 1000);  // after its 1 us launch
  EXPECT_EQ(t->end_ns, 4000);    // Add: 3 us
  EXPECT_TRUE(sink_.order.empty());  // completion waits for virtual time
  FakeTask* r = kernel(kHost, "Relu");  // "*": 10 us
  EXPECT_EQ(r->end_ns - r->start_ns, 10'000);
}

TEST_F(SimMachineTest, Kernel_TimeFollowsWorkAndOpLookup) {
  EXPECT_EQ(kernel(kSmall, "Relu", 50)->end_ns, 150'000);  // 100 + 1 * 50 us
  FakeTask* mm = kernel(kWide, "MatMul", 30);                 // 50 + 30 us
  EXPECT_EQ(mm->end_ns - mm->start_ns, 80'000);
  FakeTask* onnx = kernel(kWide, "MatMul", 30, "ai.onnx");  // the default domain by name
  EXPECT_EQ(onnx->end_ns - onnx->start_ns, 80'000);
  FakeTask* fused = kernel(kWide, "Fused", 1e6, "com.example");  // "domain::op"
  EXPECT_EQ(fused->end_ns - fused->start_ns, 7'000);
  FakeTask* other = kernel(kWide, "Fused", 0, "com.other");  // unlisted: "*"
  EXPECT_EQ(other->end_ns - other->start_ns, 100'000);

  FakeTask& anon = tasks_.emplace_back();  // no node: priced as "*"
  devices_[kHost]->enqueue(&anon, &sink_);
  EXPECT_EQ(anon.end_ns - anon.start_ns, 10'000);

  EXPECT_DOUBLE_EQ(machine_.kernel_us(kWide, "MatMul", 30), 80.0);
  EXPECT_DOUBLE_EQ(machine_.kernel_us(kHost, "Conv", 1e9), 10.0);
}

TEST_F(SimMachineTest, Kernel_FailedExecuteIsStillCompletedWithItsStatus) {
  FakeTask& t = tasks_.emplace_back();
  t.body = [](Device&) { return RuntimeError("kernel broke"); };
  devices_[kHost]->enqueue(&t, &sink_);
  EXPECT_FALSE(t.status.ok());
  EXPECT_EQ(t.status.code(), StatusCode::kRuntime);
  EXPECT_EQ(deliver_batch(), Batch({&t}));
}

TEST_F(SimMachineTest, Launch_AdvancesHostTimeSerially) {
  FakeTask* a = kernel(kHost, "Add");
  EXPECT_EQ(machine_.now_ns(), 1000);
  FakeTask* b = kernel(kHost, "Add");
  EXPECT_EQ(machine_.now_ns(), 2000);
  FakeTask* c = kernel(kWide, "Relu");  // wide has no launch cost
  EXPECT_EQ(machine_.now_ns(), 2000);
  EXPECT_EQ(c->start_ns, 2000);  // issued after the host's two launches
  EXPECT_EQ(a->start_ns, 1000);
  EXPECT_EQ(b->start_ns, 4000);  // queue busy with a until 4 us
}

// A host kernel the run loop lets run inline, on an idle queue, runs on the
// loop's thread: the host clock waits for it. With the queue busy, it goes
// to the device's thread as CpuDevice::enqueue() sends it.
TEST_F(SimMachineTest, HostKernel_InlineOnAnIdleQueue_HoldsTheHostClock) {
  FakeTask* a = kernel(kHost, "Add", 0, "", /*may_run_inline=*/true);
  EXPECT_EQ(a->start_ns, 1000);  // after its launch
  EXPECT_EQ(a->end_ns, 4000);
  EXPECT_EQ(machine_.now_ns(), 4000);
  EXPECT_EQ(deliver_batch(), Batch({a}));
  EXPECT_EQ(sink_.at_ns.back(), 4000);
  FakeTask* b = kernel(kHost, "Relu");  // handed off: 5..15 us, the clock goes on
  EXPECT_EQ(machine_.now_ns(), 5000);
  FakeTask* c = kernel(kHost, "Add", 0, "", /*may_run_inline=*/true);  // queued behind b
  EXPECT_EQ(machine_.now_ns(), 6000);
  EXPECT_EQ(b->start_ns, 5000);
  EXPECT_EQ(c->start_ns, 15'000);
  EXPECT_EQ(c->end_ns, 18'000);
}

// Issues `t`, a kernel of `n` that the loop hands to the device's thread.
void hand_off(Device& device, const Node& n, FakeTask& t, CompletionSink& sink) {
  t.op = &n;
  t.may_run_inline = false;
  device.enqueue(&t, &sink);
}

// A kernel handed to the host's thread starts after its wake-up.
TEST(SimMachine, HostKernel_HandedOff_StartsAfterTheHandoff) {
  std::string text = kProfile;
  const std::string from = R"("handoff_us": 0)";
  text.replace(text.find(from), from.size(), R"("handoff_us": 6)");
  SimMachine m(profile_from(text), 1);
  auto devices = m.take_devices();
  Recorder sink(m);
  Node n;
  n.op_type = "Add";
  FakeTask t, g;
  hand_off(*devices[kHost], n, t, sink);
  EXPECT_EQ(t.start_ns, 7000);  // 1 us launch, 6 us wake-up
  EXPECT_EQ(t.end_ns, 10'000);
  EXPECT_EQ(m.now_ns(), 1000);
  hand_off(*devices[kWide], n, g, sink);  // a GPU's kernel pays no hand-off
  EXPECT_EQ(g.start_ns, 1000);
}

// A lone host device, or one beside GPUs told to run inline, has no thread
// of its own: every kernel holds the host clock, whatever the loop allows.
TEST(SimMachine, LoneHostOrInlineBesideGpus_RunsEveryKernelOnTheLoopsThread) {
  constexpr const char* kLone = R"({
    "format": "switchyard-sim-profile", "version": 1,
    "devices": [{"class": "host", "kind": "cpu", "memory_gb": 1, "launch_us": 1}],
    "costs": [{"class": "host", "op": "*", "base_us": 10, "us_per_work": 0}]
  })";
  struct Case {
    const char* profile;
    bool inline_beside_gpu;
  };
  for (const Case c : {Case{kLone, false}, Case{kProfile, true}}) {
    SimMachine m(profile_from(c.profile), 1, c.inline_beside_gpu);
    auto devices = m.take_devices();
    EXPECT_TRUE(devices[0]->runs_inline());
    for (size_t d = 1; d < devices.size(); ++d) EXPECT_FALSE(devices[d]->runs_inline()) << d;
    Recorder sink(m);
    Node n;
    n.op_type = "Relu";
    FakeTask t;
    hand_off(*devices[0], n, t, sink);
    EXPECT_EQ(t.start_ns, 1000);
    EXPECT_EQ(m.now_ns(), 11'000);
  }
}

TEST_F(SimMachineTest, OneQueue_KernelsSerialize) {
  FakeTask* a = kernel(kSmall, "Relu");
  FakeTask* b = kernel(kSmall, "Relu");
  FakeTask* c = kernel(kSmall, "Relu", 10);
  EXPECT_EQ(a->start_ns, 0);
  EXPECT_EQ(a->end_ns, 100'000);
  EXPECT_EQ(b->start_ns, 100'000);
  EXPECT_EQ(b->end_ns, 200'000);
  EXPECT_EQ(c->start_ns, 200'000);
  EXPECT_EQ(c->end_ns, 310'000);
}

TEST_F(SimMachineTest, TwoQueues_KernelsOverlap) {
  FakeTask* a = kernel(kWide, "Relu");
  FakeTask* b = kernel(kWide, "Relu");
  EXPECT_EQ(a->start_ns, 0);
  EXPECT_EQ(b->start_ns, 0);
  EXPECT_EQ(a->end_ns, 100'000);
  EXPECT_EQ(b->end_ns, 100'000);
  // A third waits for the first queue to come free.
  FakeTask* c = kernel(kWide, "Relu");
  EXPECT_EQ(c->start_ns, 100'000);
  EXPECT_EQ(c->end_ns, 200'000);
  // It takes the queue that is free first, not the next in turn.
  FakeTask* d = kernel(kWide, "MatMul", 10);  // 60 us
  EXPECT_EQ(d->start_ns, 100'000);
  FakeTask* e = kernel(kWide, "Relu");
  EXPECT_EQ(e->start_ns, 160'000);
}

TEST_F(SimMachineTest, Devices_RunConcurrently) {
  FakeTask* a = kernel(kSmall, "Relu");
  FakeTask* b = kernel(kWide, "Relu");
  EXPECT_EQ(a->start_ns, 0);
  EXPECT_EQ(b->start_ns, 0);
}

// --- delivery ----------------------------------------------------------------

TEST_F(SimMachineTest, DeliverWithoutWait_DeliversNothingBeforeItsTime) {
  FakeTask* a = kernel(kHost, "Add");  // ends at 4 us, now is 1 us
  EXPECT_FALSE(machine_.deliver(/*wait=*/false));
  EXPECT_TRUE(sink_.order.empty());
  EXPECT_EQ(machine_.now_ns(), 1000);
  EXPECT_TRUE(machine_.deliver(/*wait=*/true));
  EXPECT_EQ(sink_.order, Batch({a}));
  EXPECT_EQ(sink_.at_ns, std::vector<int64_t>({4000}));
  EXPECT_EQ(machine_.now_ns(), 4000);
}

TEST_F(SimMachineTest, DeliverWithoutWait_DeliversWhatIsDueWithoutMovingTime) {
  FakeTask* a = kernel(kSmall, "Relu");  // [0, 100 us]
  FakeTask* b = kernel(kSmall, "Relu");  // [100, 200 us]
  // A synchronous host -> wide copy of 400 kB: 2 us + 400000 / 4000 us = 102 us.
  Tensor x = *Tensor::host(DataType::kUInt8, Dims{400'000});
  auto y = devices_[kHost]->copy(x, kWideSpace);
  ASSERT_TRUE(y.ok()) << y.status().to_string();
  ASSERT_EQ(machine_.now_ns(), 102'000);
  EXPECT_TRUE(machine_.deliver(/*wait=*/false));
  EXPECT_EQ(sink_.order, Batch({a}));
  EXPECT_EQ(machine_.now_ns(), 102'000);
  EXPECT_FALSE(machine_.deliver(/*wait=*/false));
  EXPECT_EQ(deliver_batch(), Batch({b}));
  EXPECT_EQ(machine_.now_ns(), 200'000);
}

TEST_F(SimMachineTest, DeliverWithWait_NothingPending_ReturnsFalse) {
  EXPECT_FALSE(machine_.deliver(/*wait=*/true));
  EXPECT_FALSE(machine_.deliver(/*wait=*/false));
  EXPECT_EQ(machine_.now_ns(), 0);
}

TEST_F(SimMachineTest, Deliver_InEndTimeOrderThenIssueOrder) {
  FakeTask* t0 = kernel(kSmall, "Relu", 100);    // [0, 200 us]
  FakeTask* t1 = kernel(kWide, "Relu");          // [0, 100 us], queue 0
  FakeTask* t2 = kernel(kWide, "MatMul", 50);    // [0, 100 us], queue 1
  FakeTask* t3 = kernel(kHost, "Add");           // [1, 4 us]
  FakeTask* t4 = kernel(kSmall, "Relu");         // [200, 300 us]
  FakeTask* t5 = kernel(kWide, "Relu");          // [100, 200 us]
  ASSERT_EQ(t0->end_ns, 200'000);
  ASSERT_EQ(t1->end_ns, 100'000);
  ASSERT_EQ(t2->end_ns, 100'000);
  ASSERT_EQ(t3->end_ns, 4'000);
  ASSERT_EQ(t4->end_ns, 300'000);
  ASSERT_EQ(t5->end_ns, 200'000);

  // Each wait moves time to the next end and hands over everything due then.
  EXPECT_EQ(deliver_batch(), Batch({t3}));
  EXPECT_EQ(machine_.now_ns(), 4'000);
  EXPECT_EQ(deliver_batch(), Batch({t1, t2}));  // a tie: issue order
  EXPECT_EQ(machine_.now_ns(), 100'000);
  EXPECT_EQ(deliver_batch(), Batch({t0, t5}));  // a tie across devices
  EXPECT_EQ(machine_.now_ns(), 200'000);
  EXPECT_EQ(deliver_batch(), Batch({t4}));
  EXPECT_EQ(machine_.now_ns(), 300'000);
  EXPECT_TRUE(deliver_batch().empty());
  EXPECT_EQ(sink_.at_ns, std::vector<int64_t>({4'000, 100'000, 100'000, 200'000, 200'000, 300'000}));
}

TEST_F(SimMachineTest, Deliver_TiesFollowIssueOrderNotDevice) {
  // Issued in the opposite order of the devices' indices.
  FakeTask* b = kernel(kWide, "Relu");
  FakeTask* a = kernel(kSmall, "Relu");
  ASSERT_EQ(a->end_ns, b->end_ns);
  EXPECT_EQ(deliver_batch(), Batch({b, a}));
}

// --- copies ------------------------------------------------------------------

TEST_F(SimMachineTest, CopyTime_IsLatencyPlusBytesOverBandwidth) {
  EXPECT_DOUBLE_EQ(machine_.copy_us(kHost, kWide, 4000), 2.0 + 4000 / 4000.0);   // host -> wide
  EXPECT_DOUBLE_EQ(machine_.copy_us(kWide, kHost, 4000), 5.0 + 4000 / 1000.0);   // the way back: "*" -> "*"
  EXPECT_DOUBLE_EQ(machine_.copy_us(kHost, kSmall, 1'000'000), 5.0 + 1000.0);
  EXPECT_DOUBLE_EQ(machine_.copy_us(kSmall, kWide, 0), 5.0);
  EXPECT_DOUBLE_EQ(machine_.copy_us(kWide, kWide, 1'000'000), 0.0);  // same device: free
}

TEST_F(SimMachineTest, CopyTask_TakesLinkTimeOnTheCopyQueue) {
  FakeTask* up = copy(kWide, kHostSpace, kWideSpace, 4000);  // 3 us
  EXPECT_EQ(up->start_ns, 0);
  EXPECT_EQ(up->end_ns, 3'000);
  FakeTask* down = copy(kWide, kWideSpace, kHostSpace, 4000);  // 9 us, after `up` (one copy queue)
  EXPECT_EQ(down->start_ns, 3'000);
  EXPECT_EQ(down->end_ns, 12'000);
  // Copies do not hold the compute queues, nor compute the copy queue.
  FakeTask* k1 = kernel(kWide, "Relu");
  FakeTask* k2 = kernel(kWide, "Relu");
  EXPECT_EQ(k1->start_ns, 0);
  EXPECT_EQ(k2->start_ns, 0);
  FakeTask* third = copy(kWide, kHostSpace, kWideSpace, 0);
  EXPECT_EQ(third->start_ns, 12'000);
  EXPECT_EQ(third->end_ns, 14'000);
  EXPECT_EQ(deliver_batch(), Batch({up}));
  EXPECT_EQ(deliver_batch(), Batch({down}));
  EXPECT_EQ(deliver_batch(), Batch({third}));
  EXPECT_EQ(deliver_batch(), Batch({k1, k2}));
}

TEST_F(SimMachineTest, CopyTask_BetweenUnknownSpaces_TakesNoTime) {
  FakeTask* t = copy(kWide, MemorySpace{DeviceKind::kCpu, 9}, kWideSpace, 1 << 20);
  EXPECT_EQ(t->end_ns, t->start_ns);
}

TEST_F(SimMachineTest, SyncCopy_OutsideATask_AdvancesTheClockByTheLink) {
  Tensor x = *Tensor::host(DataType::kFloat, Dims{1000});  // 4000 bytes
  // cpu:0 shares the process-wide host allocator: count from here.
  const uint64_t host_before = devices_[kHost]->bytes_in_use();
  for (int i = 0; i < 1000; ++i) x.data<float>()[i] = static_cast<float>(i) * 0.5f;
  auto y = devices_[kHost]->copy(x, kWideSpace);
  ASSERT_TRUE(y.ok()) << y.status().to_string();
  EXPECT_EQ(machine_.now_ns(), 3'000);  // 2 us + 4000 B / 4 GB/s
  EXPECT_EQ(y->space(), kWideSpace);
  EXPECT_EQ(y->dims(), Dims({1000}));
  EXPECT_EQ(std::memcmp(y->raw(), x.raw(), 4000), 0);
  EXPECT_EQ(devices_[kWide]->bytes_in_use(), 4000u);

  // And back: 5 us + 4000 B / 1 GB/s = 9 us more.
  auto z = devices_[kWide]->copy(*y, kHostSpace);
  ASSERT_TRUE(z.ok()) << z.status().to_string();
  EXPECT_EQ(machine_.now_ns(), 12'000);
  EXPECT_EQ(z->space(), kHostSpace);
  EXPECT_FLOAT_EQ(z->data<float>()[999], 499.5f);
  // Landing in host memory is counted against cpu:0's capacity.
  EXPECT_EQ(devices_[kHost]->bytes_in_use() - host_before, 4000u);
}

TEST_F(SimMachineTest, SyncCopy_InsideATask_IsPricedByTheTaskNotTheClock) {
  Tensor x = *Tensor::host(DataType::kFloat, Dims{1000});
  Tensor landed;
  FakeTask& t = tasks_.emplace_back();
  t.queue = DeviceTask::Queue::kCopy;
  t.from_space = kHostSpace;
  t.to_space = kWideSpace;
  t.bytes = x.nbytes();
  t.body = [&](Device& d) -> Status {
    ASSIGN_OR_RETURN(landed, d.copy(x, kWideSpace));
    return OkStatus();
  };
  devices_[kWide]->enqueue(&t, &sink_);
  ASSERT_TRUE(t.status.ok()) << t.status.to_string();
  EXPECT_EQ(landed.space(), kWideSpace);
  EXPECT_EQ(machine_.now_ns(), 0);  // no launch cost on wide, and the copy itself is the task's
  EXPECT_EQ(t.end_ns, 3'000);
}

TEST_F(SimMachineTest, SyncCopy_ToUnownedSpace_IsAnError) {
  Tensor x = *Tensor::host(DataType::kFloat, Dims{4});
  auto y = devices_[kHost]->copy(x, MemorySpace{DeviceKind::kCuda, 5});
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(machine_.now_ns(), 0);
}

// --- memory ------------------------------------------------------------------

TEST_F(SimMachineTest, Allocate_BeyondCapacity_IsResourceExhausted) {
  Device& small = *devices_[kSmall];
  const uint64_t cap = small.info().memory_bytes;
  ASSERT_GE(cap, 999u);  // 1e-6 GB, give or take rounding
  ASSERT_LE(cap, 1000u);
  {
    auto all = small.allocate(DataType::kUInt8, Dims{static_cast<int64_t>(cap)});
    ASSERT_TRUE(all.ok()) << all.status().to_string();
    EXPECT_EQ(all->space(), kSmallSpace);
    EXPECT_EQ(small.bytes_in_use(), cap);
    auto more = small.allocate(DataType::kUInt8, Dims{1});
    ASSERT_FALSE(more.ok());
    EXPECT_EQ(more.status().code(), StatusCode::kResourceExhausted);
    EXPECT_NE(more.status().message().find("out of memory"), std::string::npos) << more.status().message();
    EXPECT_NE(more.status().message().find("cuda:0"), std::string::npos) << more.status().message();
    EXPECT_EQ(small.bytes_in_use(), cap);  // the failure took nothing
  }
  // Freeing gives the capacity back.
  EXPECT_EQ(small.bytes_in_use(), 0u);
  auto again = small.allocate(DataType::kUInt8, Dims{static_cast<int64_t>(cap)});
  EXPECT_TRUE(again.ok()) << again.status().to_string();
}

TEST_F(SimMachineTest, Allocate_LargerThanTheDevice_FailsEvenWhenEmpty) {
  Device& small = *devices_[kSmall];
  auto t = small.allocate(DataType::kFloat, Dims{1000});  // 4000 bytes
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(small.bytes_in_use(), 0u);
  // Other devices are unaffected.
  auto w = devices_[kWide]->allocate(DataType::kFloat, Dims{1000});
  EXPECT_TRUE(w.ok()) << w.status().to_string();
}

TEST_F(SimMachineTest, Allocate_CountsSeveralTensorsTogether) {
  Device& small = *devices_[kSmall];
  auto a = small.allocate(DataType::kFloat, Dims{100});  // 400
  auto b = small.allocate(DataType::kFloat, Dims{100});  // 800
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(small.bytes_in_use(), 800u);
  auto c = small.allocate(DataType::kFloat, Dims{100});  // 1200 > cap
  EXPECT_EQ(c.status().code(), StatusCode::kResourceExhausted);
  *a = Tensor();
  auto d = small.allocate(DataType::kFloat, Dims{100});
  EXPECT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(small.bytes_in_use(), 800u);
}

TEST_F(SimMachineTest, SyncCopy_IntoFullDevice_IsResourceExhausted) {
  Tensor x = *Tensor::host(DataType::kFloat, Dims{1000});  // 4000 bytes > ~1000
  auto y = devices_[kHost]->copy(x, kSmallSpace);
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(y.status().message().find("out of memory"), std::string::npos) << y.status().message();
}

// --- noise -------------------------------------------------------------------

std::string noisy_profile() {
  std::string s = kProfile;
  const std::string key = "\"name\": \"machine test\",";
  s.replace(s.find(key), key.size(), key + " \"noise\": 0.3,");
  return s;
}

std::vector<int64_t> noisy_durations(uint64_t seed) {
  SimMachine m(profile_from(noisy_profile()), seed);
  auto devices = m.take_devices();
  Recorder sink(m);
  std::deque<FakeTask> tasks;
  Node n;
  n.op_type = "Relu";
  std::vector<int64_t> out;
  for (int i = 0; i < 8; ++i) {
    FakeTask& t = tasks.emplace_back();
    t.op = &n;
    devices[static_cast<size_t>(i % 3)]->enqueue(&t, &sink);
    out.push_back(t.end_ns - t.start_ns);
  }
  FakeTask& c = tasks.emplace_back();
  c.queue = DeviceTask::Queue::kCopy;
  c.from_space = kHostSpace;
  c.to_space = kWideSpace;
  c.bytes = 4000;
  devices[kWide]->enqueue(&c, &sink);
  out.push_back(c.end_ns - c.start_ns);
  while (m.deliver(true)) {
  }
  EXPECT_EQ(sink.order.size(), tasks.size());
  return out;
}

TEST(SimMachine, Noise_IsReproducibleForASeedAndVariesAcrossSeeds) {
  const std::vector<int64_t> a = noisy_durations(42), b = noisy_durations(42), c = noisy_durations(43);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  // The noise moves times around the profile's, and keeps them positive.
  bool any_off = false;
  const int64_t base[] = {10'000, 100'000, 100'000};
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_GT(a[i], 0);
    any_off |= a[i] != base[i % 3];
  }
  EXPECT_TRUE(any_off);
}

TEST(SimMachine, Noise_LeavesKernelUsNoiseFree) {
  SimMachine m(profile_from(noisy_profile()), 7);
  EXPECT_DOUBLE_EQ(m.kernel_us(kSmall, "Relu", 5), 105.0);
  EXPECT_DOUBLE_EQ(m.copy_us(kHost, kWide, 4000), 3.0);
}

}  // namespace
}  // namespace sy

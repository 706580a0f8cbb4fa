// What handing a kernel to the CPU device's own thread costs, against
// running it inline on the run loop's thread: the figure behind the run
// loop's hand-off rule (RunLoop::launch) and the simulator's `handoff_us`.
//
//   build/bench/cpu_handoff_bench
//
// Each iteration enqueues one empty task and waits, spinning as the run loop
// does first, until the completion arrives. `enqueue_us` is the part the
// enqueuing thread pays before it can go on (the run loop's cost of a
// hand-off); the iteration time is the round trip: the worker's wake-up, the
// task, and the completion's way back.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>

#include "devices/cpu/cpu_device.h"

namespace sy {
namespace {

class EmptyTask final : public DeviceTask {
 public:
  Status execute(Device&) override { return OkStatus(); }
};

class FlagSink final : public CompletionSink {
 public:
  void on_complete(DeviceTask*) override { done.store(true, std::memory_order_release); }
  std::atomic<bool> done{false};
};

double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Arg: 1 hands the task to the worker, 0 lets it run inline.
void BM_CpuTask(benchmark::State& state) {
  CpuDevice device(0, 0, /*worker=*/true);
  EmptyTask task;
  FlagSink sink;
  task.may_run_inline = state.range(0) == 0;
  double enqueue_us = 0;
  for (auto _ : state) {
    sink.done.store(false, std::memory_order_relaxed);
    const double t0 = now_us();
    device.enqueue(&task, &sink);
    enqueue_us += now_us() - t0;
    while (!sink.done.load(std::memory_order_acquire)) {
    }
  }
  state.counters["enqueue_us"] = benchmark::Counter(enqueue_us / static_cast<double>(state.iterations()));
  state.SetLabel(state.range(0) ? "handed to the worker" : "inline");
}
BENCHMARK(BM_CpuTask)->Arg(0)->Arg(1)->UseRealTime();

}  // namespace
}  // namespace sy

BENCHMARK_MAIN();

// Host<->GPU copies through Switchyard's copy path (a copy task enqueued on
// the CUDA device until its sink hears of it; issue_us is the part the
// enqueuer waits) against the bare cudaMemcpyAsync figure, pinned and
// pageable, on the same machine; what a host tensor costs to make from the
// pinned pool against ordinary memory; and an empty kernel's launch cost,
// the floor for the per-node overhead that executor_overhead_bench
// measures with --devices cuda:0 --policy gpu.
//
//   build/bench/cuda_transfer_bench [--benchmark_filter=Copy/.*/8388608]
//
// Rows come in pairs, raw then switchyard, for each direction, memory kind
// and size; the GB/s counter is what to compare. Switchyard's rows use the
// completion SWITCHYARD_CUDA_COMPLETION chooses (polled events by default).
// Built only with CUDA; without a GPU it says why and exits 0.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <iostream>
#include <mutex>

#include "devices/cuda/cuda_backend.h"
#include "devices/cuda/cuda_device.h"
#include "devices/cuda/cuda_probe.h"
#include "devices/cuda/pinned_pool.h"

namespace sy::cuda {
cudaError_t launch_empty_kernel(cudaStream_t s);  // probe_kernels.cu
}

namespace {

using Clock = std::chrono::steady_clock;

class CopyTask final : public sy::DeviceTask {
 public:
  CopyTask(const sy::Tensor& src, sy::MemorySpace to) : src_(src), to_(to) { queue = Queue::kCopy; }
  sy::Status execute(sy::Device& device) override {
    auto r = device.copy(src_, to_);
    if (!r.ok()) return r.status();
    result = *r;
    return sy::OkStatus();
  }
  sy::Tensor result;

 private:
  const sy::Tensor& src_;
  sy::MemorySpace to_;
};

// Waits for a completion the way the raw rows wait for their copy:
// cudaStreamSynchronize spins on a machine with more cores than GPUs (the
// runtime's default scheduling), so this spins too, for up to kSpin, before
// blocking. A blocked wait would add a futex wake-up (tens of µs) that is
// the harness's, not the copy path's, and at 8 MB that is several percent.
class Sink final : public sy::CompletionSink {
 public:
  void on_complete(sy::DeviceTask*) override {
    std::lock_guard<std::mutex> lock(mu_);
    done_.store(true, std::memory_order_release);
    cv_.notify_one();
  }
  void wait() {
    const auto spin_until = Clock::now() + kSpin;
    while (!done_.load(std::memory_order_acquire) && Clock::now() < spin_until) {
    }
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return done_.load(std::memory_order_relaxed); });
    done_.store(false, std::memory_order_relaxed);
  }

 private:
  static constexpr std::chrono::milliseconds kSpin{20};
  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<bool> done_{false};
};

// Args: implementation (0 raw, 1 switchyard), direction (0 H2D, 1 D2H),
// host memory (0 pageable, 1 pinned), bytes.
void BM_Copy(benchmark::State& state) {
  const bool switchyard = state.range(0) == 1, h2d = state.range(1) == 0, pinned = state.range(2) == 1;
  const size_t bytes = static_cast<size_t>(state.range(3));
  if (!switchyard) {
    auto raw = sy::cuda::RawCopier::create(0, bytes, h2d, pinned);
    if (!raw.ok()) return state.SkipWithError(raw.status().message().c_str());
    for (auto _ : state) {
      auto sec = (*raw)->seconds();
      if (!sec.ok()) return state.SkipWithError(sec.status().message().c_str());
      state.SetIterationTime(*sec);
    }
  } else {
    auto dev = sy::create_cuda_device(0);
    if (!dev.ok()) return state.SkipWithError(dev.status().message().c_str());
    const sy::Dims dims{static_cast<int64_t>(bytes)};
    // Tensor::host would be page-locked too, once a GPU is open.
    auto host = pinned ? sy::cuda::pinned_host_tensor(sy::DataType::kUInt8, dims)
                       : sy::cuda::pageable_host_tensor(sy::DataType::kUInt8, dims);
    if (!host.ok()) return state.SkipWithError(host.status().message().c_str());
    std::memset(host->raw(), 1, bytes);
    // D2H copies land in pinned memory whatever the source's kind, so the
    // pageable D2H row measures the same path as the pinned one.
    auto on_gpu = (*dev)->copy(*host, (*dev)->memory_space());
    if (!on_gpu.ok()) return state.SkipWithError(on_gpu.status().message().c_str());
    const sy::Tensor& src = h2d ? *host : *on_gpu;
    const sy::MemorySpace to = h2d ? (*dev)->memory_space() : sy::kHostSpace;
    Sink sink;
    double issue_us = 0;
    for (auto _ : state) {
      CopyTask task(src, to);
      const auto t0 = Clock::now();
      (*dev)->enqueue(&task, &sink);
      const auto t1 = Clock::now();
      sink.wait();
      const double sec = std::chrono::duration<double>(Clock::now() - t0).count();
      if (!task.status.ok()) return state.SkipWithError(task.status.message().c_str());
      state.SetIterationTime(sec);
      issue_us += std::chrono::duration<double, std::micro>(t1 - t0).count();
    }
    // What the enqueuer (the run loop) waits: the driver stages ordinary
    // memory before cudaMemcpyAsync returns.
    state.counters["issue_us"] = issue_us / static_cast<double>(state.iterations());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
  state.counters["GB/s"] = benchmark::Counter(static_cast<double>(bytes) * static_cast<double>(state.iterations()),
                                              benchmark::Counter::kIsRate);
}

void copy_args(benchmark::internal::Benchmark* b) {
  for (int64_t dir : {0, 1})
    for (int64_t pinned : {1, 0})
      for (int64_t bytes : {int64_t{64} << 10, int64_t{1} << 20, int64_t{8} << 20, int64_t{64} << 20, int64_t{256} << 20})
        for (int64_t impl : {0, 1}) b->Args({impl, dir, pinned, bytes});
  b->ArgNames({"switchyard", "d2h", "pinned", "bytes"});
}
BENCHMARK(BM_Copy)->Apply(copy_args)->UseManualTime()->Unit(benchmark::kMicrosecond);

// What a host tensor costs to make and drop (first page written), from
// ordinary memory (arg 0 = 0) or from the pinned pool, as once a GPU is
// open (1): the price CPU kernels pay for outputs that copy without staging.
void BM_HostTensor(benchmark::State& state) {
  if (auto dev = sy::create_cuda_device(0); !dev.ok()) return state.SkipWithError(dev.status().message().c_str());
  auto budget = sy::cuda::PinnedPool::host_tensor_budget_from_env();
  if (!budget.ok()) return state.SkipWithError(budget.status().message().c_str());
  // Thread 0 alone switches the pool, before the threads start together
  // and after they all finished.
  if (state.thread_index() == 0) sy::cuda::PinnedPool::instance().serve_host_tensors(state.range(0) == 1 ? *budget : 0);
  const sy::Dims dims{state.range(1)};
  for (auto _ : state) {
    auto t = sy::Tensor::host(sy::DataType::kUInt8, dims);
    if (!t.ok()) return state.SkipWithError(t.status().message().c_str());
    t->data<uint8_t>()[0] = 1;
    benchmark::DoNotOptimize(t->raw());
  }
  if (state.thread_index() == 0) sy::cuda::PinnedPool::instance().serve_host_tensors(*budget);
}
BENCHMARK(BM_HostTensor)
    ->ArgsProduct({{0, 1}, {int64_t{64} << 10, int64_t{1} << 20, int64_t{8} << 20}})
    ->ArgNames({"page_locked", "bytes"})
    ->ThreadRange(1, 4)
    ->Unit(benchmark::kNanosecond);

// Arg: how each launch is waited for: 0 = not (back to back), 1 = a
// stream callback, 2 = a polled event.
void BM_BareLaunch(benchmark::State& state) {
  const auto wait = static_cast<sy::cuda::LaunchWait>(state.range(0));
  double us = 0;
  for (auto _ : state) {
    auto r = sy::cuda::raw_launch_us(0, 1000, wait);
    if (!r.ok()) return state.SkipWithError(r.status().message().c_str());
    us = *r;
  }
  state.counters["us_per_launch"] = us;
}
BENCHMARK(BM_BareLaunch)->Arg(2)->Arg(1)->Arg(0)->ArgName("wait")->Unit(benchmark::kMillisecond);

// A compute task that queues what arg 0 says: 0 nothing (completes in
// enqueue), 1 a 4-byte allocation, 2 an empty kernel, 3 both (what a
// one-element Add queues, less its arithmetic).
class ProbeTask final : public sy::DeviceTask {
 public:
  explicit ProbeTask(int what) : what_(what) {}
  sy::Status execute(sy::Device& device) override {
    if (what_ & 1) {
      ASSIGN_OR_RETURN(scratch, device.allocate(sy::DataType::kFloat, sy::Dims{1}));
    }
    if (what_ & 2) {
      auto* gpu = dynamic_cast<sy::cuda::CudaDevice*>(&device);
      sy::cuda::StreamSlot* slot = gpu ? gpu->launch_slot() : nullptr;
      if (!slot) return sy::Internal("not a compute task on a CUDA device");
      CUDA_RETURN_IF_ERROR(sy::cuda::launch_empty_kernel(slot->stream));
    }
    return sy::OkStatus();
  }
  sy::Tensor scratch;

 private:
  int what_;
};

// Where a GPU node's fixed cost goes: the host time enqueue() takes
// (issue_us: the launch lock, the task's CUDA calls, arming its
// completion) and the time until the sink hears of completion (done_us),
// one task at a time, as the run loop sees a chain of dependent nodes.
void BM_Enqueue(benchmark::State& state) {
  auto dev = sy::create_cuda_device(0);
  if (!dev.ok()) return state.SkipWithError(dev.status().message().c_str());
  Sink sink;
  double issue = 0, done = 0;
  for (auto _ : state) {
    ProbeTask task(static_cast<int>(state.range(0)));
    const auto t0 = Clock::now();
    (*dev)->enqueue(&task, &sink);
    const auto t1 = Clock::now();
    sink.wait();
    const auto t2 = Clock::now();
    if (!task.status.ok()) return state.SkipWithError(task.status.message().c_str());
    issue += std::chrono::duration<double, std::micro>(t1 - t0).count();
    done += std::chrono::duration<double, std::micro>(t2 - t0).count();
  }
  const auto n = static_cast<double>(state.iterations());
  state.counters["issue_us"] = issue / n;
  state.counters["done_us"] = done / n;
}
BENCHMARK(BM_Enqueue)->DenseRange(0, 3)->ArgName("work")->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
  if (sy::cuda_device_count() == 0) {
    std::cout << "cuda_transfer_bench: skipped, no GPU: " << sy::cuda_unavailable_reason() << "\n";
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

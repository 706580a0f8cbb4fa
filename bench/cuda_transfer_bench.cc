// Host<->GPU copies through Switchyard's copy path (a copy task enqueued on
// the CUDA device, completed by its stream callback) against the bare
// cudaMemcpyAsync figure, pinned and pageable, on the same machine; and an
// empty kernel's launch cost, the floor for the per-node overhead that
// executor_overhead_bench measures with --devices cuda:0 --policy gpu.
//
//   build/bench/cuda_transfer_bench [--benchmark_filter=Copy/.*/8388608]
//
// Rows come in pairs, raw then switchyard, for each direction, memory kind
// and size; the GB/s counter is what to compare. Built only with CUDA;
// without a GPU it says why and exits 0.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <iostream>
#include <mutex>

#include "devices/cuda/cuda_backend.h"
#include "devices/cuda/cuda_probe.h"

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
    for (auto _ : state) {
      auto gbps = sy::cuda::raw_copy_gbps(0, bytes, h2d, pinned, 1);
      if (!gbps.ok()) return state.SkipWithError(gbps.status().message().c_str());
      state.SetIterationTime(static_cast<double>(bytes) / (*gbps * 1e9));
    }
  } else {
    auto dev = sy::create_cuda_device(0);
    if (!dev.ok()) return state.SkipWithError(dev.status().message().c_str());
    const sy::Dims dims{static_cast<int64_t>(bytes)};
    auto host = pinned ? sy::cuda::pinned_host_tensor(sy::DataType::kUInt8, dims) : sy::Tensor::host(sy::DataType::kUInt8, dims);
    if (!host.ok()) return state.SkipWithError(host.status().message().c_str());
    std::memset(host->raw(), 1, bytes);
    // D2H copies land in pinned memory whatever the source's kind, so the
    // pageable D2H row measures the same path as the pinned one.
    auto on_gpu = (*dev)->copy(*host, (*dev)->memory_space());
    if (!on_gpu.ok()) return state.SkipWithError(on_gpu.status().message().c_str());
    const sy::Tensor& src = h2d ? *host : *on_gpu;
    const sy::MemorySpace to = h2d ? (*dev)->memory_space() : sy::kHostSpace;
    Sink sink;
    for (auto _ : state) {
      CopyTask task(src, to);
      const auto t0 = Clock::now();
      (*dev)->enqueue(&task, &sink);
      sink.wait();
      const double sec = std::chrono::duration<double>(Clock::now() - t0).count();
      if (!task.status.ok()) return state.SkipWithError(task.status.message().c_str());
      state.SetIterationTime(sec);
    }
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

// Arg: 1 = wait for a stream callback after every launch, 0 = back to back.
void BM_BareLaunch(benchmark::State& state) {
  const bool sync_each = state.range(0) == 1;
  double us = 0;
  for (auto _ : state) {
    auto r = sy::cuda::raw_launch_us(0, 1000, sync_each);
    if (!r.ok()) return state.SkipWithError(r.status().message().c_str());
    us = *r;
  }
  state.counters["us_per_launch"] = us;
}
BENCHMARK(BM_BareLaunch)->Arg(1)->Arg(0)->ArgName("callback_each")->Unit(benchmark::kMillisecond);

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

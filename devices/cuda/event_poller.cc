#include "devices/cuda/event_poller.h"

#include <chrono>

namespace sy::cuda {

namespace {

using Clock = std::chrono::steady_clock;
// How the thread waits between queries, by time since it last saw work
// complete or arrive: spinning costs a core, a yield lets others have it
// when they want it, a nap (the kernel's timer slack makes it ~60 µs) lets
// them have it outright. A kernel that has already run for milliseconds is
// then noticed at most a few percent late.
constexpr auto kSpin = std::chrono::microseconds(200);
constexpr auto kYield = std::chrono::milliseconds(2);
constexpr auto kNap = std::chrono::microseconds(50);

}  // namespace

EventPoller::EventPoller(int ordinal, int streams)
    : ordinal_(ordinal), queues_(static_cast<size_t>(streams)), thread_([this] { loop(); }) {}

EventPoller::~EventPoller() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_one();
  thread_.join();
  (void)cudaSetDevice(ordinal_);
  for (cudaEvent_t e : spare_) (void)cudaEventDestroy(e);
}

Status EventPoller::watch(cudaStream_t stream, int index, Done done, void* ctx) {
  if (index < 0 || static_cast<size_t>(index) >= queues_.size())
    return InvalidArgument("EventPoller: stream ", index, " out of range");
  cudaEvent_t event = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!spare_.empty()) {
      event = spare_.back();
      spare_.pop_back();
    }
  }
  if (!event) CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  if (cudaError_t e = cudaEventRecord(event, stream); e != cudaSuccess) {
    std::lock_guard<std::mutex> lock(mu_);
    spare_.push_back(event);
    return to_status(e, "cudaEventRecord", __FILE__, __LINE__);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    inbox_.push_back({event, stream, index, done, ctx});
  }
  cv_.notify_one();
  return OkStatus();
}

int EventPoller::poll() {
  int completed = 0;
  for (auto& q : queues_) {
    while (!q.empty()) {
      const Watch& w = q.front();
      cudaError_t e = cudaEventQuery(w.event);
      if (e == cudaErrorNotReady) break;
      // The failure is the device's (a fault); this thread's last-error
      // slot serves no one, but keep it clean.
      if (e != cudaSuccess) (void)cudaGetLastError();
      const Watch done = w;
      q.pop_front();
      --watching_;
      ++completed;
      // After a fault the event may not be reusable: it is destroyed (which
      // may fail as well, on a broken context; nothing more can be done).
      if (e == cudaSuccess) {
        finished_.push_back(done.event);
      } else if (cudaEventDestroy(done.event) != cudaSuccess) {
        (void)cudaGetLastError();
      }
      done.done(done.stream, e, done.ctx);
    }
  }
  return completed;
}

void EventPoller::loop() {
  // Event queries need the GPU's context current on this thread.
  (void)cudaSetDevice(ordinal_);
  auto last_progress = Clock::now();
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      spare_.insert(spare_.end(), finished_.begin(), finished_.end());
      finished_.clear();
      if (watching_ == 0 && inbox_.empty()) {
        if (stop_) return;
        cv_.wait(lock, [&] { return stop_ || !inbox_.empty(); });
        if (inbox_.empty()) return;  // stopped with nothing left to report
      }
      if (!inbox_.empty()) last_progress = Clock::now();
      for (const Watch& w : inbox_) queues_[static_cast<size_t>(w.index)].push_back(w);
      watching_ += inbox_.size();
      inbox_.clear();
    }
    if (poll() > 0) {
      last_progress = Clock::now();
      continue;
    }
    const auto idle = Clock::now() - last_progress;
    if (idle < kSpin) continue;
    if (idle < kYield)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(kNap);
  }
}

}  // namespace sy::cuda

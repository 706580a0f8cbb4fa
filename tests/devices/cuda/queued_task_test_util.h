// Queued tasks for the CUDA device tests: a copy run through enqueue(),
// the sink that waits for its completion, and a holder that leaks both on a
// timeout rather than free them under a late completion.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "devices/device.h"

namespace sy::testing {

// A copy task run through the queue: enqueue() returns before the copy is
// known to be done, and the sink hears of it from the device.
class CopyTo final : public DeviceTask {
 public:
  CopyTo(Tensor src, MemorySpace to) : src_(std::move(src)), to_(to) { queue = Queue::kCopy; }
  Status execute(Device& device) override {
    auto r = device.copy(src_, to_);
    if (!r.ok()) return r.status();
    result = *r;
    return OkStatus();
  }
  Tensor result;

 private:
  Tensor src_;
  MemorySpace to_;
};

class WaitSink final : public CompletionSink {
 public:
  void on_complete(DeviceTask*) override {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
    ++calls_;
    thread_ = std::this_thread::get_id();
    cv_.notify_all();
  }
  bool wait() {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(30), [&] { return done_; });
  }
  std::thread::id thread() const { return thread_; }
  int calls() {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  int calls_ = 0;
  std::thread::id thread_;
};

// A task of type T and its sink, on the heap so that a timeout cannot free
// them under a late callback.
template <typename T>
class Queued {
 public:
  explicit Queued(std::unique_ptr<T> task) : task_(std::move(task)) {}
  // Enqueues the task on `dev` and waits up to 30 s for it. On a timeout it
  // returns false (the caller fails and returns at once) after leaking the
  // task, the sink and the device on purpose: a late callback would touch
  // freed memory, and the device's destructor would wait for a stream that
  // may never drain, hanging the whole test binary.
  template <typename D>
  bool run(std::unique_ptr<D>& dev) {
    dev->enqueue(task_.get(), sink_.get());
    if (sink_->wait()) return true;
    (void)task_.release();
    (void)sink_.release();
    (void)dev.release();
    return false;
  }
  T& task() { return *task_; }
  WaitSink& sink() { return *sink_; }

 private:
  std::unique_ptr<T> task_;
  std::unique_ptr<WaitSink> sink_ = std::make_unique<WaitSink>();
};

}  // namespace sy::testing

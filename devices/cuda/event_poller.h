// EventPoller: notices that queued GPU work is done by polling events from
// one thread per GPU, instead of a stream callback per task.
//
// A stream callback (cudaStreamAddCallback) is run by a driver thread that
// sleeps until the GPU interrupts it; on the H200 machine a task completed
// that way cost the run loop about 50 µs per dependent node and a copy some
// 35 µs, several times a small kernel's time. A cudaEventQuery is a read of
// memory the GPU writes, so a thread that keeps asking sees completion
// within a microsecond or two. It asks only while work is in flight: it
// spins for a short while after the last completion, then yields its core,
// then naps, so a long kernel does not keep a core busy for nothing; with
// nothing in flight it sleeps on a condition variable.
//
// Events of one stream complete in order, so only the oldest watch of each
// stream is queried. A device fault makes cudaEventQuery fail, and every
// watch then completes with that error: a run fails instead of hanging.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "devices/cuda/cuda_check.h"

namespace sy::cuda {

class EventPoller {
 public:
  // Called on the poller thread once the stream reached the watch: status
  // is cudaSuccess or the device's error. It must not call CUDA (the same
  // rule as for a stream callback, so one function serves both).
  using Done = void(CUDART_CB*)(cudaStream_t stream, cudaError_t status, void* ctx);

  // Polls for GPU `ordinal`, whose streams are numbered [0, streams).
  EventPoller(int ordinal, int streams);
  // Waits until every watched event completed (and was reported), then
  // stops the thread.
  ~EventPoller();
  EventPoller(const EventPoller&) = delete;
  EventPoller& operator=(const EventPoller&) = delete;

  // Records an event on `stream` (number `index`) after the work queued so
  // far, and calls done(stream, status, ctx) once it completes. On a
  // failure nothing is watched and `done` is never called.
  Status watch(cudaStream_t stream, int index, Done done, void* ctx);

 private:
  struct Watch {
    cudaEvent_t event;
    cudaStream_t stream;
    int index;
    Done done;
    void* ctx;
  };
  void loop();
  // Reports the completed watches at the front of each stream's queue;
  // returns how many.
  int poll();

  const int ordinal_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Watch> inbox_;        // watched, not yet seen by the thread
  std::vector<cudaEvent_t> spare_;  // recorded events that completed, for reuse
  bool stop_ = false;
  // The poller thread's own, no lock.
  std::vector<std::deque<Watch>> queues_;  // per stream, oldest first
  std::vector<cudaEvent_t> finished_;      // to hand back to spare_
  size_t watching_ = 0;
  std::thread thread_;  // last: starts after the members it uses
};

}  // namespace sy::cuda

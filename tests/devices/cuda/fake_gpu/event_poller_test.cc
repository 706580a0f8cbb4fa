// EventPoller on the fake CUDA runtime: a watch is reported once, after the
// work queued before it and not before, in each stream's order; a fault is
// reported rather than waited out; destruction waits for what it watches.
// And how SWITCHYARD_CUDA_COMPLETION chooses between it and callbacks.
#include "devices/cuda/event_poller.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "devices/cuda/cuda_device.h"
#include "tests/devices/cuda/fake_gpu/fake_cuda.h"
#include "tests/devices/cuda/queued_task_test_util.h"

namespace sy::cuda {
namespace {

struct Report {
  int tag;
  cudaError_t status;
};

// What the poller reported, in order, from its thread.
class Reports {
 public:
  static void CUDART_CB done(cudaStream_t, cudaError_t status, void* ctx) {
    auto* r = static_cast<Entry*>(ctx);
    std::lock_guard<std::mutex> lock(r->owner->mu_);
    r->owner->seen_.push_back({r->tag, status});
  }
  struct Entry {
    Reports* owner;
    int tag;
  };
  Entry* entry(int tag) { return &entries_.emplace_back(Entry{this, tag}); }
  std::vector<Report> seen() {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_;
  }
  // Waits up to 10 s for `n` reports.
  bool wait_for(size_t n) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (seen().size() < n && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return seen().size() >= n;
  }

 private:
  std::mutex mu_;
  std::vector<Report> seen_;
  std::deque<Entry> entries_;  // stable addresses
};

// Holds a stream back until go is set.
void CUDART_CB wait_for_go(void* flag) {
  while (!static_cast<std::atomic<bool>*>(flag)->load()) std::this_thread::yield();
}

cudaStream_t new_stream() {
  cudaStream_t s = nullptr;
  EXPECT_EQ(cudaSetDevice(0), cudaSuccess);
  EXPECT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  return s;
}

TEST(EventPoller, ReportsEachWatch_OnlyAfterItsStreamReachedIt) {
  cudaStream_t held = new_stream(), free = new_stream();
  std::atomic<bool> go{false};
  Reports reports;
  {
    EventPoller poller(0, 2);
    ASSERT_EQ(cudaLaunchHostFunc(held, wait_for_go, &go), cudaSuccess);
    for (int tag : {1, 2, 3}) ASSERT_TRUE(poller.watch(held, 0, &Reports::done, reports.entry(tag)).ok());
    ASSERT_TRUE(poller.watch(free, 1, &Reports::done, reports.entry(10)).ok());
    // The free stream's watch is reported while the held stream's wait.
    ASSERT_TRUE(reports.wait_for(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_EQ(reports.seen().size(), 1u);
    EXPECT_EQ(reports.seen()[0].tag, 10);
    go = true;
    ASSERT_TRUE(reports.wait_for(4));
    // Watches are reused events: a second round is reported as well.
    for (int tag : {4, 5}) ASSERT_TRUE(poller.watch(held, 0, &Reports::done, reports.entry(tag)).ok());
    ASSERT_TRUE(reports.wait_for(6));
  }
  std::vector<int> tags;
  for (const Report& r : reports.seen()) {
    EXPECT_EQ(r.status, cudaSuccess) << r.tag;
    tags.push_back(r.tag);
  }
  EXPECT_EQ(tags, (std::vector<int>{10, 1, 2, 3, 4, 5}));
  EXPECT_EQ(cudaStreamDestroy(held), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(free), cudaSuccess);
}

TEST(EventPoller, Destruction_WaitsForWatchedWork) {
  cudaStream_t s = new_stream();
  std::atomic<bool> go{false};
  Reports reports;
  std::thread release;
  {
    EventPoller poller(0, 1);
    ASSERT_EQ(cudaLaunchHostFunc(s, wait_for_go, &go), cudaSuccess);
    ASSERT_TRUE(poller.watch(s, 0, &Reports::done, reports.entry(1)).ok());
    release = std::thread([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      go = true;
    });
  }
  ASSERT_EQ(reports.seen().size(), 1u) << "the poller stopped before reporting what it watched";
  EXPECT_EQ(reports.seen()[0].status, cudaSuccess);
  release.join();
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

// A fault is reported as the watch's error, a faulted GPU records no more
// events, and the faulted event is destroyed, not leaked.
TEST(EventPoller, DeviceFault_IsReportedAsTheWatchsError) {
  cudaStream_t s = new_stream();
  std::atomic<bool> go{false};
  Reports reports;
  const int64_t events = fake_cuda::stats().events;
  {
    EventPoller poller(0, 1);
    ASSERT_EQ(cudaLaunchHostFunc(s, wait_for_go, &go), cudaSuccess);
    ASSERT_TRUE(poller.watch(s, 0, &Reports::done, reports.entry(1)).ok());
    fake_cuda::fault_device(0, 0);
    go = true;
    ASSERT_TRUE(reports.wait_for(1)) << "a watch on a faulted GPU was never reported";
    EXPECT_NE(reports.seen()[0].status, cudaSuccess);
    EXPECT_FALSE(poller.watch(s, 0, &Reports::done, reports.entry(2)).ok()) << "a faulted GPU cannot record";
    EXPECT_FALSE(poller.watch(s, 5, &Reports::done, reports.entry(3)).ok()) << "no stream 5";
  }
  fake_cuda::heal(0);
  EXPECT_EQ(fake_cuda::stats().events, events) << "events left behind";
  EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

TEST(CudaDevice, CompletionMode_FromEnvironment) {
  const char* was = std::getenv("SWITCHYARD_CUDA_COMPLETION");
  const std::string saved = was ? was : "";
  unsetenv("SWITCHYARD_CUDA_COMPLETION");
  EXPECT_EQ(*completion_from_env(), Completion::kPoll);
  setenv("SWITCHYARD_CUDA_COMPLETION", "callback", 1);
  EXPECT_EQ(*completion_from_env(), Completion::kCallback);
  setenv("SWITCHYARD_CUDA_COMPLETION", "polling", 1);
  auto bad = completion_from_env();
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  for (const char* word : {"polling", "'poll'", "'callback'"})
    EXPECT_NE(bad.status().message().find(word), std::string::npos) << bad.status().message();
  if (was)
    setenv("SWITCHYARD_CUDA_COMPLETION", saved.c_str(), 1);
  else
    unsetenv("SWITCHYARD_CUDA_COMPLETION");
}

// Each way of hearing of completion, on a device of its own: a queued task
// completes from another thread, timed, with the bytes in place.
TEST(CudaDevice, BothCompletionModes_CompleteQueuedTasks) {
  for (Completion mode : {Completion::kPoll, Completion::kCallback}) {
    SCOPED_TRACE(mode == Completion::kPoll ? "poll" : "callback");
    auto dev = CudaDevice::create(0, 2, mode);
    ASSERT_TRUE(dev.ok()) << dev.status().message();
    EXPECT_EQ((*dev)->info().description.find("stream callback") != std::string::npos, mode == Completion::kCallback)
        << (*dev)->info().description;
    auto h = Tensor::host(DataType::kInt32, Dims{1000});
    ASSERT_TRUE(h.ok());
    for (int i = 0; i < 1000; ++i) h->data<int32_t>()[i] = i * 7;
    testing::Queued<testing::CopyTo> up(std::make_unique<testing::CopyTo>(*h, (*dev)->memory_space()));
    ASSERT_TRUE(up.run(*dev)) << "no completion within 30 s";
    ASSERT_TRUE(up.task().status.ok()) << up.task().status.message();
    EXPECT_NE(up.sink().thread(), std::this_thread::get_id());
    EXPECT_GE(up.task().end_ns, up.task().start_ns);
    auto back = (*dev)->copy(up.task().result, kHostSpace);
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(back->data<int32_t>()[999], 999 * 7);
  }
}

}  // namespace
}  // namespace sy::cuda

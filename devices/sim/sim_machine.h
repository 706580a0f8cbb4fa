// SimMachine: a simulated machine built from a SimProfile. It owns the sim
// devices, the virtual clock and the queue of pending completions.
//
// Each device computes every value on the host at once, with the CPU
// kernels, so control flow sees exact values. What it reports is time from
// the profile: issuing a task costs the device's launch_us of host time
// (serial: it advances the clock), a kernel then occupies one of the
// device's queues for the profile's cost of its op at its work size, and a
// copy one of the copy queues for latency + bytes / bandwidth of the link.
// A cpu device's kernel that a real CpuDevice would run on the enqueuing
// thread (see runs_inline() and DeviceTask::may_run_inline) holds the host
// clock until it ends; one handed to its thread starts handoff_us later.
// Completions wait in a queue ordered by (virtual end time, issue order)
// until the run loop asks the clock for them, so the loop handles them in
// virtual-time order and two runs with the same seed are identical.
//
// Thread-safety: none. A simulated machine serves one run at a time on one
// thread (the session serialises its runs).
#pragma once

#include <memory>
#include <queue>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "devices/device.h"
#include "devices/sim/sim_profile.h"

namespace sy {

class SimDevice;

class SimMachine {
 public:
  // `seed` drives the profile's noise (if any). A lone host device runs
  // its kernels on the run loop's thread, as a real one does; several, or
  // one beside GPUs, have their own threads, unless `cpu_inline_beside_gpu`
  // (see create_devices()).
  SimMachine(SimProfile profile, uint64_t seed, bool cpu_inline_beside_gpu = false);
  ~SimMachine();
  SimMachine(const SimMachine&) = delete;
  SimMachine& operator=(const SimMachine&) = delete;

  const SimProfile& profile() const { return profile_; }
  // The devices, in profile order; the caller takes ownership (the machine
  // must outlive them).
  std::vector<std::unique_ptr<Device>> take_devices();
  int num_devices() const { return static_cast<int>(profile_.devices.size()); }
  // Device index owning memory space `s`, or -1.
  int device_of_space(MemorySpace s) const;

  int64_t now_ns() const { return now_ns_; }
  // See Clock::deliver.
  bool deliver(bool wait);

  // Noise-free kernel time of `op` at `work` on device `d`, without the
  // launch: the truth the simulation charges (before noise), used for the
  // makespan lower bound and as the cost model's prior.
  double kernel_us(int d, const std::string& op, double work) const;
  double launch_us(int d) const;
  int queues(int d) const;
  // Whether device d runs its kernels on the enqueuing thread only
  // (Device::runs_inline()).
  bool runs_inline(int d) const { return inline_[static_cast<size_t>(d)] != 0; }
  // Link time of `bytes` from device a's memory to device b's.
  double copy_us(int a, int b, uint64_t bytes) const;

  // --- for SimDevice ---------------------------------------------------------
  void submit(int d, DeviceTask* task, CompletionSink* sink);
  // Copies into `dst`'s device; outside a task (synchronous), it also
  // advances the clock by the link time.
  StatusOr<Tensor> copy(const Tensor& src, MemorySpace dst);

 private:
  struct Pending {
    int64_t end_ns;
    uint64_t seq;
    DeviceTask* task;
    CompletionSink* sink;
    bool operator>(const Pending& o) const { return end_ns != o.end_ns ? end_ns > o.end_ns : seq > o.seq; }
  };
  struct Queues {
    std::vector<int64_t> compute_free, copy_free;  // virtual time each queue is free
  };
  int64_t jitter(double us);
  const SimDeviceClass& class_of(int d) const;

  SimProfile profile_;
  std::vector<std::unique_ptr<SimDevice>> devices_;  // moved out by take_devices
  std::vector<SimDevice*> device_ptrs_;
  std::vector<Queues> queues_;
  std::vector<uint8_t> inline_;  // per device, see runs_inline()
  std::unordered_map<MemorySpace, int> space_owner_;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending_;
  int64_t now_ns_ = 0;
  uint64_t seq_ = 0;
  bool in_task_ = false;
  std::mt19937_64 rng_;
};

}  // namespace sy

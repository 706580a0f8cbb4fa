// LinkModel: what copies between two memory spaces cost, as the run loop
// measures them, for CostModel to predict transfers with.
//
// The topology's links are a prior: measured by `calibrate` and saved in a
// profile, or a default (15 us and 20 GB/s each way between host and GPU).
// Without a profile the default stood, and on the H200 machine it was far
// off both ways: a copy to the GPU from ordinary host memory ran at about
// 8 GB/s for 1 MiB (staged), one back to the host at 40-55 GB/s. So each
// link also learns, from every copy on it:
//  - its time on the link (start to end): a least-squares line of time
//    over bytes, through copies of two or more sizes; through copies of
//    one size, the prior's latency and the bandwidth those copies showed;
//  - the host time the loop spends issuing it, an average of the recent
//    ones. Per link, not per device: a copy from pageable host memory is
//    staged into pinned memory while it is issued, which a copy back does
//    not need, and a device's one average charged that to both.
// Spaces are the topology's indices; links among the first kMaxSpaces
// spaces are learned, others keep the prior.
//
// Thread-safety: all members are safe from any thread; reads are lock-free.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>

namespace sy {

class LinkModel {
 public:
  static constexpr int kMaxSpaces = 16;

  LinkModel();
  ~LinkModel();
  LinkModel(const LinkModel&) = delete;
  LinkModel& operator=(const LinkModel&) = delete;

  // Predicted microseconds on the link for `bytes`, or < 0 where nothing
  // was measured on it (the caller uses the prior).
  double transfer_us(int from, int to, uint64_t bytes) const;
  // The learned line, time = latency_us + us_per_byte * bytes; false where
  // nothing was measured.
  bool line(int from, int to, double* latency_us, double* us_per_byte) const;
  // One copy's time on the link; `prior_latency_us` is the prior's latency,
  // which copies of a single size cannot separate from their bandwidth.
  void record(int from, int to, uint64_t bytes, double measured_us, double prior_latency_us);

  // Host time issuing a copy on the link; before any was measured, that of
  // the way back, else 0.
  double issue_us(int from, int to) const;
  void record_issue(int from, int to, double measured_us);

 private:
  struct Link;
  Link* link(int from, int to) const;
  std::unique_ptr<std::array<Link, kMaxSpaces * kMaxSpaces>> links_;
};

}  // namespace sy

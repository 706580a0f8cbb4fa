// CostModel: predicts kernel and transfer times for the placer, and learns
// from measured times. Per (op, device) "slot" it keeps an online history
// per shape class (log2 bucket of the work size) and a least-squares line
// time = a + b * work, used for shape classes not seen yet. Unseen
// (op, device) pairs fall back to the device's pooled line, then to a fixed
// guess. Transfers use the Topology: latency + bytes / bandwidth.
//
// Profiles persist as JSON (--profile FILE; `switchyard calibrate`).
//
// Thread-safety: slot() takes a lock and is meant for plan time; work(),
// predict_us() and record() are lock-free per slot and safe from any thread.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "devices/topology.h"
#include "ir/dims.h"
#include "ir/graph.h"
#include "ir/status.h"

namespace sy {

struct PredictionError {
  int64_t samples = 0;          // predictions compared with measurements
  double mean_abs_rel = 0;      // mean |predicted - measured| / measured
  double median_abs_rel = 0;    // over the most recent samples
};

class CostModel {
 public:
  CostModel();
  ~CostModel();
  CostModel(const CostModel&) = delete;
  CostModel& operator=(const CostModel&) = delete;

  // Link costs used by transfer_us(); copied in.
  void set_topology(const Topology& topology);
  const Topology& topology() const;

  // A stable handle for (node's domain::op, device). Thread-safe (locks);
  // call at plan time, not per execution.
  int slot(const Node& node, DeviceId device);

  // Work size of one execution from the input shapes: multiply-adds for
  // MatMul/Gemm/Conv-like ops, total input elements otherwise. Null entries
  // are absent inputs. Lock-free.
  double work(int slot, std::span<const Dims* const> input_dims) const;
  // Predicted kernel time in microseconds. Lock-free.
  double predict_us(int slot, double work) const;
  // Measurements recorded for this slot at `work`'s shape class, or
  // kPriorSamples where there are none but the prior knows the figure
  // (it is then as good as measured). Lock-free.
  int64_t samples(int slot, double work) const;
  static constexpr int64_t kPriorSamples = 1000;
  // Feeds one measurement back (also updates the prediction-error stats).
  void record(int slot, double work, double measured_us);

  // Host time the run loop spends issuing a kernel to device `device` (an
  // index of the session's devices, as Candidate::device_index). An
  // exponential average of the recent measurements, so it follows a device
  // whose launch cost changes; 0 before any. Not saved in profiles: a few
  // nodes measure it. Lock-free.
  double issue_us(int device) const;
  void record_issue(int device, double measured_us);

  // Predicted microseconds to move `bytes` between memory-space indices of
  // the topology: the link as the copies of runs measured it (LinkModel),
  // else the topology's figure. Lock-free.
  double transfer_us(int from_space, int to_space, uint64_t bytes) const;
  // One copy's time on its link, from its start there to its end.
  void record_copy(int from_space, int to_space, uint64_t bytes, double measured_us);
  // Host time the run loop spends issuing a copy over a link, learned per
  // link (LinkModel); 0 before any. Not saved in profiles. Lock-free.
  double copy_issue_us(int from_space, int to_space) const;
  void record_copy_issue(int from_space, int to_space, double measured_us);

  PredictionError error() const;

  // Known times to fall back on where this model has measured nothing at
  // a work size's shape class (and has no line of its own): asked before
  // the sibling-device, pooled and default guesses. The simulator sets its
  // profile here, so static policies plan with the simulated machine's
  // costs. Returns < 0 for "unknown". Set before any prediction; the
  // function must be thread-safe.
  using Prior = std::function<double(const std::string& op, const std::string& device, double work)>;
  void set_prior(Prior prior);

  // JSON profile: per (op, device) histories and lines, plus links keyed by
  // memory-space names ("cpu:0->cpu:1"). load() merges into this model and
  // applies links whose spaces exist in the topology.
  Status load(const std::string& path);
  Status save(const std::string& path) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sy

// MakespanBound: a lower bound on the makespan of the DAG a run actually
// executed (after control flow resolved: the branches taken, the loop
// iterations run), as a RunObserver of that run.
//
//   bound = max(critical path, area, launches)
//   - critical path: the longest data-dependency chain with every kernel on
//     its fastest device (launch + kernel time), transfers free;
//   - area: the fractional relaxation of spreading the kernels over the
//     devices (device d runs queues(d) kernels at once), solved through its
//     Lagrangian dual: for weights w_d >= 0 with sum_d w_d * queues(d) = 1,
//     sum_n min_d w_d * t(n, d) is a valid bound; the weights are improved
//     by multiplicative updates and the best value kept, so the figure is
//     a bound whether or not the search converges;
//   - launches: issuing is serial host work, at least min_d launch(d) per
//     kernel.
// No schedule can beat it, so makespan / bound says how much a policy
// leaves on the table (1.0 = optimal).
//
// Dependencies are followed through tensor buffers, which flow unchanged
// through If outputs, Loop-carried values and Scan state. A view (an output
// sharing an input's buffer) keeps its producer's time, and a buffer made
// outside a kernel counts as ready at the start: both can only lower the
// figure, so it stays a bound. Tensors seen are held until reset(), so a
// freed buffer cannot come back under an old time.
//
// Thread-safety: one run at a time (the simulator's runs are serial).
#pragma once

#include <functional>
#include <unordered_map>
#include <vector>

#include "devices/buffer.h"
#include "executor/run_observer.h"

namespace sy {

class SimMachine;

class MakespanBound final : public RunObserver {
 public:
  struct Result {
    double critical_path_us = 0, area_us = 0, launches_us = 0;
    int64_t kernels = 0;
    double bound_us() const { return std::max({critical_path_us, area_us, launches_us}); }
  };
  // Kernel time of `node` at `work` on device d (launch excluded).
  using KernelUs = std::function<double(const Node& node, double work, int device)>;

  MakespanBound(KernelUs kernel_us, std::vector<double> launch_us, std::vector<int> queues);
  // Times from a simulated machine's profile, without noise.
  static MakespanBound for_simulator(const SimMachine& machine);

  void on_kernel(const KernelEvent& e) override;
  // Forgets the run (and releases the tensors it held).
  void reset();
  Result result() const;

 private:
  double ready_us(const RuntimeValue* v) const;

  KernelUs kernel_us_;
  std::vector<double> launch_us_;
  std::vector<int> queues_;
  double min_launch_us_ = 0;
  std::vector<double> times_;  // [kernel][device]
  std::unordered_map<const Buffer*, double> finish_us_;  // earliest finish of each buffer's producer
  std::vector<BufferRef> held_;
  Result r_;
};

}  // namespace sy

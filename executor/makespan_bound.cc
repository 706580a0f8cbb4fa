#include "executor/makespan_bound.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "devices/sim/sim_machine.h"

namespace sy {
namespace {

template <typename F>
void for_each_buffer(const RuntimeValue* v, F&& f) {
  if (!v) return;
  if (v->is_tensor()) {
    if (const Buffer* b = v->tensor().buffer().get()) f(v->tensor().buffer(), b);
  } else if (v->is_sequence()) {
    for (const Tensor& t : v->sequence()->items)
      if (const Buffer* b = t.buffer().get()) f(t.buffer(), b);
  }
}

}  // namespace

MakespanBound::MakespanBound(KernelUs kernel_us, std::vector<double> launch_us, std::vector<int> queues)
    : kernel_us_(std::move(kernel_us)), launch_us_(std::move(launch_us)), queues_(std::move(queues)) {
  min_launch_us_ = launch_us_.empty() ? 0 : *std::min_element(launch_us_.begin(), launch_us_.end());
}

MakespanBound MakespanBound::for_simulator(const SimMachine& m) {
  std::vector<double> launch;
  std::vector<int> queues;
  for (int d = 0; d < m.num_devices(); ++d) {
    launch.push_back(m.launch_us(d));
    queues.push_back(m.queues(d));
  }
  return MakespanBound(
      [&m](const Node& n, double work, int d) {
        return m.kernel_us(d, n.op_key(), work);
      },
      std::move(launch), std::move(queues));
}

void MakespanBound::reset() {
  times_.clear();
  finish_us_.clear();
  held_.clear();
  r_ = Result{};
}

double MakespanBound::ready_us(const RuntimeValue* v) const {
  double t = 0;
  for_each_buffer(v, [&](const BufferRef&, const Buffer* b) {
    if (auto it = finish_us_.find(b); it != finish_us_.end()) t = std::max(t, it->second);
  });
  return t;
}

void MakespanBound::on_kernel(const KernelEvent& e) {
  const size_t n = launch_us_.size();
  double fastest = std::numeric_limits<double>::infinity();
  for (size_t d = 0; d < n; ++d) {
    const double t = kernel_us_(*e.node, e.work, static_cast<int>(d));
    times_.push_back(t);
    fastest = std::min(fastest, launch_us_[d] + t);
  }
  double start = 0;
  for (const RuntimeValue* in : e.inputs) start = std::max(start, ready_us(in));
  const double finish = start + fastest;
  r_.critical_path_us = std::max(r_.critical_path_us, finish);
  r_.launches_us += min_launch_us_;
  ++r_.kernels;
  for (const RuntimeValue* out : e.outputs)
    for_each_buffer(out, [&](const BufferRef& ref, const Buffer* b) {
      for (const RuntimeValue* in : e.inputs) {
        bool alias = false;
        for_each_buffer(in, [&](const BufferRef&, const Buffer* ib) { alias |= ib == b; });
        if (alias) return;  // a view: keeps its producer's time
      }
      if (finish_us_.emplace(b, finish).second) held_.push_back(ref);
      else finish_us_[b] = finish;
    });
}

MakespanBound::Result MakespanBound::result() const {
  Result r = r_;
  const size_t n = launch_us_.size();
  if (n == 0 || r.kernels == 0) return r;
  const size_t k = static_cast<size_t>(r.kernels);
  double capacity = 0;
  for (int q : queues_) capacity += q;
  std::vector<double> w(n, 1.0 / capacity), load(n);
  constexpr int kIterations = 300;
  for (int it = 0; it < kIterations; ++it) {
    std::fill(load.begin(), load.end(), 0.0);
    double value = 0;
    for (size_t i = 0; i < k; ++i) {
      const double* t = &times_[i * n];
      size_t best = 0;
      for (size_t d = 1; d < n; ++d)
        if (w[d] * t[d] < w[best] * t[best]) best = d;
      value += w[best] * t[best];
      load[best] += t[best];
    }
    r.area_us = std::max(r.area_us, value);
    // Raise the weight of devices loaded beyond their share, lower the
    // others, then rescale onto sum_d w_d * queues(d) = 1.
    double mean = 0;
    for (size_t d = 0; d < n; ++d) mean += load[d] / capacity;
    if (!(mean > 0)) break;
    const double step = 1.0 / std::sqrt(1.0 + it);
    double norm = 0;
    for (size_t d = 0; d < n; ++d) {
      w[d] *= std::exp(step * std::clamp(load[d] / (queues_[d] * mean) - 1.0, -4.0, 4.0));
      norm += w[d] * queues_[d];
    }
    for (double& x : w) x /= norm;
  }
  return r;
}

}  // namespace sy

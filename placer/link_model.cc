#include "placer/link_model.h"

#include <cmath>
#include <mutex>

#include "placer/line_fit.h"

namespace sy {

struct LinkModel::Link {
  SpinLock lock;
  LineFit fit;  // guarded by lock: time over bytes, every copy
  // Read lock-free: time = a + b * bytes, see record().
  PublishedLine line;
  double min_us = 0;              // guarded by lock: the quickest copy
  std::atomic<double> issue{-1};  // negative until the first sample
};

LinkModel::LinkModel() : links_(std::make_unique<std::array<Link, kMaxSpaces * kMaxSpaces>>()) {}
LinkModel::~LinkModel() = default;

LinkModel::Link* LinkModel::link(int from, int to) const {
  if (from < 0 || to < 0 || from >= kMaxSpaces || to >= kMaxSpaces || from == to) return nullptr;
  return &(*links_)[static_cast<size_t>(from * kMaxSpaces + to)];
}

bool LinkModel::line(int from, int to, double* latency_us, double* us_per_byte) const {
  const Link* l = link(from, to);
  return l && l->line.read(latency_us, us_per_byte);
}

double LinkModel::transfer_us(int from, int to, uint64_t bytes) const {
  double a, b;
  if (!line(from, to, &a, &b)) return -1;
  return PublishedLine::at(a, b, static_cast<double>(bytes));
}

void LinkModel::record(int from, int to, uint64_t bytes, double measured_us, double prior_latency_us) {
  Link* l = link(from, to);
  if (!l || !(measured_us >= 0) || !std::isfinite(measured_us)) return;
  std::lock_guard<SpinLock> guard(l->lock);
  l->fit.add(std::min(static_cast<double>(bytes), 1e30), measured_us);
  l->min_us = l->fit.n == 1 ? measured_us : std::min(l->min_us, measured_us);
  // Copies of one size cannot separate the latency from the bandwidth: the
  // line then runs from the prior's latency (or the quickest copy, if that
  // was quicker) through the copies' mean. Copies of several sizes fit
  // their own line, whose intercept noise may push below zero.
  const bool own = l->fit.has_fit();
  const double prior = std::isfinite(prior_latency_us) ? prior_latency_us : 0.0;
  const double floor = own ? 0.0 : std::clamp(prior, 0.0, l->min_us);
  double a = floor, b = 0;
  if (own) l->fit.coefficients(&a, &b);
  const double size = l->fit.mean_x, mean = l->fit.mean_y;
  if (!own || a < floor) {
    a = floor;
    b = size > 0 ? std::max(0.0, (mean - a) / size) : 0;
  }
  l->line.publish(a, b);
}

double LinkModel::issue_us(int from, int to) const {
  // A link not used yet borrows the way back's figure: the same two
  // devices issue it, and 0 would make the first copy look free.
  for (const Link* l : {link(from, to), link(to, from)}) {
    const double v = l ? l->issue.load(std::memory_order_relaxed) : -1;
    if (v >= 0) return v;
  }
  return 0;
}

void LinkModel::record_issue(int from, int to, double measured_us) {
  Link* l = link(from, to);
  if (!l || !(measured_us >= 0) || !std::isfinite(measured_us)) return;
  follow_average(l->issue, measured_us);
}

}  // namespace sy

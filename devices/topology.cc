#include "devices/topology.h"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace sy {
namespace {
// Defaults before calibration: a host memcpy between two CPU memory spaces.
// Deliberately conservative so that an uncalibrated dynamic policy does not
// scatter small nodes across spaces.
constexpr Link kDefaultHostLink{10.0, 8.0};
// Host<->GPU and GPU<->GPU before measurement: a PCIe 4 x16 link's
// practical bandwidth, and the latency of a cross-device dependency (copy
// launch plus completion callback), not just the DMA.
constexpr Link kDefaultGpuLink{15.0, 20.0};
}  // namespace

Topology::Topology(const std::vector<Device*>& devices) {
  for (Device* d : devices) {
    int i = index_of(d->memory_space());
    if (i < 0) {
      spaces_.push_back(d->memory_space());
      i = static_cast<int>(spaces_.size()) - 1;
    }
    device_space_.push_back(i);
  }
  // Graph inputs, initializers and outputs live in host memory even when no
  // device of the session owns it (e.g. --devices cpu:1).
  if (index_of(kHostSpace) < 0) spaces_.push_back(kHostSpace);
  links_.assign(spaces_.size() * spaces_.size(), kDefaultHostLink);
  for (size_t i = 0; i < spaces_.size(); ++i)
    for (size_t j = 0; j < spaces_.size(); ++j)
      if (spaces_[i].kind == DeviceKind::kCuda || spaces_[j].kind == DeviceKind::kCuda)
        links_[i * spaces_.size() + j] = kDefaultGpuLink;
  for (size_t i = 0; i < spaces_.size(); ++i) links_[i * spaces_.size() + i] = Link{0, 0};
}

int Topology::index_of(MemorySpace s) const {
  for (size_t i = 0; i < spaces_.size(); ++i)
    if (spaces_[i] == s) return static_cast<int>(i);
  return -1;
}

StatusOr<Link> measure_link(Device& src, Device& dst, uint64_t bytes) {
  using Clock = std::chrono::steady_clock;
  // The GPU side runs host<->GPU copies (CPU devices cannot reach GPU
  // memory); otherwise the destination pulls.
  Device& engine = src.memory_space().kind == DeviceKind::kCuda && dst.memory_space().kind != DeviceKind::kCuda ? src : dst;
  auto time_copy = [&](uint64_t n, int reps) -> StatusOr<double> {
    ASSIGN_OR_RETURN(Tensor t, src.allocate(DataType::kUInt8, Dims{static_cast<int64_t>(n)}));
    if (src.memory_space().is_host_accessible()) std::memset(t.raw(), 1, n);  // fault pages in before timing
    {
      // One untimed copy: the destination allocator faults its pages in too.
      ASSIGN_OR_RETURN(Tensor warm, engine.copy(t, dst.memory_space()));
    }
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
      auto t0 = Clock::now();
      ASSIGN_OR_RETURN(Tensor out, engine.copy(t, dst.memory_space()));
      double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
      best = std::min(best, us);
    }
    return best;
  };
  ASSIGN_OR_RETURN(double small_us, time_copy(64, 50));
  ASSIGN_OR_RETURN(double big_us, time_copy(bytes, 5));
  Link l;
  l.latency_us = small_us;
  l.bandwidth_gbps = static_cast<double>(bytes) / std::max(big_us - small_us, 1e-3) / 1e3;
  return l;
}

}  // namespace sy

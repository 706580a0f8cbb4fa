// Topology: link costs between the memory spaces of a session's devices
// (after IREE's topology table). The placer reads it to predict transfer
// times; `switchyard devices` and `calibrate` fill it with measured figures.
#pragma once

#include <cstdint>
#include <vector>

#include "devices/device.h"
#include "devices/device_id.h"

namespace sy {

struct Link {
  double latency_us = 0;
  double bandwidth_gbps = 0;  // GB/s (1e9 bytes per second)
};

class Topology {
 public:
  Topology() = default;
  // One entry per distinct memory space of `devices`, with default links.
  explicit Topology(const std::vector<Device*>& devices);

  size_t num_spaces() const { return spaces_.size(); }
  const MemorySpace& space(int i) const { return spaces_[static_cast<size_t>(i)]; }
  // Index of `s`, or -1 if no device of the session owns it.
  int index_of(MemorySpace s) const;
  // Index of device `d`'s memory space (by session device index).
  int space_of_device(int d) const { return device_space_[static_cast<size_t>(d)]; }

  const Link& link(int from, int to) const { return links_[static_cast<size_t>(from) * spaces_.size() + to]; }
  void set_link(int from, int to, Link l) { links_[static_cast<size_t>(from) * spaces_.size() + to] = l; }
  // Predicted microseconds to move `bytes` from space `from` to `to`.
  double transfer_us(int from, int to, uint64_t bytes) const {
    if (from == to) return 0;
    const Link& l = link(from, to);
    return l.latency_us + (l.bandwidth_gbps > 0 ? static_cast<double>(bytes) / (l.bandwidth_gbps * 1e3) : 0);
  }

 private:
  std::vector<MemorySpace> spaces_;
  std::vector<int> device_space_;
  std::vector<Link> links_;  // row-major [from][to]
};

// Measures the link from `src`'s memory to `dst`'s by timed copies of
// `bytes` (bandwidth) and of 64 bytes (latency). Runs copies synchronously;
// for `devices` and `calibrate`, never on the run path.
StatusOr<Link> measure_link(Device& src, Device& dst, uint64_t bytes = 8u << 20);

}  // namespace sy

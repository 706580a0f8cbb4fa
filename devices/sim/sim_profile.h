// SimProfile: a machine described in JSON for `--simulate` (its devices,
// what each op costs on each device class, and the links between them).
// The schema is documented in models/profiles/README.md; `switchyard
// calibrate --sim FILE` writes one for the machine it runs on.
//
// A profile is data, not a promise: nothing is allocated from what it
// claims (memory sizes, counts), and every number is range-checked.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "devices/device_id.h"
#include "ir/status.h"

namespace sy {

// Kernel time on one device class as a function of the cost model's work
// size (multiply-adds for MatMul/Gemm/Conv, input elements otherwise): the
// cost model's regression form, base_us + us_per_work * work, optionally
// refined by measured points.
struct SimCost {
  std::string op;  // "MatMul", "domain::Op", or "*" for every op not listed
  double base_us = 0;
  double us_per_work = 0;
  // (work, us), work strictly increasing. Between two points the time is
  // interpolated; beyond the ends the line's slope continues from the end
  // point. Empty: the line alone.
  std::vector<std::array<double, 2>> points;

  double predict_us(double work) const;
};

struct SimDeviceClass {
  std::string name;  // "h100", "core", ...
  DeviceKind kind = DeviceKind::kCpu;
  int count = 1;                // devices of this class per node
  uint64_t memory_bytes = 0;    // capacity (an allocation beyond it fails)
  int queues = 1;               // kernels that run at once, each at full speed
  int copy_queues = 1;          // copies that run at once
  double launch_us = 0;         // host time to issue one task (serial)
  // cpu classes: delay before a kernel handed to the device's own thread
  // starts (the thread's wake-up), when it does not run on the loop's.
  double handoff_us = 10;
  std::vector<SimCost> costs;   // by op; exactly one "*"
  const SimCost& cost(const std::string& op) const;
};

struct SimLink {
  std::string from, to;  // class names or "*"
  bool remote = false;   // between nodes (scope "remote") or within one
  double latency_us = 0;
  double bandwidth_gbps = 0;
};

// One simulated device: its class, node and identity.
struct SimDeviceSpec {
  int cls = 0;  // index into SimProfile::classes
  int node = 0;
  DeviceId id;
};

struct SimProfile {
  std::string path, name, source;
  int nodes = 1;
  double noise = 0;  // sigma of a log-normal jitter on every task time
  std::vector<SimDeviceClass> classes;
  std::vector<SimLink> links;
  // Expanded: per node, every class's devices in order. cpu devices and
  // cuda devices are numbered separately (cpu:0, cpu:1, cuda:0, ...);
  // devices()[0] is cpu:0, the host, where inputs and outputs live.
  std::vector<SimDeviceSpec> devices;
  std::vector<int> pair_link;  // [a * devices + b]: index into links

  // The link from device a to device b (indices into devices); a != b.
  const SimLink& link(int a, int b) const;
  // "name: cpu:0,cuda:0,..." for messages.
  std::string describe() const;
};

// Reads and validates a profile: InvalidArgument naming the file and the
// field on any problem, NotFound if the file is missing.
StatusOr<SimProfile> load_sim_profile(const std::string& path);
StatusOr<SimProfile> parse_sim_profile(const std::string& text, const std::string& path);

}  // namespace sy

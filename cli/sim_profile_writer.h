// Writes what `switchyard calibrate` measured as a simulation profile (the
// schema of devices/sim/sim_profile.h, documented in models/profiles/), so
// `--simulate` can replay this machine.
#pragma once

#include <string>
#include <vector>

#include "cli/measure_links.h"
#include "devices/device.h"

namespace sy {

struct MeasuredKernel {
  std::string op;  // cost-model key: "MatMul", "domain::Op"
  int device = 0;  // index into the device list
  double work = 0;
  double median_us = 0;
};

struct MeasuredMachine {
  std::vector<Device*> devices;
  std::vector<MeasuredKernel> kernels;
  std::vector<MeasuredLink> links;
  std::vector<double> launch_us;  // per device: host time per task beyond the kernel
  std::string source;             // where the figures come from
};

// Devices of one kind form one class ("cpu", "cuda"); kernels measured on
// several devices of a class are averaged at equal work. Each op gets its
// measured points and a least-squares line; "*" is the line of every
// op other than MatMul/Gemm/Conv.
Status write_sim_profile(const std::string& path, const MeasuredMachine& m);

}  // namespace sy

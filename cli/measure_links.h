// Measured links between the memory spaces of a device list, shared by
// `switchyard devices` (which prints them) and `calibrate` (which stores
// them in a cost profile's topology).
#pragma once

#include <cstdint>
#include <vector>

#include "devices/device.h"
#include "devices/topology.h"

namespace sy {

struct MeasuredLink {
  MemorySpace from, to;
  Link link;
};

// For each ordered pair of distinct memory spaces owned by `devices`, times
// copies with measure_link(): `bytes` for bandwidth, 64 bytes for latency.
// Best figures of a few passes. Synchronous; the devices must be idle (no session running on them).
// Spaces no device owns (the host's, under --devices cpu:1) are not
// measured: there is no device to copy with.
StatusOr<std::vector<MeasuredLink>> measure_links(const std::vector<Device*>& devices, uint64_t bytes = 8u << 20);

}  // namespace sy

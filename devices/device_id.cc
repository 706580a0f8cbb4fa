#include "devices/device_id.h"

namespace sy {

const char* device_kind_name(DeviceKind k) {
  switch (k) {
    case DeviceKind::kCpu: return "cpu";
    case DeviceKind::kCuda: return "cuda";
    case DeviceKind::kSim: return "sim";
  }
  return "?";
}

std::string DeviceId::to_string() const { return std::string(device_kind_name(kind)) + ":" + std::to_string(ordinal); }

std::string MemorySpace::to_string() const {
  return std::string(device_kind_name(kind)) + "-mem:" + std::to_string(index);
}

}  // namespace sy

// Device identity and memory spaces are plain values: trivially copyable,
// hashable and usable as map keys.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace sy {

enum class DeviceKind : uint8_t { kCpu = 0, kCuda = 1, kSim = 2 };
const char* device_kind_name(DeviceKind k);

struct DeviceId {
  DeviceKind kind = DeviceKind::kCpu;
  int16_t ordinal = 0;
  bool operator==(const DeviceId&) const = default;
  std::string to_string() const;  // "cpu:0"
};

// Where bytes live. Two CPU devices may have distinct memory spaces so that
// moving a tensor between them is a real copy through the transfer path.
struct MemorySpace {
  DeviceKind kind = DeviceKind::kCpu;
  int16_t index = 0;
  bool operator==(const MemorySpace&) const = default;
  bool is_host_accessible() const { return kind != DeviceKind::kCuda; }
  std::string to_string() const;
};

inline constexpr MemorySpace kHostSpace{DeviceKind::kCpu, 0};

}  // namespace sy

template <>
struct std::hash<sy::DeviceId> {
  size_t operator()(const sy::DeviceId& d) const noexcept {
    return (static_cast<size_t>(d.kind) << 16) ^ static_cast<uint16_t>(d.ordinal);
  }
};
template <>
struct std::hash<sy::MemorySpace> {
  size_t operator()(const sy::MemorySpace& m) const noexcept {
    return (static_cast<size_t>(m.kind) << 16) ^ static_cast<uint16_t>(m.index);
  }
};

// TensorData: a host-resident constant tensor owned by the IR (initializers,
// Constant values, tensor attributes). Devices wrap it without copying.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/data_type.h"
#include "ir/dims.h"

namespace sy {

struct TensorData {
  DataType dtype = DataType::kUndefined;
  Dims dims;
  std::string name;
  // Raw little-endian element bytes for every type except strings.
  std::vector<uint8_t> bytes;
  // Element values for DataType::kString.
  std::vector<std::string> strings;

  int64_t numel() const { return dims.numel(); }
  template <typename T>
  const T* data() const { return reinterpret_cast<const T*>(bytes.data()); }
};

}  // namespace sy

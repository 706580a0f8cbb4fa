// Reading and writing values for the CLI: NumPy .npy files and ONNX
// TensorProto / SequenceProto / OptionalProto .pb files. Sizes are checked
// against the file before anything is allocated.
#pragma once

#include <string>

#include "devices/runtime_value.h"
#include "ir/status.h"

namespace sy {

// Chooses the format by extension (.npy or .pb). Returns the value and, for
// .pb files, the name stored in the proto (may be empty).
StatusOr<RuntimeValue> read_value_file(const std::string& path, std::string* proto_name = nullptr);
StatusOr<Tensor> read_npy(const std::string& path);
Status write_npy(const std::string& path, const Tensor& t);

}  // namespace sy

// Reading and writing values for the CLI: NumPy .npy files and ONNX
// TensorProto / SequenceProto / OptionalProto .pb files. Sizes are checked
// against the file before anything is allocated.
#pragma once

#include <string>

#include "devices/runtime_value.h"
#include "ir/status.h"
#include "ir/type_info.h"

namespace sy {

// Chooses the format by extension (.npy or .pb). Returns the value and, for
// .pb files, the name stored in the proto (may be empty). The proto message
// kinds share field numbers, so `expected` (the model's declared type, may be
// null) says whether a .pb holds a tensor, a sequence or an optional.
StatusOr<RuntimeValue> read_value_file(const std::string& path, const TypeInfo* expected = nullptr,
                                       std::string* proto_name = nullptr);
StatusOr<Tensor> read_npy(const std::string& path);
Status write_npy(const std::string& path, const Tensor& t);

}  // namespace sy

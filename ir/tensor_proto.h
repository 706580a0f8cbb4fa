// Conversion of onnx::TensorProto / TypeProto into IR types, with the size
// checks that keep a malformed file from making us allocate what it claims.
#pragma once

#include <memory>
#include <string>

#include "ir/status.h"
#include "ir/tensor_data.h"
#include "ir/type_info.h"

namespace onnx {
class TensorProto;
class TypeProto;
}  // namespace onnx

namespace sy {

// `base_dir` is the folder external data must live in ("" forbids external
// data). Errors are prefixed by the caller. Without `values`, the proto is
// checked just as fully, but the result holds only its name, type and
// shape: no bytes are copied or read from external files.
StatusOr<std::shared_ptr<TensorData>> tensor_from_proto(const onnx::TensorProto& proto, const std::string& base_dir,
                                                        bool values = true);
TypeInfo type_from_proto(const onnx::TypeProto& proto);

}  // namespace sy

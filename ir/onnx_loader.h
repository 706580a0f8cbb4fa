// Loads an ONNX model file into the IR, validating as it goes. Every failure
// names the file, the node (when there is one) and the reason.
#pragma once

#include <memory>
#include <string>

#include "ir/graph.h"
#include "ir/status.h"

namespace onnx {
class ModelProto;
}

namespace sy {

struct LoadOptions {
  int max_nesting_depth = 32;          // deeper subgraph nesting is rejected
  uint64_t max_file_bytes = 4ull << 30;  // larger files are rejected
  bool run_onnx_checker = true;        // libonnx's checker, after our own checks
  bool infer_shapes = true;            // libonnx shape inference fills value types
  bool fuse_ops = true;                // OpFusion (ir/op_fusion.h), once the model has passed the checks
  // ChannelsLast (ir/channels_last.h) after it: convolutions the CPU alone
  // runs. For models whose sessions have only CPU devices.
  bool channels_last = false;
};

// Highest default-domain opset this build supports.
constexpr int kMaxSupportedOpset = 23;

class OnnxLoader {
 public:
  explicit OnnxLoader(LoadOptions options = {}) : options_(options) {}
  // Thread-safe (holds no mutable state).
  StatusOr<std::unique_ptr<Model>> load_file(const std::string& path) const;
  // `base_dir` is where external data may live ("" forbids it).
  StatusOr<std::unique_ptr<Model>> load_bytes(const std::string& bytes, const std::string& name,
                                             const std::string& base_dir) const;
  // Adds inferred types to `proto` and fuses it (LoadOptions), but leaves
  // its tensors' values in it.
  StatusOr<std::unique_ptr<Model>> load_proto(onnx::ModelProto& proto, const std::string& name,
                                             const std::string& base_dir) const;

 private:
  // `take_values`: each tensor's values leave `proto` once copied.
  StatusOr<std::unique_ptr<Model>> load(onnx::ModelProto& proto, const std::string& name, const std::string& base_dir,
                                        bool take_values) const;

  LoadOptions options_;
};

}  // namespace sy

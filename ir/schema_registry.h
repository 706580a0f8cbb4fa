// The ai.onnx operator schemas that models are checked against.
//
// Debian 12's libonnx (1.12) defines the default domain up to opset 17, but
// exporters write newer opsets: PyTorch's dynamo exporter writes 18 and up.
// Those opsets changed operators' signatures. ReduceMean's axes became an
// input (18). Split gained num_outputs (18). Resize gained antialias (18).
// QuantizeLinear gained output_dtype (21). Many ops accept bfloat16 (22).
// A checker that used the opset-17 schemas would reject such models, and
// shape inference would get them wrong. This registry defines those newer
// versions, each derived from its predecessor by the delta that ONNX's
// changelog gives, and defers to libonnx for everything else. Versions that
// only add types libonnx 1.12 cannot represent (float8, int4) are left out;
// the loader refuses those types itself.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "onnx/defs/schema.h"

namespace sy {

class SchemaRegistry final : public onnx::ISchemaRegistry {
 public:
  // Built on first use; thread-safe, and immutable afterwards.
  static const SchemaRegistry& instance();

  // The newest schema of `op` whose version is at most `max_inclusive_version`.
  const onnx::OpSchema* GetSchema(const std::string& op, int max_inclusive_version,
                                  const std::string& domain) const override;

  // What went wrong while deriving the schemas, such as a delta that names
  // a type constraint its predecessor lacks. Empty in a correct build.
  const std::vector<std::string>& build_errors() const { return errors_; }

  // The highest version defined here for the default domain.
  int newest_version() const;

 private:
  SchemaRegistry();

  std::map<std::string, std::map<int, onnx::OpSchema>, std::less<>> newer_;  // op -> since version -> schema
  std::vector<std::string> errors_;
};

}  // namespace sy
